import Foundation
import GRDB

/// A song as the commands see it, with its singer's name and album title joined in.
package struct Song: Codable, FetchableRecord, Sendable, Equatable, Identifiable {
    package var id: Int64
    package var songKey: String
    package var title: String
    package var singerId: Int64
    package var singer: String
    package var album: String?
    package var track: Int?
    package var year: Int?
    package var durationMs: Int?
    package var audioURL: String
    package var lyricsURL: String
    package var localPath: String
    package var lyricsPath: String
    package var size: Int64?
    package var sha256: String
    package var addedAt: String
    /// Tags MPD clients browse by (not in the JSON form, which keeps its keys).
    package var artists: [String] = []
    package var albumArtist: String?
    package var genres: [String] = []
    package var disc: Int?
    /// The full date as tagged, else the year.
    package var date: String?
    package var sampleRate: Int?
    package var channels: Int?
    /// The sample field of MPD's Format line: "16", "24", "32", "f" (float); nil where unknown.
    package var sampleFormat: String?
    package var fileMtime: Int64?
    /// The tags without a field of their own (Composer, Performer, the sort tags, MusicBrainz ids ...).
    package var moreTags: [SongTag: [String]] = [:]
    /// Which of `title` and `singer` are names the scan made up for want of a tag: the prompt shows them,
    /// MPD's records leave them out.
    package var untagged: UntaggedFields = []
    /// A CUE sheet's track: the part of its image it is; nil for a whole file.
    package var cuePart: CuePart?
    /// The file carries a CUE sheet in its tags: MPD lists it as a playlist too.
    package var hasCueSheet = false
    /// A CUE track's tags as its sheet gives them, in order: its record lists them first, as MPD's.
    package var cueTags: [TagEntry] = []
    /// A CUE track's image's length, which MPD's `stats` and `count … group` count for the track.
    package var cueImageMs: Int?

    /// Playable without the network.
    package var isLocal: Bool { !localPath.isEmpty }

    enum CodingKeys: String, CodingKey {
        case id, title, singer, album, track, year, size, sha256
        case songKey = "song_key", singerId = "singer_id", durationMs = "duration_ms"
        case audioURL = "audio_url", lyricsURL = "lyrics_url", localPath = "local_path"
        case lyricsPath = "lyrics_path", addedAt = "added_at"
    }

    /// Every key is written; what the catalogue does not know (nil, or empty text) is null.
    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        func text(_ value: String, _ key: CodingKeys) throws {
            try container.encode(value.isEmpty ? nil : value, forKey: key)
        }
        try container.encode(id, forKey: .id)
        try container.encode(songKey, forKey: .songKey)
        try container.encode(title, forKey: .title)
        try container.encode(singerId, forKey: .singerId)
        try container.encode(singer, forKey: .singer)
        try container.encode(album, forKey: .album)
        try container.encode(track, forKey: .track)
        try container.encode(year, forKey: .year)
        try container.encode(durationMs, forKey: .durationMs)
        try text(audioURL, .audioURL)
        try text(lyricsURL, .lyricsURL)
        try text(localPath, .localPath)
        try text(lyricsPath, .lyricsPath)
        try container.encode(size, forKey: .size)
        try text(sha256, .sha256)
        try container.encode(addedAt, forKey: .addedAt)
    }

    /// A song known only by its tags (a stream, a file outside the catalogue), for filters.
    package init(title: String, singer: String, album: String?, track: Int?, year: Int?, durationMs: Int?,
                localPath: String) {
        id = 0
        songKey = ""
        self.title = title
        singerId = 0
        self.singer = singer
        self.album = album
        self.track = track
        self.year = year
        self.durationMs = durationMs
        audioURL = ""
        lyricsURL = ""
        self.localPath = localPath
        lyricsPath = ""
        sha256 = ""
        addedAt = ""
        artists = singer.isEmpty ? [] : [singer]
        date = year.map(String.init)
    }

    /// Reads the columns of `selection` by position, in that order; faster than the Decodable path.
    package init(row: Row) {
        id = row[0]
        songKey = row[1]
        title = row[2]
        singerId = row[3]
        singer = row[4]
        album = row[5]
        track = row[6]
        year = row[7]
        durationMs = row[8]
        audioURL = row[9]
        lyricsURL = row[10]
        localPath = row[11]
        lyricsPath = row[12]
        size = row[13]
        sha256 = row[14]
        addedAt = row[15]
        let artistsText: String = row[16]
        artists = artistsText.isEmpty ? [singer] : Self.values(artistsText)
        let albumArtistText: String = row[17]
        albumArtist = albumArtistText.isEmpty ? nil : albumArtistText
        let genreText: String = row[18]
        genres = genreText.isEmpty ? [] : Self.values(genreText)
        disc = row[19]
        let dateText: String = row[20]
        date = dateText.isEmpty ? year.map(String.init) : dateText
        sampleRate = row[21]
        channels = row[22]
        fileMtime = row[23]
        let sampleFormatText: String = row[24]
        sampleFormat = sampleFormatText.isEmpty ? (sampleRate == nil ? nil : "16") : sampleFormatText
        moreTags = MoreTagsColumn.decode(row[25])
        untagged = UntaggedFields(rawValue: row[26])
        let cueFile: String = row[27]
        if !cueFile.isEmpty, let start: Int = row[28] { cuePart = CuePart(file: cueFile, startFrame: start, endFrame: row[29]) }
        hasCueSheet = (row[30] as Int) != 0
        cueTags = MoreTagsColumn.decode(ordered: row[31])
        cueImageMs = row[32]
    }

    /// A column holding several values, separated by U+001F.
    private static func values(_ text: String) -> [String] {
        text.utf8.split(separator: 0x1F, omittingEmptySubsequences: false).map { String(Substring($0)) }
    }

    /// Columns for `Song`, in the order `init(row:)` reads them; join `singer` and `album` in the
    /// FROM clause.
    static let selection = """
        song.id, song.song_key, song.title, song.singer_id, singer.name AS singer, album.title AS album,
        song.track, song.year, song.duration_ms, song.audio_url, song.lyrics_url, song.local_path,
        song.lyrics_path, song.size, song.sha256, song.added_at, song.artists, song.album_artist, song.genre,
        song.disc, song.date, song.sample_rate, song.channels, song.file_mtime,
        song.sample_format, song.more_tags, song.untagged, song.cue_file, song.cue_start, song.cue_end, song.has_cue_sheet,
        song.cue_tags, song.cue_image_ms
        """
    static let joins = "JOIN singer ON singer.id = song.singer_id LEFT JOIN album ON album.id = song.album_id"
}

/// The names a song has that its file's tags do not give (`song.untagged`, schema.sql v16-untagged-fields).
package struct UntaggedFields: OptionSet, Sendable, Hashable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }
    /// The title is the file's name.
    package static let title = UntaggedFields(rawValue: 1)
    /// The singer is a stand-in ("Unknown"): the song has no Artist.
    package static let artist = UntaggedFields(rawValue: 2)
}

package struct Singer: Codable, FetchableRecord, Sendable, Equatable, Identifiable {
    package var id: Int64
    package var name: String
    package var firstLetter: String
    package var songCount: Int

    enum CodingKeys: String, CodingKey {
        case id, name
        case firstLetter = "first_letter", songCount = "song_count"
    }
}
