import Foundation
import GRDB
import XZCatalogue
import XZStats
import XZSystem

/// A place in a song a user keeps (Subsonic's bookmarks), one per user and song.
package struct Bookmark: Sendable, Equatable {
    package var songKey: String
    /// The catalogue's song now; nil when a rescan removed it.
    package var songId: Int64?
    package var positionMs: Int64
    package var comment: String
    package var createdAt: Date
    package var changedAt: Date
}

package struct UserBookmarks: Sendable {
    /// Bookmarks one user keeps; one more is refused.
    package static let maxCount = 10_000
    /// Characters of a comment kept.
    package static let maxComment = 1_000

    package let database: LibraryDatabase
    package let user: UserID

    package init(database: LibraryDatabase, user: UserID) {
        self.database = database
        self.user = user
    }

    /// Creates or moves the bookmark of the song `songId`. Unknown song: `notFound`; a negative position
    /// or one bookmark past the cap: `refused`.
    package func save(songId: Int64, positionMs: Int64, comment: String, at date: Date = Date()) throws {
        guard positionMs >= 0 else { throw UserDataError.refused("a position is 0 or more, not \(positionMs)") }
        let comment = String(comment.unicodeScalars.filter { $0.properties.generalCategory != .control }
            .prefix(Self.maxComment).map(Character.init))
        let stamp = UTCStamp.string(date)
        try database.pool.write { db in
            guard let key = try String.fetchOne(db, sql: "SELECT song_key FROM song WHERE id = ?", arguments: [songId]) else {
                throw UserDataError.notFound
            }
            let exists = try Bool.fetchOne(db, sql: "SELECT 1 FROM user_bookmark WHERE user_id = ? AND song_key = ?",
                                           arguments: [user.rawValue, key]) ?? false
            if !exists, try Int.fetchOne(db, sql: "SELECT count(*) FROM user_bookmark WHERE user_id = ?",
                                         arguments: [user.rawValue]) ?? 0 >= Self.maxCount {
                throw UserDataError.refused("at most \(Self.maxCount) bookmarks are kept")
            }
            try db.execute(sql: """
                INSERT INTO user_bookmark (user_id, song_key, position_ms, comment, created_at, changed_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id, song_key) DO UPDATE SET position_ms = excluded.position_ms,
                    comment = excluded.comment, changed_at = excluded.changed_at
                """, arguments: [user.rawValue, key, positionMs, comment, stamp, stamp])
        }
    }

    /// Removes the song's bookmark; false when there was none.
    @discardableResult
    package func delete(songId: Int64) throws -> Bool {
        try database.pool.write { db in
            try db.execute(sql: """
                DELETE FROM user_bookmark WHERE user_id = ? AND song_key = (SELECT song_key FROM song WHERE id = ?)
                """, arguments: [user.rawValue, songId])
            return db.changesCount > 0
        }
    }

    /// The user's bookmarks, newest change first.
    package func all() throws -> [Bookmark] {
        try database.pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT b.song_key, song.id, b.position_ms, b.comment, b.created_at, b.changed_at FROM user_bookmark b
                LEFT JOIN song ON song.song_key = b.song_key WHERE b.user_id = ? ORDER BY b.changed_at DESC, b.song_key
                """, arguments: [user.rawValue]).map { row in
                let created: String = row[4], changed: String = row[5]
                return Bookmark(songKey: row[0], songId: row[1], positionMs: row[2], comment: row[3],
                                createdAt: UTCStamp.date(created) ?? Date(timeIntervalSince1970: 0),
                                changedAt: UTCStamp.date(changed) ?? Date(timeIntervalSince1970: 0))
            }
        }
    }

    /// Where the user's bookmarks stand in those of `songIds` that have one (a Child's bookmarkPosition).
    package func positions(songIds: [Int64]) throws -> [Int64: Int64] {
        guard !songIds.isEmpty else { return [:] }
        return try database.pool.read { db in
            var result: [Int64: Int64] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT song.id, b.position_ms FROM song JOIN user_bookmark b ON b.song_key = song.song_key AND b.user_id = ?
                WHERE song.id IN (SELECT value FROM json_each(?))
                """, arguments: [user.rawValue, LibraryDatabase.jsonArray(songIds)]) {
                result[row[0]] = row[1]
            }
            return result
        }
    }
}
