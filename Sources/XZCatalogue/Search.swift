import Foundation
import GRDB

public struct SingerHit: Codable, FetchableRecord, Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var songs: Int
}

public struct SearchResult: Sendable, Equatable {
    public var songs: [Song]
    public var singers: [SingerHit]
}

extension LibraryDatabase {
    /// Finds songs whose title, singer and album together contain every word of `query`, ranked
    /// exact title/singer match first, then prefix, then fragment; ties by popularity, then title.
    public func search(_ query: String, limit: Int = 20) throws -> SearchResult {
        guard let match = SearchText.matchExpression(query) else { return SearchResult(songs: [], singers: []) }
        let key = SearchText.analyze(query).key
        return try pool.read { db in
            SearchResult(songs: try Self.searchSongs(db, match: match, key: key, limit: limit),
                         singers: try Self.searchSingers(db, match: match, key: key, limit: limit))
        }
    }

    /// 0 when `key` equals one of the columns' folded forms, 1 when it begins one, 2 otherwise.
    private static func tierSQL(_ columns: [String]) -> String {
        let exact = columns.map { "\($0) = :key" }.joined(separator: " OR ")
        let prefix = columns.map { "substr(\($0), 1, :keyLength) = :key" }.joined(separator: " OR ")
        return "CASE WHEN \(exact) THEN 0 WHEN \(prefix) THEN 1 ELSE 2 END"
    }

    static func searchSongs(_ db: Database, match: String, key: String, limit: Int) throws -> [Song] {
        let tier = tierSQL(["song.title_key", "song.title_pinyin", "song.title_initials",
                            "singer.name_key", "singer.name_pinyin", "singer.name_initials"])
        let sql = """
            SELECT \(Song.selection) FROM song_search
            JOIN song ON song.id = song_search.rowid \(Song.joins)
            WHERE song_search MATCH :match
            ORDER BY \(([tier] + Popularity.songTerms + ["song.title_key", "song.id"]).joined(separator: ", "))
            LIMIT :limit
            """
        return try Song.fetchAll(db, sql: sql, arguments: [
            "match": match, "key": key, "keyLength": key.count, "limit": limit,
        ])
    }

    static func searchSingers(_ db: Database, match: String, key: String, limit: Int) throws -> [SingerHit] {
        let tier = tierSQL(["singer.name_key", "singer.name_pinyin", "singer.name_initials"])
        let sql = """
            SELECT singer.id, singer.name, singer.song_count AS songs FROM singer_search
            JOIN singer ON singer.id = singer_search.rowid
            WHERE singer_search MATCH :match
            ORDER BY \(tier), singer.song_count DESC, singer.name_pinyin, singer.id
            LIMIT :limit
            """
        return try SingerHit.fetchAll(db, sql: sql, arguments: [
            "match": match, "key": key, "keyLength": key.count, "limit": limit,
        ])
    }
}

/// How popularity breaks ties in search: ORDER BY terms over `song`. Stats add counted plays and likes here.
enum Popularity {
    static let songTerms: [String] = ["/* liked is 0 or 1: plays first, then liked */ coalesce((SELECT plays * 2 + liked FROM song_popularity WHERE song_popularity.song_key = song.song_key), 0) DESC"]
}
