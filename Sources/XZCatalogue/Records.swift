import Foundation
import GRDB

/// A song as the catalogue keeps it: its `SongInput` fields (`song.title`) with its row ids and added time.
package struct Song: Encodable, FetchableRecord, Sendable, Equatable, Identifiable {
    package var id: Int64
    package var singerId: Int64
    package var addedAt: String
    /// Its tags and files. Read from the catalogue, `artists` is never empty (the singer alone), `date`
    /// falls back to the year and a file's `sampleFormat` to "16"; both paths are set ('' where none).
    package var fields: SongInput

    // The input's fields, each written out: a key path subscript copies the whole input through its value
    // witness on every read, which a listing of every song pays for each field.
    @inlinable package var title: String { get { fields.title } set { fields.title = newValue } }
    @inlinable package var singer: String { get { fields.singer } set { fields.singer = newValue } }
    @inlinable package var album: String? { get { fields.album } set { fields.album = newValue } }
    @inlinable package var track: Int? { get { fields.track } set { fields.track = newValue } }
    @inlinable package var year: Int? { get { fields.year } set { fields.year = newValue } }
    @inlinable package var durationMs: Int? { get { fields.durationMs } set { fields.durationMs = newValue } }
    @inlinable package var audioURL: String { get { fields.audioURL } set { fields.audioURL = newValue } }
    @inlinable package var lyricsURL: String { get { fields.lyricsURL } set { fields.lyricsURL = newValue } }
    @inlinable package var size: Int64? { get { fields.size } set { fields.size = newValue } }
    @inlinable package var sha256: String { get { fields.sha256 } set { fields.sha256 = newValue } }
    @inlinable package var fileMtime: Int64? { get { fields.fileMtime } set { fields.fileMtime = newValue } }
    @inlinable package var artists: [String] { get { fields.artists } set { fields.artists = newValue } }
    @inlinable package var albumArtist: String? { get { fields.albumArtist } set { fields.albumArtist = newValue } }
    @inlinable package var genres: [String] { get { fields.genres } set { fields.genres = newValue } }
    @inlinable package var disc: Int? { get { fields.disc } set { fields.disc = newValue } }
    @inlinable package var date: String? { get { fields.date } set { fields.date = newValue } }
    @inlinable package var sampleRate: Int? { get { fields.sampleRate } set { fields.sampleRate = newValue } }
    @inlinable package var channels: Int? { get { fields.channels } set { fields.channels = newValue } }
    @inlinable package var sampleFormat: String? { get { fields.sampleFormat } set { fields.sampleFormat = newValue } }
    @inlinable package var moreTags: [SongTag: [String]] { get { fields.moreTags } set { fields.moreTags = newValue } }
    @inlinable package var untagged: UntaggedFields { get { fields.untagged } set { fields.untagged = newValue } }
    @inlinable package var cuePart: CuePart? { get { fields.cuePart } set { fields.cuePart = newValue } }
    @inlinable package var hasCueSheet: Bool { get { fields.hasCueSheet } set { fields.hasCueSheet = newValue } }
    @inlinable package var cueTags: [TagEntry] { get { fields.cueTags } set { fields.cueTags = newValue } }
    @inlinable package var cueImageMs: Int? { get { fields.cueImageMs } set { fields.cueImageMs = newValue } }

    @inlinable
    package var songKey: String {
        get { fields.key }
        set { fields.key = newValue }
    }

    @inlinable
    package var localPath: String {
        get { fields.localPath ?? "" }
        set { fields.localPath = newValue }
    }

    @inlinable
    package var lyricsPath: String {
        get { fields.lyricsPath ?? "" }
        set { fields.lyricsPath = newValue }
    }

    /// Playable without the network.
    package var isLocal: Bool { !localPath.isEmpty }

    /// The file its audio is read from: a CUE track's image, else its own file ('' for a stream).
    package var audioFile: String { cuePart?.file ?? localPath }

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
        try container.encode(fields.title, forKey: .title)
        try container.encode(singerId, forKey: .singerId)
        try container.encode(fields.singer, forKey: .singer)
        try container.encode(fields.album, forKey: .album)
        try container.encode(fields.track, forKey: .track)
        try container.encode(fields.year, forKey: .year)
        try container.encode(fields.durationMs, forKey: .durationMs)
        try text(fields.audioURL, .audioURL)
        try text(fields.lyricsURL, .lyricsURL)
        try text(localPath, .localPath)
        try text(lyricsPath, .lyricsPath)
        try container.encode(fields.size, forKey: .size)
        try text(fields.sha256, .sha256)
        try container.encode(addedAt, forKey: .addedAt)
    }

    init(id: Int64, singerId: Int64, addedAt: String, fields: SongInput) {
        self.id = id
        self.singerId = singerId
        self.addedAt = addedAt
        self.fields = fields
    }

    /// A song known only by its tags (a stream, a file outside the catalogue), for filters.
    package init(title: String, singer: String, album: String?, track: Int?, year: Int?, durationMs: Int?,
                localPath: String) {
        var fields = SongInput(key: "", title: title, singer: singer)
        fields.album = album
        fields.track = track
        fields.year = year
        fields.durationMs = durationMs
        fields.localPath = localPath
        fields.artists = singer.isEmpty ? [] : [singer]
        fields.date = year.map(String.init)
        self.init(id: 0, singerId: 0, addedAt: "", fields: fields)
    }

    /// Reads the columns of `selection`, each at its place there.
    package init(row: Row) {
        self.init(id: 0, singerId: 0, addedAt: "", fields: SongInput(key: "", title: "", singer: ""))
        for (index, read) in Self.reads.enumerated() { read(&self, row, index) }
        if fields.artists.isEmpty { fields.artists = [fields.singer] }
        if fields.date == nil { fields.date = fields.year.map(String.init) }
        if fields.sampleFormat == nil, fields.sampleRate != nil { fields.sampleFormat = "16" }
    }

    /// What `Song` reads besides the fields of `song`: its row id, and the names the joins give.
    private static let joined: [(sql: String, read: SongField.Read)] = [
        ("song.id", { $0.id = $1[$2] }),
        ("singer.name AS singer", { $0.fields.singer = $1[$2] }),
        ("album.title AS album", { $0.fields.album = $1[$2] }),
    ]
    private static let readFields = SongField.all.filter { $0.read != nil }
    private static let reads = joined.map { $0.read } + readFields.compactMap(\.read)

    /// The columns `init(row:)` reads, first in a statement's result; join `singer` and `album` in the
    /// FROM clause.
    static let selection = (joined.map { $0.sql } + readFields.map { "song.\($0.column)" }).joined(separator: ", ")
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

/// A singer with the first letter it is filed under and its number of songs, as the singer lookups read it.
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
