import Foundation
import GRDB
import XZCatalogue
import XZStats
import XZSystem

/// A user's saved play queue (Subsonic's savePlayQueue): songs in order by song_key, which outlives a
/// rescan, the current one and where in it.
package struct SavedPlayQueue: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        package var songKey: String
        /// The catalogue's song now; nil when a rescan removed it.
        package var songId: Int64?

        package init(songKey: String, songId: Int64? = nil) {
            self.songKey = songKey
            self.songId = songId
        }
    }

    package var entries: [Entry]
    /// Index into `entries`; nil: none.
    package var currentIndex: Int?
    package var positionMs: Int64
    package var changedAt: Date
    /// The client that saved it.
    package var changedBy: String

    package init(entries: [Entry], currentIndex: Int?, positionMs: Int64, changedAt: Date = Date(), changedBy: String) {
        self.entries = entries
        self.currentIndex = currentIndex
        self.positionMs = positionMs
        self.changedAt = changedAt
        self.changedBy = changedBy
    }
}

package struct UserPlayQueues: Sendable {
    /// The longest client name kept.
    package static let maxClientName = 256

    package let database: LibraryDatabase
    package let user: UserID

    package init(database: LibraryDatabase, user: UserID) {
        self.database = database
        self.user = user
    }

    /// Replaces the user's queue in one transaction. More than `maxLength` songs, a current index outside
    /// them or a negative position: `refused`, nothing changed. An empty queue removes the saved one.
    package func save(_ queue: SavedPlayQueue, maxLength: Int) throws {
        guard queue.entries.count <= max(0, maxLength) else {
            throw UserDataError.refused("a play queue holds at most \(maxLength) songs, not \(queue.entries.count)")
        }
        if let index = queue.currentIndex, !queue.entries.indices.contains(index) {
            throw UserDataError.refused("the current song is not in the queue")
        }
        guard queue.positionMs >= 0 else { throw UserDataError.refused("a position is 0 or more, not \(queue.positionMs)") }
        let client = String(queue.changedBy.unicodeScalars.filter { $0.properties.generalCategory != .control }
            .prefix(Self.maxClientName).map(Character.init))
        try database.pool.write { db in
            try db.execute(sql: "DELETE FROM user_play_queue_entry WHERE user_id = ?", arguments: [user.rawValue])
            try db.execute(sql: "DELETE FROM user_play_queue WHERE user_id = ?", arguments: [user.rawValue])
            guard !queue.entries.isEmpty else { return }
            try db.execute(sql: """
                INSERT INTO user_play_queue (user_id, current_position, position_ms, changed_at, changed_by) VALUES (?, ?, ?, ?, ?)
                """, arguments: [user.rawValue, queue.currentIndex, queue.positionMs, UTCStamp.string(queue.changedAt), client])
            let insert = try db.makeStatement(sql: "INSERT INTO user_play_queue_entry (user_id, position, song_key) VALUES (?, ?, ?)")
            for (position, entry) in queue.entries.enumerated() {
                try insert.execute(arguments: [user.rawValue, position, entry.songKey])
            }
        }
    }

    /// The user's saved queue with each song's catalogue id now, or nil when none was saved.
    package func load() throws -> SavedPlayQueue? {
        try database.pool.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT current_position, position_ms, changed_at, changed_by FROM user_play_queue WHERE user_id = ?
                """, arguments: [user.rawValue]) else { return nil }
            let entries = try Row.fetchAll(db, sql: """
                SELECT e.song_key, song.id FROM user_play_queue_entry e LEFT JOIN song ON song.song_key = e.song_key
                WHERE e.user_id = ? ORDER BY e.position
                """, arguments: [user.rawValue]).map { SavedPlayQueue.Entry(songKey: $0[0], songId: $0[1]) }
            let changed: String = row[2]
            return SavedPlayQueue(entries: entries, currentIndex: row[0], positionMs: row[1],
                                  changedAt: UTCStamp.date(changed) ?? Date(timeIntervalSince1970: 0), changedBy: row[3])
        }
    }
}
