import Foundation
import GRDB
import XZCatalogue

/// MPD's song stickers (name = value), keyed by song_key so they outlive re-imports. XZMusic's own
/// statistics read as stickers too, so MPD clients can show and sort by them: `like` (settable: 1 likes,
/// 0 unlikes), and the read-only `playcount`, `skipcount` and `lastplayed` (Unix seconds of the latest
/// counted play). `rating` is stored like any sticker but only takes 0 to 10, as MPD clients use it.
/// MPD clients act as the library's owner: the statistics read here are the owner's.
package struct StickerStore: Sendable {
    package static let like = "like"
    package static let rating = "rating"
    package static let readOnly: Set<String> = ["playcount", "skipcount", "lastplayed"]

    package let database: LibraryDatabase

    package init(database: LibraryDatabase) {
        self.database = database
    }

    /// A song's sticker, as text.
    package func value(songKey: String, name: String) throws -> String? {
        try database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM (\(Self.source(name))) WHERE song_key = ?",
                                arguments: Self.arguments(name) + [songKey])
        }
    }

    /// Every sticker of a song, its statistics among them, by name.
    package func all(songKey: String) throws -> [(name: String, value: String)] {
        try database.pool.read { db in
            var result: [(name: String, value: String)] = []
            for name in [Self.like] + Self.readOnly.sorted() {
                if let value = try String.fetchOne(db, sql: "SELECT value FROM (\(Self.source(name))) WHERE song_key = ?",
                                                   arguments: Self.arguments(name) + [songKey]) {
                    result.append((name, value))
                }
            }
            for row in try Row.fetchAll(db, sql: "SELECT name, value FROM sticker WHERE song_key = ?", arguments: [songKey]) {
                result.append((row[0], row[1]))
            }
            return result.sorted { $0.name < $1.name }
        }
    }

    /// Sets a sticker. `title`/`singer` name a song for `like` when neither the catalogue nor the play
    /// history knows it (a file played from a folder that was never imported).
    package func set(songKey: String, name: String, value: String, title: String, singer: String) throws {
        if Self.readOnly.contains(name) { throw Self.readOnlyError(name) }
        if name == Self.like {
            switch value {
            case "1": try StatsStore(database: database).like(songKey: songKey, fallbackTitle: title, fallbackSinger: singer)
            case "0": try StatsStore(database: database).unlike(songKey: songKey)
            default: throw StatsError.stickerRefused("like takes 1 (liked) or 0 (not liked), not \"\(value)\"")
            }
            return
        }
        var stored = value
        if name == Self.rating {
            guard !value.isEmpty, value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber), let number = Int(value),
                  (0...10).contains(number) else {
                throw StatsError.stickerRefused("rating takes a whole number from 0 to 10, not \"\(value)\"")
            }
            stored = String(number)
        }
        try database.pool.write { db in
            try db.execute(sql: """
                INSERT INTO sticker (song_key, name, value) VALUES (?, ?, ?)
                ON CONFLICT (song_key, name) DO UPDATE SET value = excluded.value
                """, arguments: [songKey, name, stored])
        }
    }

    /// Deletes one sticker (`like` unlikes), or every stored sticker of the song when `name` is nil
    /// (likes and play statistics are XZMusic's own records and stay).
    package func delete(songKey: String, name: String?) throws {
        if let name, Self.readOnly.contains(name) { throw Self.readOnlyError(name) }
        let removed: Bool
        if name == Self.like {
            removed = try StatsStore(database: database).unlike(songKey: songKey)
        } else {
            removed = try database.pool.write { db in
                if let name {
                    try db.execute(sql: "DELETE FROM sticker WHERE song_key = ? AND name = ?", arguments: [songKey, name])
                } else {
                    try db.execute(sql: "DELETE FROM sticker WHERE song_key = ?", arguments: [songKey])
                }
                return db.changesCount > 0
            }
        }
        guard removed else { throw StatsError.noSuchSticker }
    }

    /// How `find` compares values: as text, as MPD 0.23 does.
    package enum Comparison: String, Sendable {
        case equal = "=", less = "<", greater = ">"
    }

    /// A song that has the sticker: its key, its file when it has one, and the value.
    package struct Match: Sendable, Equatable {
        package var songKey: String
        package var path: String?
        package var value: String
    }

    /// Songs with a sticker `name`, optionally compared with `value`.
    package func find(name: String, _ comparison: (Comparison, String)? = nil) throws -> [Match] {
        var sql = """
            SELECT v.song_key, song.local_path, v.value FROM (\(Self.source(name))) v
            LEFT JOIN song ON song.song_key = v.song_key
            """
        var arguments = Self.arguments(name)
        if let comparison {
            sql += " WHERE v.value \(comparison.0.rawValue) ?"
            arguments += [comparison.1]
        }
        return try database.pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row -> Match in
                let key: String = row[0]
                let local: String? = row[1]
                let path = local.flatMap { $0.isEmpty ? nil : $0 } ?? (key.hasPrefix("file:") ? String(key.dropFirst(5)) : nil)
                return Match(songKey: key, path: path, value: row[2])
            }
        }
    }

    private static func readOnlyError(_ name: String) -> StatsError {
        .stickerRefused("\(name) is read-only: XZMusic keeps it from what was played")
    }

    /// (song_key, value) rows of one sticker name, values as text.
    private static func source(_ name: String) -> String {
        switch name {
        case like: return "SELECT song_key, '1' AS value FROM song_like WHERE user_id = 0"
        // song_popularity counts the owner's plays only.
        case "playcount": return "SELECT song_key, CAST(plays AS TEXT) AS value FROM song_popularity WHERE plays > 0"
        case "skipcount":
            return "SELECT song_key, CAST(count(*) AS TEXT) AS value FROM play_session WHERE user_id = 0 AND skip = 1 GROUP BY song_key"
        case "lastplayed":
            return "SELECT song_key, strftime('%s', max(started_at)) AS value FROM play_session WHERE user_id = 0 AND counted = 1 GROUP BY song_key"
        default: return "SELECT song_key, value FROM sticker WHERE name = ?"
        }
    }

    private static func arguments(_ name: String) -> StatementArguments {
        name == like || readOnly.contains(name) ? [] : [name]
    }
}
