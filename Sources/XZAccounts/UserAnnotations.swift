import Foundation
import GRDB
import XZCatalogue
import XZStats
import XZSystem

/// One user's stars of albums and artists and ratings of songs, albums and artists (a song's star is
/// its like, in StatsStore). Rows name their item by what outlives a rescan: a song by its song_key, an
/// artist by name, an album by its artist's name and title joined by U+001F; callers speak catalogue ids.
package struct UserAnnotations: Sendable {
    package enum StarKind: String, Sendable, CaseIterable { case album, artist }
    package enum RatedKind: String, Sendable, CaseIterable { case song, album, artist }

    package let database: LibraryDatabase
    package let user: UserID

    package init(database: LibraryDatabase, user: UserID) {
        self.database = database
        self.user = user
    }

    // MARK: Stars

    /// Stars (or unstars) albums and artists in one transaction; starring again keeps the first time,
    /// unstarring what is not starred changes nothing. An unknown id: `notFound`, nothing changed.
    package func setStarred(_ starred: Bool, albums: [Int64] = [], artists: [Int64] = [], at date: Date = Date()) throws {
        try database.pool.write { db in
            let items = try [(StarKind.album, albums), (.artist, artists)].flatMap { kind, ids in
                try ids.map { id in
                    guard let key = try Self.itemKey(db, kind.rated, id: id) else { throw UserDataError.notFound }
                    return (kind, key)
                }
            }
            for (kind, key) in items {
                if starred {
                    try db.execute(sql: """
                        INSERT INTO user_star (user_id, kind, item_key, starred_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT DO NOTHING
                        """, arguments: [user.rawValue, kind.rawValue, key, UTCStamp.string(date)])
                } else {
                    try db.execute(sql: "DELETE FROM user_star WHERE user_id = ? AND kind = ? AND item_key = ?",
                                   arguments: [user.rawValue, kind.rawValue, key])
                }
            }
        }
    }

    /// The starred albums or artists the catalogue still holds, newest star first.
    package func starred(_ kind: StarKind) throws -> [(id: Int64, starredAt: Date)] {
        try database.pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT item.id, s.starred_at FROM user_star s JOIN (\(Self.keyed(kind.rated))) item ON item.item_key = s.item_key
                WHERE s.user_id = ? AND s.kind = ? ORDER BY s.starred_at DESC, item.id
                """, arguments: [user.rawValue, kind.rawValue]).compactMap { row in
                UTCStamp.date(row[1]).map { (row[0], $0) }
            }
        }
    }

    /// When each of `ids` was starred, for those that are.
    package func starredAt(_ kind: StarKind, ids: [Int64]) throws -> [Int64: Date] {
        var result: [Int64: Date] = [:]
        try forEachItem(kind.rated, ids: ids, select: "SELECT item_key, starred_at FROM user_star WHERE kind = '\(kind.rawValue)' AND user_id = ?") { id, row in
            if let date = UTCStamp.date(row[1]) { result[id] = date }
        }
        return result
    }

    // MARK: Ratings

    /// Rates 1 to 5; 0 removes the rating. Unknown id: `notFound`; another number: `refused`.
    package func setRating(_ kind: RatedKind, id: Int64, rating: Int) throws {
        guard (0...5).contains(rating) else { throw UserDataError.refused("a rating is 0 to 5, not \(rating)") }
        try database.pool.write { db in
            guard let key = try Self.itemKey(db, kind, id: id) else { throw UserDataError.notFound }
            if rating == 0 {
                try db.execute(sql: "DELETE FROM user_rating WHERE user_id = ? AND kind = ? AND item_key = ?",
                               arguments: [user.rawValue, kind.rawValue, key])
            } else {
                try db.execute(sql: """
                    INSERT INTO user_rating (user_id, kind, item_key, rating) VALUES (?, ?, ?, ?)
                    ON CONFLICT (user_id, kind, item_key) DO UPDATE SET rating = excluded.rating
                    """, arguments: [user.rawValue, kind.rawValue, key, rating])
            }
        }
    }

    /// The ratings of those of `ids` that are rated.
    package func ratings(_ kind: RatedKind, ids: [Int64]) throws -> [Int64: Int] {
        var result: [Int64: Int] = [:]
        try forEachItem(kind, ids: ids, select: "SELECT item_key, rating FROM user_rating WHERE kind = '\(kind.rawValue)' AND user_id = ?") { id, row in
            result[id] = row[1]
        }
        return result
    }

    // MARK: Keys

    /// The key an album's rows name it by: its artist and title joined by U+001F.
    package static func albumKey(artist: String, title: String) -> String { artist + "\u{1F}" + title }

    /// Rows of `select` (item_key first) for the items of `ids`, each handed over with its id. Each list is
    /// bound as one JSON array, as the catalogue binds a list of any length.
    private func forEachItem(_ kind: RatedKind, ids: [Int64], select: String, _ body: (Int64, Row) throws -> Void) throws {
        guard !ids.isEmpty else { return }
        try database.pool.read { db in
            var idsByKey: [String: [Int64]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, item_key FROM (\(Self.keyed(kind))) WHERE id IN (SELECT value FROM json_each(?))",
                                        arguments: [LibraryDatabase.jsonArray(ids)]) {
                idsByKey[row[1], default: []].append(row[0])
            }
            guard !idsByKey.isEmpty else { return }
            let rows = try Row.fetchAll(db, sql: "\(select) AND item_key IN (SELECT value FROM json_each(?))",
                                        arguments: [user.rawValue, LibraryDatabase.jsonArray(Array(idsByKey.keys))])
            for row in rows {
                for id in idsByKey[row[0]] ?? [] { try body(id, row) }
            }
        }
    }

    /// (id, item_key) of every song, album or artist of the catalogue.
    private static func keyed(_ kind: RatedKind) -> String {
        switch kind {
        case .song: "SELECT id, song_key AS item_key FROM song"
        case .artist: "SELECT id, name AS item_key FROM singer"
        case .album: "SELECT album.id AS id, singer.name || char(31) || album.title AS item_key FROM album JOIN singer ON singer.id = album.singer_id"
        }
    }

    private static func itemKey(_ db: Database, _ kind: RatedKind, id: Int64) throws -> String? {
        try String.fetchOne(db, sql: "SELECT item_key FROM (\(keyed(kind))) WHERE id = ?", arguments: [id])
    }
}

extension UserAnnotations.StarKind {
    var rated: UserAnnotations.RatedKind { self == .album ? .album : .artist }
}
