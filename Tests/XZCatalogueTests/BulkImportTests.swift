import Foundation
import GRDB
import XCTest
@testable import XZCatalogue
import XZCatalogueTestSupport

/// A feed over 1 MB goes through the parsing thread, and into an empty library through the bulk
/// load. Both must end exactly where importing line by line ends.
final class BulkImportTests: XCTestCase {
    /// About 12,000 lines (past the threshold for the parsing thread) with repeated keys (changed and
    /// unchanged), bad lines, blank and CRLF lines, repeated singers and albums in several scripts.
    private func bigFeed() -> [String] {
        var random = SplitMix(seed: 3)
        let names = ["周杰伦", "陳奕迅", "Björk", "Queen", "宇多田ヒカル", "아이유", "Кино", "Sigur Rós", "Ｑｕｅｅｎ", "王菲"]
        let words = ["晴天", "七里香", "Love", "Night", "Jóga", "ヒカル", "사랑", "Группа", "Rhapsody", "十年", "Café"]
        var lines: [String] = []
        for i in 0..<12_000 {
            let singer = names[random.next(names.count)] + (random.next(3) == 0 ? "" : " \(random.next(400))")
            let title = (0..<(1 + random.next(3))).map { _ in words[random.next(words.count)] }.joined(separator: " ")
            var fields: [String: Any] = ["source_id": "k\(random.next(4) == 0 ? random.next(i + 1) : i)",
                                         "title": title, "singer": singer, "duration_ms": 100_000 + random.next(1000),
                                         "padding": String(repeating: "x", count: 40)]
            if random.next(3) > 0 { fields["album"] = words[random.next(words.count)] + " \(random.next(50))" }
            if random.next(50) == 0 { fields["source_id"] = "" }
            switch random.next(200) {
            case 4...12 where !lines.isEmpty: lines.append(lines[random.next(lines.count)])  // unchanged repeat
            case 0: lines.append("{broken")
            case 1: lines.append("")
            case 2: lines.append(TestLibrary.line(fields) + "\r")
            case 3: lines.append(TestLibrary.line(["title": title]))
            default: lines.append(TestLibrary.line(fields))
            }
        }
        return lines
    }

    /// Every song with its singer, album, counts and search document, by key.
    private func snapshot(_ database: LibraryDatabase) throws -> [String] {
        try database.pool.read { db in
            try String.fetchAll(db, sql: """
                SELECT song.song_key || '|' || song.title || '|' || singer.name || '|' || singer.song_count || '|'
                    || coalesce(album.title, '-') || '|' || coalesce(song.duration_ms, '') || '|' || song.title_key || '|'
                    || song.title_pinyin || '|' || song.title_initials || '|' || song_search.terms || '|'
                    || singer_search.terms
                FROM song JOIN singer ON singer.id = song.singer_id LEFT JOIN album ON album.id = song.album_id
                JOIN song_search ON song_search.rowid = song.id JOIN singer_search ON singer_search.rowid = singer.id
                WHERE song.song_key <> 'src:seed'
                ORDER BY song.song_key
                """)
        }
    }

    func testBulkLoadEndsWhereLineByLineEnds() throws {
        let lines = bigFeed()
        XCTAssertGreaterThan(lines.joined(separator: "\n").utf8.count, FeedBatches.parallelThreshold)

        let bulk = try TestLibrary()
        let bulkSummary = try bulk.importFeed(lines)

        // A library that already holds a song takes the ordinary path.
        let ordinary = try TestLibrary()
        try ordinary.importFeed([TestLibrary.line(["source_id": "seed", "title": "Seed", "singer": "Seeder"])])
        let ordinarySummary = try ordinary.importFeed(lines)

        XCTAssertEqual(bulkSummary, ordinarySummary)
        XCTAssertGreaterThan(bulkSummary.updated, 100)
        XCTAssertGreaterThan(bulkSummary.skipped, 100)
        XCTAssertGreaterThan(bulkSummary.failed, 10)
        XCTAssertEqual(try snapshot(bulk.database), try snapshot(ordinary.database))

        // Singers and albums: no duplicates, none left empty, counts right.
        for library in [bulk, ordinary] {
            try library.database.pool.read { db in
                XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM singer WHERE song_count <> (SELECT count(*) FROM song WHERE singer_id = singer.id)"), 0)
                XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM singer WHERE song_count = 0"), 0)
                XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM album WHERE NOT EXISTS (SELECT 1 FROM song WHERE album_id = album.id)"), 0)
                XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA integrity_check"), "ok")
                XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM song_search"),
                               try Int.fetchOne(db, sql: "SELECT count(*) FROM song"))
            }
            try library.database.pool.write { db in
                try db.execute(sql: "INSERT INTO song_search (song_search) VALUES ('integrity-check')")
                try db.execute(sql: "INSERT INTO singer_search (singer_search) VALUES ('integrity-check')")
            }
        }
    }

    func testBulkLoadLeavesTheSchemaAsMigrated() throws {
        let library = try TestLibrary()
        try library.importFeed(bigFeed())
        let fresh = try TestLibrary()
        let query = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
        XCTAssertEqual(try library.database.pool.read { try Row.fetchAll($0, sql: query) },
                       try fresh.database.pool.read { try Row.fetchAll($0, sql: query) })
        // FTS5 merges incrementally again after the load.
        let automerge = try library.database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT v FROM song_search_config WHERE k = 'automerge'")
        }
        XCTAssertEqual(automerge, 4)
        // And a later import updates in place.
        let again = try library.importFeed([TestLibrary.line(["source_id": "k5", "title": "Changed", "singer": "Someone"])],
                                           name: "again.jsonl")
        XCTAssertEqual(again.updated, 1)
        XCTAssertEqual(try library.titles("changed"), ["Changed"])
    }

    func testAFailedBulkLoadLeavesTheLibraryEmpty() throws {
        let library = try TestLibrary()
        try library.database.pool.write { db in
            try db.execute(sql: """
                CREATE TRIGGER fail_on_boom BEFORE INSERT ON song WHEN NEW.title = 'Boom'
                BEGIN SELECT RAISE(ABORT, 'disk full'); END
                """)
        }
        var lines = bigFeed()
        lines.insert(TestLibrary.line(["source_id": "boom", "title": "Boom", "singer": "S"]), at: 9_000)
        func songIndexes() throws -> [String] {
            try library.database.pool.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'song' ORDER BY name")
            }
        }
        let before = try songIndexes()
        XCTAssertThrowsError(try library.importFeed(lines))
        XCTAssertEqual(try library.database.songCount(), 0)
        XCTAssertEqual(try songIndexes(), before, "the dropped indexes come back with the rollback")
        try library.database.pool.write { db in try db.execute(sql: "DROP TRIGGER fail_on_boom") }
        XCTAssertGreaterThan(try library.importFeed(lines).added, 1000)
    }
}
