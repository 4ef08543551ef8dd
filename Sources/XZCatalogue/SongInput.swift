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
    /// Every artist when the tag names several (`singer` then joins them for display); empty: `singer` alone.
    public var artists: [String] = []
    public var albumArtist: String?
    public var genres: [String] = []
    public var disc: Int?
    /// The full recording date when known ("2008-05-01"); `year` alone otherwise.
    public var date: String?
    public var sampleRate: Int?
    public var channels: Int?
    /// The sample field of MPD's Format line ("16", "24", "f"); nil: not a file, or 16-bit.
    public var sampleFormat: String?
    /// The tags without a field of their own (Composer, Performer, the sort tags, MusicBrainz ids ...).
    public var moreTags: [SongTag: [String]] = [:]
    /// Which of `title` and `singer` the importer made up (a file's name, "Unknown") for want of a tag.
    public var untagged: UntaggedFields = []
    /// A CUE sheet's track: the part of an image it is; nil for a whole file.
    public var cuePart: CuePart?
    /// The file carries a CUE sheet in its tags: MPD lists it as a playlist too.
    public var hasCueSheet = false
    /// A CUE track's tags as its sheet gives them, in order (Track as written): listed first, as MPD lists them.
    public var cueTags: [TagEntry] = []
    /// A CUE track's image's length, which MPD's `stats` and `count … group` count for the track.
    public var cueImageMs: Int?

    public init(key: String, title: String, singer: String) {
        self.key = key
        self.title = title
        self.singer = singer
    }
}

/// Where a CUE sheet's track is in its image: the image's path and the bounds in CD frames (75 a second).
public struct CuePart: Sendable, Equatable {
    public var file: String
    public var startFrame: Int
    /// nil: the image's end.
    public var endFrame: Int?

    public init(file: String, startFrame: Int, endFrame: Int?) {
        self.file = file
        self.startFrame = startFrame
        self.endFrame = endFrame
    }
}

extension SongInput {
    /// Separates several values of one tag in a column (tag text never holds control characters).
    public static let valueSeparator = "\u{1F}"

    var artistsColumn: String { artists.count > 1 ? artists.joined(separator: Self.valueSeparator) : "" }
    var genreColumn: String { genres.joined(separator: Self.valueSeparator) }
    var moreTagsColumn: String { MoreTagsColumn.encode(moreTags) }

    /// Every tag value MPD's `any` reads, one a line, and one more newline: the document of the
    /// substring index `song_text`, where every character begins a trigram (see schema.sql,
    /// v8-short-substrings).
    var tagText: String {
        var lines = untagged.contains(.title) ? [""] : [title]
        lines += untagged.contains(.artist) ? [""] : artists.count > 1 ? artists : [singer]
        lines += [album ?? "", albumArtist ?? ""] + genres
        lines += [date ?? year.map(String.init) ?? "", track.map(String.init) ?? "", disc.map(String.init) ?? ""]
        for tag in SongTags.listed where !MoreTagsColumn.ownColumns.contains(tag) {
            lines += (moreTags[tag] ?? []).filter { !$0.isEmpty }
        }
        return lines.joined(separator: "\n") + "\n\n"
    }
}

public struct ImportSummary: Sendable, Equatable {
    public var added = 0
    public var updated = 0
    public var skipped = 0
    public var failed = 0
    public var removed = 0
    /// Playlist files in the music folder came, went or changed.
    public var playlistsChanged = false
    /// One line per failure: "line 12: missing \"title\"", "a.mp3: not an MPEG audio file".
    public var problems: [String] = []

    public init() {}

    public var line: String {
        var parts = ["\(added) added", "\(updated) updated", "\(skipped) skipped", "\(failed) failed"]
        if removed > 0 { parts.append("\(removed) removed") }
        return parts.joined(separator: ", ")
    }
}
