import GRDB
import XCTest
import XZCatalogue
@testable import XZStats

/// Two processes recording plays and a third importing feeds into one library at the same time:
/// busy timeout plus short write transactions mean no one ever sees "database is locked".
final class ConcurrentProcessesTests: XCTestCase {
    func testTwoPlayersAndAnImporterInSeparateProcesses() throws {
        let fixture = try StatsFixture()
        let path = fixture.database.path
        // Two versions of a 3,000-song feed, so every round rewrites every row and its search terms.
        for (name, suffix) in [("a.jsonl", "A"), ("b.jsonl", "B")] {
            let lines = (0..<3_000).map { i in
                #"{"source_id":"bulk\#(i)","title":"Bulk song \#(i) \#(suffix)","singer":"Singer \#(i % 97)","duration_ms":200000}"#
            }
            try lines.joined(separator: "\n").write(to: fixture.folder.url.appendingPathComponent(name), atomically: true,
                                                     encoding: .utf8)
        }
        let stopFile = fixture.folder.path("stop")
        let players = try ["src:p1", "src:p2"].map { key in
            try ChildProcess(role: "play", environment: [
                "XZSTATS_DB": path, "XZSTATS_SONG": key, "XZSTATS_STOP_FILE": stopFile, "XZSTATS_MIN_SESSIONS": "20",
            ])
        }
        for player in players { XCTAssertNotNil(player.waitFor("started"), player.output) }
        let importer = try ChildProcess(role: "import", environment: [
            "XZSTATS_DB": path, "XZSTATS_ROUNDS": "4",
            "XZSTATS_FEED_A": fixture.folder.path("a.jsonl"), "XZSTATS_FEED_B": fixture.folder.path("b.jsonl"),
        ])
        // This process reads stats meanwhile; WAL readers never wait for writers.
        var reads = 0
        while importer.process.isRunning {
            _ = try fixture.store.summary()
            _ = try fixture.database.search("bulk song 1", limit: 5)
            reads += 1
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertEqual(importer.finish(), 0, importer.output)
        XCTAssertEqual(importer.reports.filter { $0.word == "imported" }.count, 4)
        XCTAssertTrue(FileManager.default.createFile(atPath: stopFile, contents: Data()))
        var expected: [String: Int] = [:]
        for (key, player) in zip(["src:p1", "src:p2"], players) {
            XCTAssertEqual(player.finish(), 0, player.output)
            XCTAssertFalse(player.output.contains("locked"), player.output)
            expected[key] = try XCTUnwrap(player.reports.last { $0.word == "done" }?.value, player.output)
        }
        XCTAssertFalse(importer.output.contains("locked"), importer.output)
        XCTAssertGreaterThan(reads, 0)

        // Every session of both players was recorded whole and counted once.
        for (key, sessions) in expected {
            XCTAssertEqual(try fixture.store.plays(songKey: key), sessions, key)
        }
        let open = try fixture.database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM play_session WHERE end_reason IS NULL")
        }
        XCTAssertEqual(open, 0)
        XCTAssertEqual(try fixture.database.songCount(), 3_000)
        XCTAssertEqual(try fixture.store.summary().plays, expected.values.reduce(0, +))
    }
}
