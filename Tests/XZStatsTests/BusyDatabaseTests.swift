import Foundation
import GRDB
import XCTest
import XZCatalogue
@testable import XZStats

/// Another connection holds the write lock longer than any timeout (as a large import does): the
/// recorder neither throws nor stalls, keeps the session in memory, and writes it once it can.
final class BusyDatabaseTests: XCTestCase {
    /// Holds a write transaction on its own connection until `release()`.
    final class LockHolder: @unchecked Sendable {
        private let locked = DispatchSemaphore(value: 0)
        private let released = DispatchSemaphore(value: 0)
        private let done = DispatchSemaphore(value: 0)

        init(path: String) throws {
            let other = try LibraryDatabase(path: path)
            Thread.detachNewThread { [locked, released, done] in
                try? other.pool.write { db in
                    try db.execute(sql: "UPDATE singer SET song_count = song_count") // take the lock for real
                    locked.signal()
                    released.wait()
                }
                done.signal()
            }
            locked.wait()
        }

        func release() {
            released.signal()
            done.wait()
        }
    }

    private func timed(_ body: () throws -> Void) rethrows -> TimeInterval {
        let start = Date()
        try body()
        return Date().timeIntervalSince(start)
    }

    func testSessionWaitsInMemoryWhileAnotherProcessWrites() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "Song", "Singer", 31_000)])
        let recorder = fixture.recorder
        recorder.retryInterval = 0
        let song = try fixture.song("src:1")
        let holder = try LockHolder(path: fixture.database.path)

        var id: Int64?
        let began = try timed { id = try recorder.begin(song: song) }
        XCTAssertNil(id, "not written yet")
        XCTAssertLessThan(began, 2, "waits about writeWait, not the 15 s busy timeout")
        XCTAssertTrue(recorder.hasUnsavedChanges)
        for ms in stride(from: 1000, through: 16_000, by: 1000) {
            XCTAssertLessThan(try timed { try recorder.handle(.position(ms: ms)) }, 2)
        }
        XCTAssertEqual(recorder.currentTracker?.isCounted, true, "counted in memory")
        XCTAssertEqual(try fixture.store.plays(songKey: "src:1"), 0)

        holder.release()
        try recorder.handle(.position(ms: 17_000)) // the next input writes everything
        XCTAssertFalse(recorder.hasUnsavedChanges)
        let row = try fixture.row(try XCTUnwrap(recorder.currentSessionId))
        XCTAssertEqual(row["counted"], true)
        XCTAssertEqual(row["played_ms"], 17_000, "the latest state")
        XCTAssertEqual(try fixture.store.plays(songKey: "src:1"), 1)
    }

    func testEndedSessionsQueueUntilTheDatabaseIsFree() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "One", "Singer", 31_000), ("2", "Two", "Singer", 31_000)])
        let recorder = fixture.recorder
        let first = try XCTUnwrap(try recorder.begin(song: try fixture.song("src:1")))
        for ms in stride(from: 1000, through: 12_000, by: 1000) { try recorder.handle(.position(ms: ms)) }
        XCTAssertEqual(try fixture.row(first)["played_ms"], 10_000)

        let holder = try LockHolder(path: fixture.database.path)
        for ms in stride(from: 13_000, through: 20_000, by: 1000) { try recorder.handle(.position(ms: ms)) }
        try recorder.end(reason: .skipped, positionMs: 20_000)
        try recorder.begin(song: try fixture.song("src:2"))
        for ms in stride(from: 1000, through: 6_000, by: 1000) { try recorder.handle(.position(ms: ms)) }
        try recorder.end(reason: .skipped, positionMs: 6_000)
        XCTAssertFalse(try recorder.flush(timeout: 0.1), "still locked")
        XCTAssertEqual(try fixture.row(first)["played_ms"], 10_000, "the crash-safe checkpoint is still there")

        holder.release()
        XCTAssertTrue(try recorder.flush())
        let history = try fixture.store.history(limit: 5)
        XCTAssertEqual(history.map(\.title), ["Two", "One"])
        XCTAssertEqual(history.map(\.endReason), [.skipped, .skipped])
        XCTAssertEqual(history.map(\.counted), [false, true])
        XCTAssertEqual(history.map(\.skip), [true, false])
        XCTAssertEqual(history.map(\.playedMs), [6_000, 20_000])
        // The writer's normal busy timeout is back for everyone else.
        let timeout = try fixture.database.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA busy_timeout") }
        XCTAssertEqual(timeout, 15_000)
    }
}
