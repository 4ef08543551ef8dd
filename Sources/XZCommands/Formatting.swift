import Foundation
import XZCatalogue
import XZText

enum Format {
    /// A numbered table of songs aligned by display width, long fields cut with an ellipsis. Below
    /// 70 columns the album column goes, so that rows still fit a narrow terminal.
    static func songTable(_ songs: [Song], width: Int, console: Console) -> [String] {
        let showAlbum = width >= 70
        // Number, time and "  Local", the two-space gaps, and one spare column: a line that fills the
        // last column makes some terminals wrap.
        let fixed = 4 + 7 + 7 + (showAlbum ? 4 : 3) * 2 + 1
        let flexible = max(showAlbum ? 30 : 12, width - fixed)
        let titleWidth = showAlbum ? flexible * 2 / 5 : flexible * 3 / 5
        let singerWidth = showAlbum ? flexible / 4 : flexible - titleWidth
        let albumWidth = flexible - titleWidth - singerWidth
        func row(_ number: String, _ title: String, _ singer: String, _ album: String, _ time: String) -> String {
            DisplayWidth.fit(number, to: 4, alignRight: true) + "  " + DisplayWidth.fit(title, to: titleWidth) + "  "
                + DisplayWidth.fit(singer, to: singerWidth) + "  "
                + (showAlbum ? DisplayWidth.fit(album, to: albumWidth) + "  " : "")
                + DisplayWidth.fit(time, to: 7, alignRight: true) + "  "
        }
        var lines = [console.styled(row("#", "Title", "Singer", "Album", "Time") + "Local", "1")]
        for (index, song) in songs.enumerated() {
            let local = song.isLocal ? console.styled("✓", "32") : " "
            lines.append(row("\(index + 1)", song.title.safe, song.singer.safe, (song.album ?? "").safe,
                             DurationText.clock(ms: song.durationMs)) + local)
        }
        return lines
    }

    static func songJSON(_ song: Song) -> SongJSON {
        SongJSON(id: song.id, title: song.title, singer: song.singer, album: song.album,
                 duration_ms: song.durationMs, local: song.isLocal)
    }

    /// One JSON value as one line of text, for small values such as events.
    static func json<T: Encodable>(_ value: T) throws -> String {
        try StreamingJSONEncoder.text(value)
    }

    /// A JSON value and a newline on standard output, written piece by piece as it is produced, so a
    /// large result neither waits nor sits in memory as one string.
    static func printJSON<T: Encodable>(_ value: T, console: Console) throws {
        try console.stream { write in
            let encoder = StreamingJSONEncoder(sink: write)
            try encoder.encode(value)
            encoder.finish()
            write("\n")
        }
    }
}

/// A song in listings; unknown album and duration are null.
struct SongJSON: Encodable {
    let id: Int64
    let title: String
    let singer: String
    let album: String?
    let duration_ms: Int?
    let local: Bool
}
