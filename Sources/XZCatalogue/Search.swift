import Foundation
import GRDB
import GRDBSQLite

package struct SingerHit: Codable, FetchableRecord, Sendable, Equatable {
    package var id: Int64
    package var name: String
    package var songs: Int

    /// Read by position (id, name, songs): search decodes these on every keystroke.
    package init(row: Row) {
        id = row[0]
        name = row[1]
        songs = row[2]
    }
}

package struct SearchResult: Sendable, Equatable {
    package var songs: [Song]
    package var singers: [SingerHit]
    /// Songs and singers close to the query, only when it matched nothing (see SearchSuggestions).
    package var suggestions: [SearchSuggestion] = []
}

/// Why two engines: this is the search a person types (`xzmusic search`, the prompt): every word of a
/// query over title, singer and album, folded through pinyin, initials and traditional/simplified,
/// ranked, a page of the best. MPD's find/search (`songs(_:naming:)` in MPDSemantics/) is a filter:
/// a tag, an operator and a value, every match, in MPD's database order, which clients rely on. Neither
/// answers the other's question: a filter has no ranking, and ranking every filter match would cost
/// what the bounded candidates below avoid.
///
/// Search ranks by tier (the query equals a folded key of the title or singer, begins one, or
/// matches elsewhere), then popularity, then title. Ranking every FTS match costs time in
/// proportion to the matches (tens of milliseconds for "love" or "周" at a million songs), so it
/// ranks a bounded set of candidates instead:
///
/// - songs whose title or singer keys (folded, pinyin, initials) equal or begin with the query,
///   found by range scans of those keys' indexes, the first few of each in index order;
/// - songs the Popularity hook lifts (played or liked), most popular first;
/// - only when those hold fewer than `limit` matches: the first FTS matches (by rowid).
///
/// Every candidate is checked against the query on its stored search document (all words, the
/// last as a prefix, CJK phrases adjacent), which is exactly what MATCH decides. Matches of the
/// exact and prefix tiers always outrank the rest, so when they fill the page nothing else can
/// enter it. What the bound gives up: among songs of equal tier and equal popularity (in practice,
/// never played), order by title holds among the candidates, not over every match of a very broad
/// query; popularity reaches beyond the candidate sources only for the `Popularity.candidateLimit`
/// most popular songs; and singers of equal tier rank by song count among their candidates. When
/// a query has fewer matches than the bounds, the ranking is exact (SearchCandidateTests compare
/// it with ranking every match).
extension LibraryDatabase {
    /// Finds songs whose title, singer and album together contain every word of `query`, ranked
    /// exact title/singer match first, then prefix, then fragment; ties by popularity, then title.
    package func search(_ query: String, limit: Int = 20) throws -> SearchResult {
        guard let terms = QueryTerms(query), limit > 0 else { return SearchResult(songs: [], singers: []) }
        return try pool.read { db in
            var result = SearchResult(songs: try Self.searchSongs(db, terms: terms, limit: limit),
                                      singers: try Self.searchSingers(db, terms: terms, limit: limit))
            if result.songs.isEmpty && result.singers.isEmpty {
                result.suggestions = try SearchSuggestions.suggestions(db, query: query, limit: limit)
            }
            return result
        }
    }

    static func searchSongs(_ db: Database, terms: QueryTerms, limit: Int) throws -> [Song] {
        var candidates = CandidateSet(terms: terms)
        // The first `limit` of a source in its index order are all it can place on the page.
        let arguments = terms.rangeArguments(perSource: limit)
        try candidates.add(db, sql: SongSources.exact, arguments: arguments)
        if candidates.verified < limit {
            try candidates.add(db, sql: SongSources.prefix, arguments: arguments)
        }
        try candidates.add(db, sql: SongSources.popular, arguments: ["limit": Popularity.candidateLimit])
        if candidates.verified < limit {
            try candidates.addMatches(db, table: "song_search", limit: 2 * limit)
        }
        guard !candidates.ids.isEmpty else { return [] }
        let tier = tierSQL(["song.title_key", "song.title_pinyin", "song.title_initials",
                            "singer.name_key", "singer.name_pinyin", "singer.name_initials"])
        // Rank ids first (the sorter then carries an id per candidate, not a whole row), then read
        // the page's rows in that order.
        let rank = """
            SELECT json_group_array(id) FROM (
                SELECT song.id AS id FROM json_each(:ids) AS candidate
                CROSS JOIN song ON song.id = candidate.value
                JOIN singer ON singer.id = song.singer_id
                ORDER BY \(([tier] + Popularity.songTerms + ["song.title_key", "song.id"]).joined(separator: ", "))
                LIMIT :limit)
            """
        let page = try String.fetchOne(db.cachedStatement(sql: rank), arguments: [
            "ids": candidates.idList, "key": terms.key, "keyEnd": terms.keyEnd, "limit": limit,
        ]) ?? "[]"
        let rows = """
            SELECT \(Song.selection) FROM json_each(:page) AS ranked
            CROSS JOIN song ON song.id = ranked.value \(Song.joins)
            ORDER BY ranked.key
            """
        return try Song.fetchAll(db.cachedStatement(sql: rows), arguments: ["page": page])
    }

