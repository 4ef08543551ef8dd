import GRDB
import XCTest
@testable import XZCatalogue
import XZCatalogueTestSupport

final class FeedImportTests: XCTestCase {
    func testImportsAllFieldsAndCountsSingers() throws {
        let library = try TestLibrary()
        let summary = try library.importFeed([
            TestLibrary.line(["source_id": "s1", "title": "晴天", "singer": "周杰伦", "album": "叶惠美", "track": 3,
                              "year": 2003, "duration_ms": 269_000, "audio_url": "https://example.invalid/a.mp3",
                              "lyrics_url": "https://example.invalid/a.lrc", "size": 4_300_000, "sha256": "AB12CD34CD34CD34CD34CD34CD34CD34CD34CD34CD34CD34CD34CD34CD34CD34",
                              "unknown_key": [1, 2]]),
            TestLibrary.line(["source_id": "s2", "title": "七里香", "singer": "周杰伦"]),
        ])
        XCTAssertEqual(summary, {
            var s = ImportSummary(); s.added = 2; return s
        }())
        let song = try XCTUnwrap(try library.database.search("晴天").songs.first)
        XCTAssertEqual(song.songKey, "src:s1")
        XCTAssertEqual(song.album, "叶惠美")
        XCTAssertEqual(song.track, 3)
        XCTAssertEqual(song.year, 2003)
        XCTAssertEqual(song.durationMs, 269_000)
        XCTAssertEqual(song.audioURL, "https://example.invalid/a.mp3")
        XCTAssertEqual(song.size, 4_300_000)
        XCTAssertEqual(song.sha256, "ab12cd34cd34cd34cd34cd34cd34cd34cd34cd34cd34cd34cd34cd34cd34cd34", "stored in lower case")
        XCTAssertFalse(song.isLocal)
        let singer = try XCTUnwrap(try library.database.singer(named: "周杰伦"))
        XCTAssertEqual(singer.songCount, 2)
        XCTAssertEqual(singer.firstLetter, "Z")
    }

    func testBadLinesAreReportedWithLineNumbersAndSkipped() throws {
        let library = try TestLibrary()
        let summary = try library.importFeed([
            TestLibrary.line(["title": "Good One", "singer": "Queen"]),
            "{not json",
            TestLibrary.line(["singer": "Queen"]),
            "",
            TestLibrary.line(["title": "No Singer"]),
            TestLibrary.line(["title": "Bad Track", "singer": "Queen", "track": "three"]),
            "[1, 2]",
            TestLibrary.line(["title": "Good Two", "singer": "Queen", "track": "7"]),
        ])
        XCTAssertEqual(summary.added, 2)
        XCTAssertEqual(summary.failed, 5)
        XCTAssertEqual(summary.problems, [
            "line 2: not valid JSON",
            "line 3: missing \"title\"",
            "line 5: missing \"singer\"",
            "line 6: \"track\" must be a whole number",
            "line 7: not a JSON object",
        ])
        XCTAssertEqual(try library.titles("queen").sorted(), ["Good One", "Good Two"])
    }

    func testReimportUpsertsBySourceIdAndSkipsUnchanged() throws {
        let library = try TestLibrary()
        try library.importFeed([
            TestLibrary.line(["source_id": "a", "title": "Old Title", "singer": "Singer A"]),
            TestLibrary.line(["source_id": "b", "title": "Same", "singer": "Singer B"]),
        ])
        let before = try XCTUnwrap(try library.database.search("old title").songs.first)
        let summary = try library.importFeed([
            TestLibrary.line(["source_id": "a", "title": "New Title", "singer": "Singer C"]),
            TestLibrary.line(["source_id": "b", "title": "Same", "singer": "Singer B"]),
        ])
        XCTAssertEqual(summary.updated, 1)
        XCTAssertEqual(summary.skipped, 1)
        XCTAssertEqual(summary.added, 0)
        let after = try XCTUnwrap(try library.database.search("new title").songs.first)
        XCTAssertEqual(after.id, before.id, "the row keeps its id, so its stats stay attached")
        XCTAssertEqual(after.singer, "Singer C")
        XCTAssertEqual(try library.titles("old title"), [], "the old words left the index")
        XCTAssertNil(try library.database.singer(named: "Singer A").flatMap { $0.name == "Singer A" ? $0 : nil },
                     "a singer left without songs is dropped")
        XCTAssertEqual(try library.database.songCount(), 2)
    }

    func testReimportKeepsALocalPathTheFeedDoesNotName() throws {
        let library = try TestLibrary()
        try library.importFeed([TestLibrary.line(["source_id": "a", "title": "T", "singer": "S"])])
        try library.database.pool.write { db in
            try db.execute(sql: "UPDATE song SET local_path = '/lib/songs/t.mp3' WHERE song_key = 'src:a'")
        }
        try library.importFeed([TestLibrary.line(["source_id": "a", "title": "T2", "singer": "S"])])
        XCTAssertEqual(try library.database.search("t2").songs.first?.localPath, "/lib/songs/t.mp3")
    }

