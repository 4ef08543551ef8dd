import Foundation
import GRDB
import XZCatalogue

/// The `stats` view. Through `stats --json` (which writes an unknown value as null) it encodes exactly as
/// `{"plays","listened_ms","songs","singers","top_songs","top_singers","per_day","liked","stations"}`;
/// `mostSkipped` and `skips` are for the terminal view and are not part of that JSON shape.
package struct StatsSummary: Encodable, Sendable, Equatable {
    /// Counted plays.
    package var plays: Int
    /// All audio heard, counted or not.
    package var listenedMs: Int
    /// Distinct songs and singers with a counted play.
    package var songs: Int
    package var singers: Int
    package var topSongs: [TopSong]
    package var topSingers: [TopSinger]
    package var mostSkipped: [SkippedSong]
    package var skips: Int
    /// The last 14 local days, oldest first, ending today; not limited by `since`.
    package var perDay: [DayPlays]
    /// Songs liked now (a state, so not limited by `since`).
    package var liked: Int
    /// Internet radio stations heard, longest first: never plays, so in none of the figures above.
    package var stations: [StationListening] = []

    enum CodingKeys: String, CodingKey {
        case plays, listenedMs = "listened_ms", songs, singers, topSongs = "top_songs"
        case topSingers = "top_singers", perDay = "per_day", liked, stations
    }
}

/// A song in the top list; `id` is its catalogue id, null when a rescan removed it.
package struct TopSong: Encodable, Sendable, Equatable {
    package var id: Int64?
    package var songKey: String
    package var title: String
    package var singer: String
    package var plays: Int

    package init(id: Int64?, songKey: String, title: String, singer: String, plays: Int) {
        self.id = id; self.songKey = songKey; self.title = title; self.singer = singer; self.plays = plays
    }

    enum CodingKeys: String, CodingKey { case id, title, singer, plays }
}

package struct TopSinger: Encodable, Sendable, Equatable {
    package var name: String
    package var plays: Int
    package init(name: String, plays: Int) { self.name = name; self.plays = plays }
}

package struct SkippedSong: Encodable, Sendable, Equatable {
    package var id: Int64?
    package var songKey: String
    package var title: String
    package var singer: String
    package var skips: Int
    package init(id: Int64?, songKey: String, title: String, singer: String, skips: Int) {
        self.id = id; self.songKey = songKey; self.title = title; self.singer = singer; self.skips = skips
    }
}

package struct DayPlays: Encodable, Sendable, Equatable {
    /// The local day, "2026-11-21".
    package var date: String
    package var plays: Int
    package init(date: String, plays: Int) { self.date = date; self.plays = plays }
}

