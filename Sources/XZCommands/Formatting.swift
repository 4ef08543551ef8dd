import Foundation
import XZCatalogue
import XZText

enum Format {
    /// "4:29", or "1:02:03" past an hour; "-" when unknown.
    static func duration(ms: Int?) -> String {
        guard let ms, ms >= 0 else { return "-" }
        let seconds = ms / 1000
        let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }

    /// A numbered table of songs aligned by display width, long fields cut with an ellipsis.
    static func songTable(_ songs: [Song], width: Int, console: Console) -> [String] {
        // Number, time and "  Local", four two-space gaps, and one spare column: a line that fills the
        // last column makes some terminals wrap.
        let fixed = 4 + 7 + 7 + 4 * 2 + 1
        let flexible = max(30, width - fixed)
        let titleWidth = flexible * 2 / 5
        let singerWidth = flexible / 4
        let albumWidth = flexible - titleWidth - singerWidth
        var lines = [console.styled(
            DisplayWidth.fit("#", to: 4, alignRight: true) + "  " + DisplayWidth.fit("Title", to: titleWidth) + "  "
                + DisplayWidth.fit("Singer", to: singerWidth) + "  " + DisplayWidth.fit("Album", to: albumWidth) + "  "
                + DisplayWidth.fit("Time", to: 7, alignRight: true) + "  Local", "1")]
        for (index, song) in songs.enumerated() {
            let number = DisplayWidth.fit("\(index + 1)", to: 4, alignRight: true)
            let local = song.isLocal ? console.styled("✓", "32") : " "
            lines.append(number + "  " + DisplayWidth.fit(song.title.safe, to: titleWidth) + "  "
                + DisplayWidth.fit(song.singer.safe, to: singerWidth) + "  "
                + DisplayWidth.fit((song.album ?? "").safe, to: albumWidth) + "  "
                + DisplayWidth.fit(duration(ms: song.durationMs), to: 7, alignRight: true) + "  " + local)
        }
        return lines
    }

    static func songJSON(_ song: Song) -> SongJSON {
        SongJSON(id: song.id, title: song.title, singer: song.singer, album: song.album,
                 duration_ms: song.durationMs, local: song.isLocal)
    }

    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

struct SongJSON: Encodable {
    let id: Int64
    let title: String
    let singer: String
    let album: String?
    let duration_ms: Int?
    let local: Bool

    // Unknown fields are written as null, so every song has the same keys.
    func encode(to encoder: Encoder) throws {
        enum Key: String, CodingKey { case id, title, singer, album, duration_ms, local }
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(singer, forKey: .singer)
        try container.encode(album, forKey: .album)
        try container.encode(duration_ms, forKey: .duration_ms)
        try container.encode(local, forKey: .local)
    }
}
