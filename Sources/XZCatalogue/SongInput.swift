import Foundation


/// One song's tags and files: what an importer gives the catalogue, and a `Song`'s fields read back.
package struct SongInput: Sendable, Equatable {
    package var key: String
    package var title: String
    package var singer: String
    package var album: String?
    package var track: Int?
    package var year: Int?
    package var durationMs: Int?
    package var audioURL: String = ""
    package var lyricsURL: String = ""
    /// nil keeps what the library already has, so a feed re-import never forgets a finished download.
    package var localPath: String?
    /// nil: as `localPath`.
    package var lyricsPath: String?
    package var size: Int64?
    package var sha256: String = ""
    package var fileMtime: Int64?
    /// Every artist when the tag names several (`singer` then joins them for display); empty: `singer` alone.
    package var artists: [String] = []
    package var albumArtist: String?
    package var genres: [String] = []
    package var disc: Int?
    /// The full recording date when known ("2008-05-01"); `year` alone otherwise.
    package var date: String?
    package var sampleRate: Int?
    package var channels: Int?
    /// The sample field of MPD's Format line ("16", "24", "f"); nil: not a file, or 16-bit.
    package var sampleFormat: String?
    /// The tags without a field of their own (Composer, Performer, the sort tags, MusicBrainz ids ...).
    package var moreTags: [SongTag: [String]] = [:]
    /// Which of `title` and `singer` the importer made up (a file's name, "Unknown") for want of a tag.
    package var untagged: UntaggedFields = []
    /// A CUE sheet's track: the part of an image it is; nil for a whole file.
    package var cuePart: CuePart?
    /// The file carries a CUE sheet in its tags: MPD lists it as a playlist too.
    package var hasCueSheet = false
    /// A CUE track's tags as its sheet gives them, in order (Track as written): listed first, as MPD lists them.
    package var cueTags: [TagEntry] = []
    /// A CUE track's image's length, which MPD's `stats` and `count … group` count for the track.
    package var cueImageMs: Int?

    package init(key: String, title: String, singer: String) {
        self.key = key
        self.title = title
        self.singer = singer
    }
}

/// Where a CUE sheet's track is in its image: the image's path and the bounds in CD frames (75 a second).
package struct CuePart: Sendable, Equatable {
    package var file: String
    package var startFrame: Int
    /// nil: the image's end.
    package var endFrame: Int?

    package init(file: String, startFrame: Int, endFrame: Int?) {
        self.file = file
        self.startFrame = startFrame
        self.endFrame = endFrame
    }
}

extension SongInput {
    /// Separates several values of one tag in a column (tag text never holds control characters).
    package static let valueSeparator = "\u{1F}"

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

package struct ImportSummary: Sendable, Equatable {
    package var added = 0
    package var updated = 0
    package var skipped = 0
    package var failed = 0
    package var removed = 0
    /// Playlist files in the music folder came, went or changed.
    package var playlistsChanged = false
    /// One line per failure: "line 12: missing \"title\"", "a.mp3: not an MPEG audio file".
    package var problems: [String] = []

    package init() {}

    package var line: String {
        var parts = ["\(added) added", "\(updated) updated", "\(skipped) skipped", "\(failed) failed"]
        if removed > 0 { parts.append("\(removed) removed") }
        return parts.joined(separator: ", ")
    }
}
