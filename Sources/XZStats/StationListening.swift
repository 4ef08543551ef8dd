import Foundation
import GRDB
import XZCatalogue
import XZSystem

/// Time heard of one internet radio station (a stream URL outside the catalogue), over the sessions asked for.
package struct StationListening: Encodable, Sendable, Equatable {
    package var url: String
    /// The station's own name as last heard; empty when it never said one.
    package var name: String
    package var listenedMs: Int
    package var sessions: Int

    enum CodingKeys: String, CodingKey {
        case url, name, listenedMs = "listened_ms", sessions
    }
}

extension StatsStore {
    /// A new pass through the station at `url`; its row, for `updateStation`.
    package func beginStation(url: String, name: String, at date: Date = Date()) throws -> Int64 {
        try database.pool.write { db in
            let now = UTCTime.string(date)
            try db.execute(sql: """
                INSERT INTO station_session (url, name, started_at, updated_at) VALUES (?, ?, ?, ?)
                """, arguments: [url, name, now, now])
            return db.lastInsertedRowID
        }
    }

    /// The time heard so far of the pass `id`, and the station's name as last heard (kept when empty).
    package func updateStation(id: Int64, name: String, listenedMs: Int, at date: Date = Date()) throws {
        try database.pool.write { db in
            try db.execute(sql: """
                UPDATE station_session SET listened_ms = ?, updated_at = ?, name = CASE WHEN ? = '' THEN name ELSE ? END
                WHERE id = ?
                """, arguments: [max(0, listenedMs), UTCTime.string(date), name, name, id])
        }
    }

    /// The stations listened to since `since` (all when nil), longest heard first, at most `limit`.
    package func stations(since: Date? = nil, limit: Int = 10) throws -> [StationListening] {
        try database.pool.read { db in try Self.stations(db, from: since.map(UTCTime.string) ?? "", limit: limit) }
    }

    static func stations(_ db: Database, from: String, limit: Int) throws -> [StationListening] {
        try Row.fetchAll(db, sql: """
            SELECT url, (SELECT name FROM station_session last WHERE last.url = s.url AND last.name <> ''
                         ORDER BY last.id DESC LIMIT 1),
                   sum(listened_ms) AS heard, count(*), max(started_at) AS at
            FROM station_session s WHERE started_at >= ? GROUP BY url
            ORDER BY heard DESC, at DESC, url LIMIT ?
            """, arguments: [from, limit]).map {
            StationListening(url: $0[0], name: $0[1] ?? "", listenedMs: $0[2], sessions: $0[3])
        }
    }
}
