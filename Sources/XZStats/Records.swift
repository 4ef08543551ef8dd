import Foundation
import XZSystem

/// Stored times are UTC ISO 8601 to the second ("2026-11-21T18:03:00Z"), like song.added_at, so
/// they sort as text and an export round-trips them exactly.
enum UTCTime {
    static func string(_ date: Date) -> String {
        UTCStamp.string(date)
    }

    static func date(_ text: String) throws -> Date {
        guard let date = UTCStamp.date(text) else { throw StatsError.badArchive("not a UTC time: \(text)") }
        return date
    }

    /// Whole seconds, so a record read back from the database equals the one written.
    static func truncated(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}

/// A liked song. `songId` is its catalogue id now, nil when a rescan removed it; title and singer
/// are the catalogue's when the song is still there, else the snapshot taken when it was liked.
package struct LikedSong: Codable, Sendable, Equatable {
    package var songKey: String
    package var songId: Int64?
    package var title: String
    package var singer: String
    package var likedAt: Date

    package init(songKey: String, songId: Int64?, title: String, singer: String, likedAt: Date) {
        self.songKey = songKey; self.songId = songId; self.title = title; self.singer = singer
        self.likedAt = likedAt
    }

    enum CodingKeys: String, CodingKey {
        case songKey = "song_key", songId = "song_id", title, singer, likedAt = "liked_at"
    }

    package init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        songKey = try c.decode(String.self, forKey: .songKey)
        songId = try c.decodeIfPresent(Int64.self, forKey: .songId)
        title = try c.decode(String.self, forKey: .title)
        singer = try c.decode(String.self, forKey: .singer)
        likedAt = try UTCTime.date(c.decode(String.self, forKey: .likedAt))
    }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(songKey, forKey: .songKey)
        try c.encode(songId, forKey: .songId)
        try c.encode(title, forKey: .title)
        try c.encode(singer, forKey: .singer)
        try c.encode(UTCTime.string(likedAt), forKey: .likedAt)
    }
}

/// One pass through a track. `endReason` is nil while it plays, or when the program died during it
/// (the row then holds its last checkpoint).
package struct PlaySessionRecord: Codable, Sendable, Equatable {
    package var id: Int64
    package var songKey: String
    /// The catalogue id now; nil when the song is no longer in the catalogue.
    package var songId: Int64?
    package var title: String
    package var singer: String
    package var startedAt: Date
    /// Audio actually heard: pauses and seek jumps excluded.
    package var playedMs: Int
    /// Where playback was when the session ended, or at its last checkpoint.
    package var positionMs: Int
    package var durationMs: Int?
    package var endReason: PlayEndReason?
    package var counted: Bool
    package var countedAt: Date?
    package var skip: Bool

    package init(id: Int64, songKey: String, songId: Int64?, title: String, singer: String, startedAt: Date,
                playedMs: Int, positionMs: Int, durationMs: Int?, endReason: PlayEndReason?, counted: Bool,
                countedAt: Date?, skip: Bool) {
        self.id = id; self.songKey = songKey; self.songId = songId; self.title = title; self.singer = singer
        self.startedAt = startedAt; self.playedMs = playedMs; self.positionMs = positionMs
        self.durationMs = durationMs; self.endReason = endReason; self.counted = counted
        self.countedAt = countedAt; self.skip = skip
    }

    enum CodingKeys: String, CodingKey {
        case id, songKey = "song_key", songId = "song_id", title, singer, startedAt = "started_at"
        case playedMs = "played_ms", positionMs = "position_ms", durationMs = "duration_ms"
        case endReason = "end_reason", counted, countedAt = "counted_at", skip
    }

    package init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int64.self, forKey: .id)
        songKey = try c.decode(String.self, forKey: .songKey)
        songId = try c.decodeIfPresent(Int64.self, forKey: .songId)
        title = try c.decode(String.self, forKey: .title)
        singer = try c.decode(String.self, forKey: .singer)
        startedAt = try UTCTime.date(c.decode(String.self, forKey: .startedAt))
        playedMs = try c.decode(Int.self, forKey: .playedMs)
        positionMs = try c.decode(Int.self, forKey: .positionMs)
        durationMs = try c.decodeIfPresent(Int.self, forKey: .durationMs)
        endReason = try c.decodeIfPresent(PlayEndReason.self, forKey: .endReason)
        counted = try c.decode(Bool.self, forKey: .counted)
        countedAt = try c.decodeIfPresent(String.self, forKey: .countedAt).map(UTCTime.date)
        skip = try c.decode(Bool.self, forKey: .skip)
    }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(songKey, forKey: .songKey)
        try c.encode(songId, forKey: .songId)
        try c.encode(title, forKey: .title)
        try c.encode(singer, forKey: .singer)
        try c.encode(UTCTime.string(startedAt), forKey: .startedAt)
        try c.encode(playedMs, forKey: .playedMs)
        try c.encode(positionMs, forKey: .positionMs)
        try c.encode(durationMs, forKey: .durationMs)
        try c.encode(endReason, forKey: .endReason)
        try c.encode(counted, forKey: .counted)
        try c.encode(countedAt.map(UTCTime.string), forKey: .countedAt)
        try c.encode(skip, forKey: .skip)
    }
}
