import Foundation
import XZSystem
import GRDB
import XCTest
@testable import XZCatalogue
import XZCatalogueTestSupport

/// Search ranks a bounded set of candidates. Checked here against ranking every FTS match, the
/// way search used to, on a library big enough that the bounds bite.
final class SearchCandidateTests: XCTestCase {
    private static let shared = Mutex<TestLibrary?>(nil)

    /// 6,000 songs whose names repeat a small vocabulary, so broad queries match thousands.
    private func library() throws -> TestLibrary {
        if let library = Self.shared.withLock({ $0 }) { return library }
        let library = try TestLibrary()
        var random = SplitMix(seed: 5)
        let han = Array("周杰伦陈奕迅王菲晴天七里香十年东风破青花瓷")
        let latin = ["love", "night", "queen", "river", "dream", "café", "björk", "summer", "jazz", "rhapsody", "rose"]
        let kana = Array("あいうえおかきくけこサシスセソ")
        func name(words: Int) -> String {
            switch random.next(3) {
            case 0: return String((0..<(1 + random.next(3))).map { _ in han[random.next(han.count)] })
            case 1: return String((0..<(2 + random.next(2))).map { _ in kana[random.next(kana.count)] })
            default: return (0..<words).map { _ in latin[random.next(latin.count)] }.joined(separator: " ").capitalized
            }
        }
        let singers = (0..<300).map { _ in name(words: 2) }
        var lines: [String] = []
        for i in 0..<6_000 {
            lines.append(TestLibrary.line(["source_id": "\(i)", "title": name(words: 1 + random.next(3)),
                                           "singer": singers[random.next(singers.count)], "album": name(words: 2)]))
        }
        try library.importFeed(lines)
        // Plays and likes for some songs, so popularity orders ties.
        try library.database.pool.write { db in
            for i in stride(from: 0, to: 6_000, by: 37) {
                try db.execute(sql: "INSERT INTO song_popularity (song_key, plays, liked) VALUES (?, ?, ?)",
                               arguments: ["src:\(i)", i % 5, i % 2])
            }
        }
        Self.shared.withLock { $0 = library }
        return library
    }

    /// (tier, popularity, title_key, id) of every song matching `query`, best first: the old search.
    private func reference(_ db: Database, _ query: String) throws -> [(id: Int64, tier: Int, popularity: Int)] {
        guard let terms = QueryTerms(query) else { return [] }
        let columns = ["song.title_key", "song.title_pinyin", "song.title_initials",
                       "singer.name_key", "singer.name_pinyin", "singer.name_initials"]
        let exact = columns.map { "\($0) = :key" }.joined(separator: " OR ")
        let prefix = columns.map { "substr(\($0), 1, length(:key)) = :key" }.joined(separator: " OR ")
        let popularity = "coalesce((SELECT plays * 2 + liked FROM song_popularity WHERE song_popularity.song_key = song.song_key), 0)"
        let rows = try Row.fetchAll(db, sql: """
            SELECT song.id, CASE WHEN \(exact) THEN 0 WHEN \(prefix) THEN 1 ELSE 2 END AS tier, \(popularity) AS popularity
            FROM song_search JOIN song ON song.id = song_search.rowid JOIN singer ON singer.id = song.singer_id
            WHERE song_search MATCH :match
            ORDER BY tier, popularity DESC, song.title_key, song.id
            """, arguments: ["key": terms.key, "match": terms.expression(lastAsPrefix: true)])
        return rows.map { ($0["id"], $0["tier"], $0["popularity"]) }
    }

    private let queries = [
        "周", "杰", "晴天", "七里香", "zhou", "zhou jie", "zjl", "qingtian", "qt", "あい", "サシ", "さし", "love", "lo",
        "l", "queen", "queen j", "jazz queen", "bjork", "cafe", "rhap", "summer rose", "dream riv", "nothing here",
        "东风破", "dong feng", "dongfeng", "陈", "陳奕迅", "night love", "q", "r", "ro", "rose", "s", "か", "青花",
    ]

    func testEveryResultMatchesAndRanksInOrder() throws {
        let library = try library()
        for limit in [1, 5, 20, 60] {
            for query in queries {
                let results = try library.database.search(query, limit: limit).songs
                let expected = try library.database.pool.read { try reference($0, query) }
                let byId = Dictionary(uniqueKeysWithValues: expected.enumerated().map { ($1.id, ($0, $1)) })
                XCTAssertEqual(results.count, min(limit, expected.count), "\(query) limit \(limit)")
                // Each result matches, and the page is in the full ranking's order.
                let positions = results.compactMap { byId[$0.id]?.0 }
                XCTAssertEqual(positions.count, results.count, "\(query): a result that does not match")
                XCTAssertEqual(positions, positions.sorted(), "\(query) limit \(limit): out of order")
                // Tier and popularity come out as in the full ranking; only the order of equals may differ.
                let shown = results.compactMap { byId[$0.id].map { "\($0.1.tier)/\($0.1.popularity)" } }
                let best = expected.prefix(limit).map { "\($0.tier)/\($0.popularity)" }
                XCTAssertEqual(shown, Array(best), "\(query) limit \(limit)")
                if expected.count <= limit {
                    XCTAssertEqual(results.map(\.id), expected.map(\.id), "\(query): few matches rank exactly")
                }
            }
        }
    }

    func testSingersMatchAndRankByTierThenSongCount() throws {
        let library = try library()
        for query in queries {
            let singers = try library.database.search(query, limit: 20).singers
            guard let terms = QueryTerms(query) else { continue }
            let matching = try library.database.pool.read { db in
                try Set(Int64.fetchAll(db, sql: "SELECT rowid FROM singer_search WHERE singer_search MATCH ?",
                                       arguments: [terms.expression(lastAsPrefix: true)]))
            }
            XCTAssertEqual(singers.count, min(20, matching.count), query)
            XCTAssertTrue(singers.allSatisfy { matching.contains($0.id) }, query)
        }
    }
}
