import Foundation
import GRDB
import XZCatalogue
import XZSystem

/// One user's likes, play history and statistics over the library database. Everything is keyed by
/// song_key, so it outlives re-imports and rescans that drop a song. Every write is one short transaction.
/// The terminal, one-shot commands and MPD clients act as the owner.
package struct StatsStore: Sendable {
    package let database: LibraryDatabase
    package let user: UserID

    package init(database: LibraryDatabase, user: UserID = .owner) {
        self.database = database
        self.user = user
    }

    // MARK: Likes

    /// Likes a catalogue song; liking it again keeps the first time. Returns false when it already was.
    /// `fallbackTitle`/`fallbackSinger` name a song neither the catalogue nor the history knows.
    @discardableResult
    package func like(songKey: String, at date: Date = Date(), fallbackTitle: String? = nil,
                     fallbackSinger: String = "") throws -> Bool {
        try database.pool.write { db in
            // A song a rescan removed can still be liked from its history.
            let row = try Row.fetchOne(db, sql: """
                SELECT song.title, singer.name FROM song JOIN singer ON singer.id = song.singer_id
                WHERE song.song_key = ?
                """, arguments: [songKey])
                ?? Row.fetchOne(db, sql: "SELECT title, singer FROM play_session WHERE song_key = ? ORDER BY id DESC LIMIT 1",
                                arguments: [songKey])
            let names: (title: String, singer: String)
            if let row {
                names = (row[0], row[1])
            } else if let fallbackTitle {
                names = (fallbackTitle, fallbackSinger)
            } else {
                throw StatsError.noSuchSong("no song with key \(songKey)")
            }
            try db.execute(sql: """
                INSERT INTO song_like (user_id, song_key, title, singer, liked_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (user_id, song_key) DO NOTHING
                """, arguments: [user.rawValue, songKey, names.title, names.singer, UTCTime.string(date)])
            return db.changesCount > 0
        }
    }

    /// Returns false when the song was not liked.
    @discardableResult
    package func unlike(songKey: String) throws -> Bool {
        try database.pool.write { db in
            try db.execute(sql: "DELETE FROM song_like WHERE user_id = ? AND song_key = ?",
                           arguments: [user.rawValue, songKey])
            return db.changesCount > 0
        }
    }

    package func isLiked(songKey: String) throws -> Bool {
        try database.pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM song_like WHERE user_id = ? AND song_key = ?",
                              arguments: [user.rawValue, songKey]) ?? false
        }
    }

    /// Liked songs, newest first, named as the catalogue names them now.
    package func liked() throws -> [LikedSong] {
        try database.pool.read { db in try Self.likes(db, user: user, current: true) }
    }

    /// When each of `songKeys` the user likes was liked; songs not liked are absent.
    package func likedAt(songKeys: [String]) throws -> [String: Date] {
        try valuesByKey(songKeys) { db, keys in
            try Row.fetchAll(db, sql: "SELECT song_key, liked_at FROM song_like WHERE user_id = ? AND song_key IN \(Self.keyList)",
                             arguments: [user.rawValue, keys]).map { ($0[0], try UTCTime.date($0[1])) }
        }
    }

    /// Liked songs still in the catalogue and not yet offline, newest like first: what `download --all-liked` queues.
    package func likedSongsNotOffline() throws -> [Song] {
        try database.songs(ids: liked().compactMap(\.songId)).filter { !$0.isLocal }
    }

    /// `current` names songs as the catalogue does now; otherwise as stored (for export).
    static func likes(_ db: Database, user: UserID, current: Bool) throws -> [LikedSong] {
        let names = current ? "coalesce(song.title, l.title), coalesce(singer.name, l.singer)" : "l.title, l.singer"
        return try Row.fetchAll(db, sql: """
            SELECT l.song_key, song.id, \(names), l.liked_at FROM song_like l
            LEFT JOIN song ON song.song_key = l.song_key LEFT JOIN singer ON singer.id = song.singer_id
            WHERE l.user_id = ? ORDER BY l.liked_at DESC, l.rowid DESC
            """, arguments: [user.rawValue]).map { row in
            LikedSong(songKey: row[0], songId: row[1], title: row[2], singer: row[3],
                      likedAt: try UTCTime.date(row[4]))
        }
    }

    // MARK: Sessions

    /// The last `limit` sessions, newest first, with their song as it was played (the snapshot).
    package func history(limit: Int) throws -> [PlaySessionRecord] {
        try database.pool.read { db in try Self.sessions(db, user: user, limit: max(0, limit)) }
    }

    /// Counted plays of one song, across re-imports.
    package func plays(songKey: String) throws -> Int {
        try database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM play_session WHERE user_id = ? AND song_key = ? AND counted = 1",
                             arguments: [user.rawValue, songKey]) ?? 0
        }
    }

    /// Counted plays of each of `songKeys`; songs never played are absent.
    package func playCounts(songKeys: [String]) throws -> [String: Int] {
        try valuesByKey(songKeys) { db, keys in
            try Row.fetchAll(db, sql: """
                SELECT song_key, count(*) FROM play_session WHERE user_id = ? AND counted = 1 AND song_key IN \(Self.keyList)
                GROUP BY song_key
                """, arguments: [user.rawValue, keys]).map { ($0[0], $0[1]) }
        }
    }

    /// When each of `songKeys` last started a counted play (MPD's `lastplayed`); songs never played are absent.
    package func lastPlayed(songKeys: [String]) throws -> [String: Date] {
        try valuesByKey(songKeys) { db, keys in
            try Row.fetchAll(db, sql: """
                SELECT song_key, max(started_at) FROM play_session WHERE user_id = ? AND counted = 1 AND song_key IN \(Self.keyList)
                GROUP BY song_key
                """, arguments: [user.rawValue, keys]).map { ($0[0], try UTCTime.date($0[1])) }
        }
    }

    /// The user's most played songs, most first; ties go to the most recently played.
    package func mostPlayed(limit: Int) throws -> [TopSong] {
        try database.pool.read { db in
            try Self.rankedSongs(db, user: user, flag: "counted", from: "", limit: max(0, limit)).map {
                TopSong(id: $0.id, songKey: $0.key, title: $0.title, singer: $0.singer, plays: $0.count)
            }
        }
    }

    /// A play heard elsewhere (a Subsonic client's scrobble): one finished, counted session started at
    /// `date`, which counts in plays and history as one played here does. Returns its session id.
    @discardableResult
    package func recordPlay(songKey: String, title: String, singer: String, durationMs: Int?,
                            at date: Date = Date()) throws -> Int64 {
        let at = UTCTime.string(date)
        let duration = durationMs.map { max(0, $0) }
        let heard = duration ?? 0
        return try database.pool.write { db in
            try db.execute(sql: """
                INSERT INTO play_session (user_id, song_key, title, singer, started_at, updated_at, played_ms,
                    position_ms, duration_ms, end_reason, counted, counted_at, skip)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'completed', 1, ?, 0)
                """, arguments: [user.rawValue, songKey, title, singer, at, at, heard, heard, duration, at])
            return db.lastInsertedRowID
        }
    }

    /// The keys bound as one argument (`keys` of `valuesByKey`), as the catalogue binds a list of any length.
    private static let keyList = "(SELECT value FROM json_each(?))"

    /// Reads the pairs `read` finds for `keys`, bound in one statement as `keyList`'s JSON array.
    private func valuesByKey<Value>(_ keys: [String],
                                    _ read: (Database, String) throws -> [(String, Value)]) throws -> [String: Value] {
        guard !keys.isEmpty else { return [:] }
        return try database.pool.read { db in
            Dictionary(try read(db, LibraryDatabase.jsonArray(keys))) { first, _ in first }
        }
    }

    static func sessions(_ db: Database, user: UserID, limit: Int?) throws -> [PlaySessionRecord] {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT ps.id, ps.song_key, song.id, ps.title, ps.singer, ps.started_at, ps.played_ms, ps.position_ms,
                   ps.duration_ms, ps.end_reason, ps.counted, ps.counted_at, ps.skip
            FROM play_session ps LEFT JOIN song ON song.song_key = ps.song_key
            WHERE ps.user_id = ? ORDER BY ps.started_at DESC, ps.id DESC LIMIT ?
            """, arguments: [user.rawValue, limit ?? -1])
        var result: [PlaySessionRecord] = []
        while let row = try rows.next() {
            let reason: String? = row[9]
            let countedAt: String? = row[11]
            result.append(PlaySessionRecord(
                id: row[0], songKey: row[1], songId: row[2], title: row[3], singer: row[4],
                startedAt: try UTCTime.date(row[5]), playedMs: row[6], positionMs: row[7], durationMs: row[8],
                endReason: reason.flatMap(PlayEndReason.init(rawValue:)), counted: row[10],
                countedAt: try countedAt.map(UTCTime.date), skip: row[12]))
        }
        return result
    }

    // MARK: Export

    /// Every session and like of the user as stored, oldest first, as a data file reads best.
    package func archive() throws -> StatsArchive {
        try database.pool.read { db in
            StatsArchive(sessions: try Self.sessions(db, user: user, limit: nil).reversed(),
                         likes: try Self.likes(db, user: user, current: false).reversed())
        }
    }

    /// Writes the archive to `url` through a temporary file beside it, renamed into place, so a
    /// failed export never leaves half a file; errors carry the system's reason.
    package func export(format: StatsArchive.Format, to url: URL) throws {
        let data = try exportData(format: format)
        do {
            try AtomicFile.write(data, toPath: url.path)
        } catch {
            throw StatsError.io(error.description)
        }
    }

    /// The archive's bytes, for writing to standard output.
    package func exportData(format: StatsArchive.Format) throws -> Data {
        try archive().encoded(as: format)
    }

    // MARK: --since

    /// "7d" (the last 7 × 24 hours; any whole number of days) or "2026-11-01" (from the start of that
    /// day in `calendar`'s time zone).
    package static func parseSince(_ text: String, now: Date = Date(), calendar: Calendar = .current) throws -> Date {
        let text = text.trimmingCharacters(in: .whitespaces)
        let usage = StatsError.badSince("--since takes a number of days (7d, 30d) or a date (2026-11-01), not \"\(text)\"")
        if text.hasSuffix("d"), let days = Int(text.dropLast()), days > 0, days <= 100_000 {
            return now.addingTimeInterval(-Double(days) * 86_400)
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { throw usage }
        var components = DateComponents(year: year, month: month, day: day)
        components.timeZone = calendar.timeZone
        // Calendar rolls 2026-02-30 over to March; a date that does not read back was not a date.
        guard let date = calendar.date(from: components) else { throw usage }
        let back = calendar.dateComponents([.year, .month, .day], from: date)
        guard back.year == year, back.month == month, back.day == day else { throw usage }
        return date
    }
}
