import GRDB
import XCTest
import XZCatalogue
@testable import XZStats

/// kill -9 a process in the middle of a session: a play that had counted survives, and the open
/// session keeps its last checkpoint, at most 10 s of listening behind.
final class CrashSafetyTests: XCTestCase {
    private func session(_ database: LibraryDatabase, _ key: String) throws -> Row {
        try XCTUnwrap(try database.pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM play_session WHERE song_key = ?", arguments: [key])
        }, "no session for \(key)")
    }

    private func crashChild(_ path: String, key: String, duration: Int, stopAt: Int, tickMicroseconds: Int = 0) throws -> ChildProcess {
        try ChildProcess(role: "crash", environment: [
            "XZSTATS_DB": path, "XZSTATS_SONG": key, "XZSTATS_DURATION": "\(duration)",
            "XZSTATS_STOP_AT": "\(stopAt)", "XZSTATS_TICK_US": "\(tickMicroseconds)",
        ])
    }

    func testKilledMidSessionKeepsCountedPlayAndLastCheckpoint() throws {
        let fixture = try StatsFixture()
        let path = fixture.database.path
        // A 60 s track counts at 30 s; killed at 37 s. A 5 min track killed at 25 s, before it counts.
        let counted = try crashChild(path, key: "src:counted", duration: 60_000, stopAt: 37_000)
        let open = try crashChild(path, key: "src:open", duration: 300_000, stopAt: 25_000)
        for child in [counted, open] {
            XCTAssertNotNil(child.waitFor("holding"), child.output)
            child.kill9()
            XCTAssertEqual(child.process.terminationReason, .uncaughtSignal)
        }
        let reopened = try LibraryDatabase(path: path)
        let a = try session(reopened, "src:counted")
        XCTAssertEqual(a["counted"], true, "the play counted at 30 s survives")
        XCTAssertEqual(a["played_ms"], 30_000, "written at the count moment")
        XCTAssertNil(a["end_reason"] as String?)
        let b = try session(reopened, "src:open")
        XCTAssertEqual(b["counted"], false)
        XCTAssertEqual(b["played_ms"], 20_000, "the 20 s checkpoint: 5 s lost")
        XCTAssertNil(b["end_reason"] as String?)

        let store = StatsStore(database: reopened)
        XCTAssertEqual(try store.summary().plays, 1)
        XCTAssertEqual(try store.history(limit: 5).map(\.endReason), [nil, nil])
        // The database is usable at once: the dead writer left no lock behind.
        let recorder = PlaySessionRecorder(database: reopened)
        try recorder.begin(songKey: "src:after", title: "After", singer: "Test", durationMs: 31_000)
        try recorder.end(reason: .stopped, positionMs: 0)
    }

    func testKilledAtRandomMomentsNeverLosesMoreThanTenSeconds() throws {
        let fixture = try StatsFixture()
        let path = fixture.database.path
        // 1 s of audio every 15 ms of wall time: a 100 s track (counts at 50 s) takes 1.5 s.
        for (index, delay) in [0.2, 0.55, 0.8, 1.1, 1.4].enumerated() {
            let key = "src:random\(index)"
            let child = try crashChild(path, key: key, duration: 100_000, stopAt: 100_000, tickMicroseconds: 15_000)
            XCTAssertNotNil(child.waitFor("at"), child.output)
            Thread.sleep(forTimeInterval: delay)
            let seen = child.reports.last { $0.word == "at" }?.value ?? 0
            child.kill9()
            let row = try session(try LibraryDatabase(path: path), key)
            let played: Int = row["played_ms"]
            XCTAssertGreaterThanOrEqual(played, seen - 10_000, "\(key): saw \(seen) ms, stored \(played) ms")
            if seen >= 50_000 { XCTAssertEqual(row["counted"], true, "\(key): counted at 50 s, seen \(seen)") }
        }
    }
}
