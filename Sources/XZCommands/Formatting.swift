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
            // A song with no file here plays only over the network: say so, so nobody expects it offline.
            let local = song.isLocal ? console.styled("✓", "32") : song.audioURL.isEmpty ? " " : console.styled("online", "2")
            lines.append(row("\(index + 1)", song.title.safe, song.singer.safe, (song.album ?? "").safe,
                             DurationText.clock(ms: song.durationMs)) + local)
        }
        return lines
    }

    /// `text` in lines of at most `width` columns, broken after a space where one is near enough, else
    /// inside a word; following lines are indented by two columns.
    static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(width, 10)
        var lines: [String] = []
        var rest = Substring(text)
        while DisplayWidth.of(String(rest)) > width - (lines.isEmpty ? 0 : 2) {
            let room = width - (lines.isEmpty ? 0 : 2)
            var used = 0
            var end = rest.startIndex
            var lastSpace: String.Index?
            for index in rest.indices {
                let columns = DisplayWidth.of(String(rest[index]))
                if used + columns > room { break }
                used += columns
                if rest[index] == " " { lastSpace = index }
                end = rest.index(after: index)
            }
            // A break at a space in the line's last third; a long word is cut where the line ends.
            if let space = lastSpace, rest.distance(from: rest.startIndex, to: space) > room / 3 { end = space }
            guard end > rest.startIndex else { break }
            lines.append((lines.isEmpty ? "" : "  ") + rest[..<end])
            rest = rest[end...].drop { $0 == " " }
        }
        if !rest.isEmpty || lines.isEmpty { lines.append((lines.isEmpty ? "" : "  ") + rest) }
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