    func testFailedImportLeavesTheLibraryAsItWas() throws {
        let library = try TestLibrary()
        try library.importFeed([TestLibrary.line(["source_id": "keep", "title": "Kept", "singer": "S"])])
        // A trigger makes the third song's insert fail midway, as a crash or full disk would.
        try library.database.pool.write { db in
            try db.execute(sql: """
                CREATE TRIGGER fail_on_boom BEFORE INSERT ON song WHEN NEW.title = 'Boom'
                BEGIN SELECT RAISE(ABORT, 'disk full'); END
                """)
        }
        XCTAssertThrowsError(try library.importFeed([
            TestLibrary.line(["source_id": "keep", "title": "Changed", "singer": "S"]),
            TestLibrary.line(["source_id": "n1", "title": "New One", "singer": "T"]),
            TestLibrary.line(["source_id": "n2", "title": "Boom", "singer": "T"]),
        ]))
        XCTAssertEqual(try library.database.songCount(), 1)
        XCTAssertEqual(try library.titles("kept"), ["Kept"])
        XCTAssertEqual(try library.titles("new one"), [])
        XCTAssertNil(try library.database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT name FROM singer WHERE name = 'T'")
        })
    }

    func testBundledFilesMustStayInsideTheFeedFolder() throws {
        let library = try TestLibrary()
        let songs = library.folder.appendingPathComponent("bundle/songs")
        try FileManager.default.createDirectory(at: songs, withIntermediateDirectories: true)
        try Data([0xFF]).write(to: songs.appendingPathComponent("a.mp3"))
        let feed = library.folder.appendingPathComponent("bundle/catalogue.jsonl")
        try [TestLibrary.line(["title": "Inside", "singer": "S", "audio_file": "songs/a.mp3"]),
             TestLibrary.line(["title": "Outside", "singer": "S", "audio_file": "../../../etc/passwd"])]
            .joined(separator: "\n").write(to: feed, atomically: true, encoding: .utf8)
        let summary = try library.database.importFeed(at: feed, resolveBundledFiles: true)
        XCTAssertEqual(summary.added, 1)
        XCTAssertEqual(summary.problems, ["line 2: file \"../../../etc/passwd\" is outside the feed's folder"])
        XCTAssertEqual(try library.database.search("inside").songs.first?.localPath,
                       songs.appendingPathComponent("a.mp3").standardizedFileURL.path)
    }

    func testMissingFeedFileIsAClearError() throws {
        let library = try TestLibrary()
        XCTAssertThrowsError(try library.database.importFeed(at: library.folder.appendingPathComponent("nope.jsonl"))) {
            XCTAssertTrue("\($0)".contains("cannot read"), "\($0)")
        }
    }
}

final class FeedLineTests: XCTestCase {
    func testValuesNoCatalogueCouldMeanAreRefused() throws {
        let parser = FeedLine(baseDirectory: nil)
        func error(_ extra: String) -> String? {
            let line = #"{"title":"t","singer":"s","# + extra + "}"
            if case .failure(let error) = parser.parse(Data(line.utf8)) { return error.description }
            return nil
        }
        XCTAssertEqual(error(#""duration_ms":9223372036854775807"#), #""duration_ms" must be between 0 and 360000000, not 9223372036854775807"#)
        XCTAssertEqual(error(#""track":-3"#), #""track" must be between 0 and 9999, not -3"#)
        XCTAssertEqual(error(#""year":-100"#), #""year" must be between 0 and 9999, not -100"#)
        XCTAssertEqual(error(#""size":-1"#), #""size" must be between 0 and 9223372036854775807, not -1"#)
        XCTAssertEqual(error(#""album":"a\u0000b""#), #""album" contains a NUL character"#)
        XCTAssertEqual(error(#""audio_url":"javascript:alert(1)""#), #""audio_url" must be an http:// or https:// URL"#)
        XCTAssertEqual(error(#""lyrics_url":"file:///etc/passwd""#), #""lyrics_url" must be an http:// or https:// URL"#)
        XCTAssertEqual(error(#""sha256":"zz""#), #""sha256" must be 64 hexadecimal digits"#)
        XCTAssertEqual(error(#""album":""# + String(repeating: "x", count: 5000) + #"""#), #""album" is longer than 4096 bytes"#)
        XCTAssertNil(error(#""track":0,"year":2003,"duration_ms":269000,"audio_url":"HTTPS://a.example/x.mp3","sha256":""#
            + String(repeating: "aF", count: 32) + #"""#))
    }

    func testNumbersZeroAndOneAreNumbersNotBooleans() throws {
        let parser = FeedLine(baseDirectory: nil)
        let input = try parser.parse(Data(#"{"title":"t","singer":"s","track":1,"year":0,"size":1}"#.utf8)).get()
        XCTAssertEqual(input.track, 1)
        XCTAssertEqual(input.year, 0)
        XCTAssertEqual(input.size, 1)
        XCTAssertThrowsError(try parser.parse(Data(#"{"title":"t","singer":"s","track":true}"#.utf8)).get())
        XCTAssertThrowsError(try parser.parse(Data(#"{"title":"t","singer":"s","track":3.5}"#.utf8)).get())
        XCTAssertThrowsError(try parser.parse(Data(#"{"title":5,"singer":"s"}"#.utf8)).get())
    }
}
