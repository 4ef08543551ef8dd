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
                             duration(ms: song.durationMs)) + local)
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

    /// The same JSON style for values built by hand (arrays and dictionaries of JSON types).
    static func json(object: Any) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
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