    static func searchSingers(_ db: Database, terms: QueryTerms, limit: Int) throws -> [SingerHit] {
        var candidates = CandidateSet(terms: terms)
        // Singers rank by song count within a tier, so the range scans bring more of them to rank.
        let arguments = terms.rangeArguments(perSource: max(2 * limit, 40))
        try candidates.add(db, sql: SingerSources.exact, arguments: arguments)
        if candidates.verified < limit {
            try candidates.add(db, sql: SingerSources.prefix, arguments: arguments)
        }
        if candidates.verified < limit {
            try candidates.addMatches(db, table: "singer_search", limit: max(2 * limit, 40))
        }
        guard !candidates.ids.isEmpty else { return [] }
        let tier = tierSQL(["singer.name_key", "singer.name_pinyin", "singer.name_initials"])
        let sql = """
            SELECT singer.id, singer.name, singer.song_count AS songs FROM json_each(:ids) AS candidate
            CROSS JOIN singer ON singer.id = candidate.value
            ORDER BY \(tier), singer.song_count DESC, singer.name_pinyin, singer.id
            LIMIT :limit
            """
        return try SingerHit.fetchAll(db.cachedStatement(sql: sql), arguments: [
            "ids": candidates.idList, "key": terms.key, "keyEnd": terms.keyEnd, "limit": limit,
        ])
    }

    /// 0 when `key` equals one of the columns' folded forms, 1 when it begins one, 2 otherwise.
    private static func tierSQL(_ columns: [String]) -> String {
        let exact = columns.map { "\($0) = :key" }.joined(separator: " OR ")
        let prefix = columns.map { "(\($0) > :key AND \($0) < :keyEnd)" }.joined(separator: " OR ")
        return "CASE WHEN \(exact) THEN 0 WHEN \(prefix) THEN 1 ELSE 2 END"
    }
}

extension QueryTerms {
    /// Above every folded key that begins with `key`: folded text never holds U+10FFFF.
    var keyEnd: String { key + "\u{10FFFF}" }

    func rangeArguments(perSource: Int) -> StatementArguments {
        ["key": key, "keyEnd": keyEnd, "limit": perSource]
    }
}

/// Candidate ids, each checked against the query once.
private struct CandidateSet {
    let terms: QueryTerms
    var ids: [Int64] = []
    private var seen = Set<Int64>()
    /// Candidates from the index scans that match (FTS matches are not counted: see addMatches).
    private(set) var verified = 0
    private var scratch = QueryTerms.Scratch()

    init(terms: QueryTerms) { self.terms = terms }

    var idList: String { "[" + ids.map(String.init).joined(separator: ",") + "]" }

    /// Rows of (id, search document); keeps those whose document matches the query. Stepped
    /// through the C API: these scans run on every keystroke and read a few dozen short rows.
    mutating func add(_ db: Database, sql: String, arguments: StatementArguments) throws {
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                    message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            }
            let id = sqlite3_column_int64(handle, 0)
            guard !seen.contains(id) else { continue }
            let count = Int(sqlite3_column_bytes(handle, 1))
            guard let text = sqlite3_column_text(handle, 1) else { continue }
            guard terms.matches(document: UnsafeBufferPointer(start: text, count: count), scratch: &scratch) else {
                continue
            }
            seen.insert(id)
            ids.append(id)
            verified += 1
        }
    }

    /// The first FTS matches: the last word whole first (a plain doclist read), then as a prefix
    /// only if that found too few (a prefix query merges every term it covers).
    mutating func addMatches(_ db: Database, table: String, limit: Int) throws {
        var expressions = [terms.expression(lastAsPrefix: false)]
        if terms.lastIsPrefix { expressions.append(terms.expression(lastAsPrefix: true)) }
        let sql = "SELECT rowid FROM \(table) WHERE \(table) MATCH ? LIMIT ?"
        for expression in expressions {
            var found = 0
            let rowids = try Int64.fetchCursor(db.cachedStatement(sql: sql), arguments: [expression, limit])
            while let id = try rowids.next() {
                found += 1
                if seen.insert(id).inserted { ids.append(id) }
            }
            if found >= limit { break }
        }
    }
}