extension StatsStore {
    /// Statistics over sessions started at or after `since` (all when nil). Days are those of
    /// `calendar`'s time zone. Songs are named as the catalogue names them now, or as last played
    /// when a rescan removed them; singers likewise.
    package func summary(since: Date? = nil, now: Date = Date(), calendar: Calendar = .current) throws -> StatsSummary {
        let from = since.map(UTCTime.string) ?? ""
        let days = Self.lastDays(14, now: now, calendar: calendar)
        return try database.pool.read { db in
            // The current singer when the song is still in the catalogue, else the snapshot.
            let named = """
                FROM play_session ps LEFT JOIN song ON song.song_key = ps.song_key
                LEFT JOIN singer ON singer.id = song.singer_id
                """
            let totals = try Row.fetchOne(db, sql: """
                SELECT count(*) FILTER (WHERE ps.counted = 1), coalesce(sum(ps.played_ms), 0),
                       count(DISTINCT ps.song_key) FILTER (WHERE ps.counted = 1),
                       count(DISTINCT coalesce(singer.name, ps.singer)) FILTER (WHERE ps.counted = 1),
                       count(*) FILTER (WHERE ps.skip = 1)
                \(named) WHERE ps.user_id = ? AND ps.started_at >= ?
                """, arguments: [user.rawValue, from])
            let topSingers = try Row.fetchAll(db, sql: """
                SELECT coalesce(singer.name, ps.singer) AS name, count(*) AS plays, max(ps.started_at) AS last
                \(named) WHERE ps.user_id = ? AND ps.counted = 1 AND ps.started_at >= ?
                GROUP BY name ORDER BY plays DESC, last DESC, name LIMIT 5
                """, arguments: [user.rawValue, from]).map { TopSinger(name: $0[0], plays: $0[1]) }
            let liked = try Int.fetchOne(db, sql: "SELECT count(*) FROM song_like WHERE user_id = ?",
                                         arguments: [user.rawValue]) ?? 0
            // Stations are heard only through the host's own player, which plays for the owner.
            let stations = try user.isOwner ? Self.stations(db, from: from, limit: 5) : []
            return StatsSummary(
                plays: totals?[0] ?? 0, listenedMs: totals?[1] ?? 0, songs: totals?[2] ?? 0,
                singers: totals?[3] ?? 0,
                topSongs: try Self.rankedSongs(db, user: user, flag: "counted", from: from, limit: 10).map {
                    TopSong(id: $0.id, songKey: $0.key, title: $0.title, singer: $0.singer, plays: $0.count)
                },
                topSingers: topSingers,
                mostSkipped: try Self.rankedSongs(db, user: user, flag: "skip", from: from, limit: 5).map {
                    SkippedSong(id: $0.id, songKey: $0.key, title: $0.title, singer: $0.singer, skips: $0.count)
                },
                skips: totals?[4] ?? 0,
                perDay: try Self.playsPerDay(db, user: user, days: days, now: now, calendar: calendar),
                liked: liked, stations: stations)
        }
    }

    /// Songs by how many of their sessions have `flag` (counted or skip) set; ties go to the most
    /// recently played, then by key, so the order is stable.
    static func rankedSongs(_ db: Database, user: UserID, flag: String, from: String, limit: Int) throws
        -> [(id: Int64?, key: String, title: String, singer: String, count: Int)] {
        try Row.fetchAll(db, sql: """
            SELECT t.song_key, song.id, coalesce(song.title, last.title), coalesce(singer.name, last.singer), t.n
            FROM (SELECT song_key, count(*) AS n, max(started_at) AS at, max(id) AS last_id FROM play_session
                  WHERE user_id = ? AND \(flag) = 1 AND started_at >= ? GROUP BY song_key
                  ORDER BY n DESC, at DESC, song_key LIMIT ?) t
            JOIN play_session last ON last.id = t.last_id
            LEFT JOIN song ON song.song_key = t.song_key LEFT JOIN singer ON singer.id = song.singer_id
            ORDER BY t.n DESC, t.at DESC, t.song_key
            """, arguments: [user.rawValue, from, limit]).map { ($0[1], $0[0], $0[2], $0[3], $0[4]) }
    }

    /// The `count` local days ending with the one `now` is in, oldest first.
    static func lastDays(_ count: Int, now: Date, calendar: Calendar) -> [(label: String, start: Date)] {
        let today = calendar.startOfDay(for: now)
        return (0..<count).reversed().compactMap { back in
            guard let start = calendar.date(byAdding: .day, value: -back, to: today) else { return nil }
            let c = calendar.dateComponents([.year, .month, .day], from: start)
            let label = String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
            return (label, start)
        }
    }

    /// Counted plays by the local day their session started. Only the window's rows are read, and
    /// bucketing happens here because SQLite knows no time zones.
    private static func playsPerDay(_ db: Database, user: UserID, days: [(label: String, start: Date)], now: Date,
                                    calendar: Calendar) throws -> [DayPlays] {
        guard let first = days.first else { return [] }
        let starts = try String.fetchAll(db, sql: """
            SELECT started_at FROM play_session WHERE user_id = ? AND counted = 1 AND started_at >= ? AND started_at <= ?
            """, arguments: [user.rawValue, UTCTime.string(first.start), UTCTime.string(now)])
        var counts: [String: Int] = [:]
        for text in starts {
            let c = calendar.dateComponents([.year, .month, .day], from: try UTCTime.date(text))
            counts[String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0), default: 0] += 1
        }
        return days.map { DayPlays(date: $0.label, plays: counts[$0.label] ?? 0) }
    }
}
