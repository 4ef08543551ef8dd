import Foundation


/// One song as an importer describes it. Nil local paths keep what the library already has, so a
/// feed re-import never forgets a finished download.
public struct SongInput: Sendable, Equatable {
    public var key: String
    public var title: String
    public var singer: String
    public var album: String?
    public var track: Int?
    public var year: Int?
    public var durationMs: Int?
    public var audioURL: String = ""
    public var lyricsURL: String = ""
    public var localPath: String?
    public var lyricsPath: String?
    public var size: Int64?
    public var sha256: String = ""
    public var fileMtime: Int64?

    public init(key: String, title: String, singer: String) {
        self.key = key
        self.title = title
        self.singer = singer
    }
}

public struct ImportSummary: Sendable, Equatable {
    public var added = 0
    public var updated = 0
    public var skipped = 0
    public var failed = 0
    public var removed = 0
    /// One line per failure: "line 12: missing \"title\"", "a.mp3: not an MPEG audio file".
    public var problems: [String] = []

    public init() {}

    public var line: String {
        var parts = ["\(added) added", "\(updated) updated", "\(skipped) skipped", "\(failed) failed"]
        if removed > 0 { parts.append("\(removed) removed") }
        return parts.joined(separator: ", ")
    }
}