/// Candidate queries for songs: (id, search document) from the key indexes, tier by tier. The
/// document comes straight from FTS5's content table (`<table>_content`, column c0): a plain rowid
/// lookup, where going through the virtual table would open an FTS cursor per source.
private enum SongSources {
    static func scan(_ condition: String, order: String) -> String {
        """
        SELECT * FROM (SELECT song.id, content.c0 FROM song
            CROSS JOIN song_search_content AS content ON content.id = song.id
            WHERE \(condition) ORDER BY \(order) LIMIT :limit)
        """
    }

    static func bySinger(_ condition: String, order: String) -> String {
        """
        SELECT * FROM (SELECT song.id, content.c0 FROM singer
            CROSS JOIN song ON song.singer_id = singer.id
            CROSS JOIN song_search_content AS content ON content.id = song.id
            WHERE \(condition) ORDER BY \(order), song.title_key LIMIT :limit)
        """
    }

    static let exact = [
        scan("song.title_key = :key", order: "song.title_key, song.id"),
        scan("song.title_pinyin = :key AND song.title_pinyin <> song.title_key", order: "song.title_pinyin"),
        scan("song.title_initials = :key AND song.title_initials <> ''", order: "song.title_initials"),
        bySinger("singer.name_key = :key", order: "singer.name_key, singer.id"),
        bySinger("singer.name_pinyin = :key AND singer.name_pinyin <> singer.name_key", order: "singer.name_pinyin, singer.id"),
        bySinger("singer.name_initials = :key AND singer.name_initials <> ''", order: "singer.name_initials, singer.id"),
    ].joined(separator: "\nUNION ALL\n")

    static let prefix = [
        scan("song.title_key > :key AND song.title_key < :keyEnd", order: "song.title_key, song.id"),
        scan("song.title_pinyin > :key AND song.title_pinyin < :keyEnd AND song.title_pinyin <> song.title_key",
             order: "song.title_pinyin"),
        scan("song.title_initials > :key AND song.title_initials < :keyEnd AND song.title_initials <> ''",
             order: "song.title_initials"),
        bySinger("singer.name_key > :key AND singer.name_key < :keyEnd", order: "singer.name_key, singer.id"),
        bySinger("singer.name_pinyin > :key AND singer.name_pinyin < :keyEnd AND singer.name_pinyin <> singer.name_key",
                 order: "singer.name_pinyin, singer.id"),
        bySinger("singer.name_initials > :key AND singer.name_initials < :keyEnd AND singer.name_initials <> ''",
                 order: "singer.name_initials, singer.id"),
    ].joined(separator: "\nUNION ALL\n")

    /// Songs the Popularity hook ranks above others, most popular first.
    static let popular = """
        SELECT song.id, content.c0 FROM (\(Popularity.candidateSongKeys)) AS popular
        CROSS JOIN song ON song.song_key = popular.song_key
        CROSS JOIN song_search_content AS content ON content.id = song.id
        ORDER BY \(Popularity.songTerms.joined(separator: ", ")), song.id LIMIT :limit
        """
}

/// Candidate queries for singers: (id, search document) from the key indexes.
private enum SingerSources {
    static func scan(_ condition: String, order: String) -> String {
        """
        SELECT * FROM (SELECT singer.id, content.c0 FROM singer
            CROSS JOIN singer_search_content AS content ON content.id = singer.id
            WHERE \(condition) ORDER BY \(order) LIMIT :limit)
        """
    }

    static let exact = [
        scan("singer.name_key = :key", order: "singer.id"),
        scan("singer.name_pinyin = :key AND singer.name_pinyin <> singer.name_key", order: "singer.id"),
        scan("singer.name_initials = :key AND singer.name_initials <> ''", order: "singer.id"),
    ].joined(separator: "\nUNION ALL\n")

    static let prefix = [
        scan("singer.name_key > :key AND singer.name_key < :keyEnd", order: "singer.name_key, singer.id"),
        scan("singer.name_pinyin > :key AND singer.name_pinyin < :keyEnd AND singer.name_pinyin <> singer.name_key",
             order: "singer.name_pinyin, singer.id"),
        scan("singer.name_initials > :key AND singer.name_initials < :keyEnd AND singer.name_initials <> ''",
             order: "singer.name_initials, singer.id"),
    ].joined(separator: "\nUNION ALL\n")
}

/// How popularity breaks ties in search: ORDER BY terms over `song`. Stats add counted plays and likes here.
enum Popularity {
    static let songTerms: [String] = ["/* liked is 0 or 1: plays first, then liked */ coalesce((SELECT plays * 2 + liked FROM song_popularity WHERE song_popularity.song_key = song.song_key), 0) DESC"]

    /// The song keys `songTerms` can lift above zero (played or liked): search ranks the most
    /// popular of them even when no other candidate source finds them. Keep in step with songTerms.
    static let candidateSongKeys = "SELECT song_key FROM song_popularity WHERE plays > 0 OR liked > 0"
    /// How many of those search considers, most popular first.
    static let candidateLimit = 200
}
