import Foundation
import GRDB
import XCTest
import XZCatalogue
@testable import XZHostCore
import XZPlaybackValues
import XZStats
import XZSystem
import XZTestSupport

/// The host's side of plays that cannot be written: one line that they wait, the retry on a timer while
/// nothing plays, and one line once they are saved.
final class WaitingPlayStatsTests: XCTestCase {
    func testAPlayWaitsInMemoryAndIsSavedByTheTimerOnceTheDatabaseIsWritable() throws {
        let folder = try TemporaryFolder("waiting-stats")
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let database = try library.open(seedingDemoFrom: nil)
        let reports = Mutex<[String]>([])
        let recording = StatsRecording(database: database, retrySeconds: 0.1) { line in reports.withLock { $0.append(line) } }
        try database.pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 1") }

        let item = QueueItem(path: "/music/song.mp3", title: "Song", singer: "Singer", durationMs: 40_000)
        recording.receive(.started(item, durationMs: 40_000))
        for ms in stride(from: 1000, through: 40_000, by: 1000) { recording.receive(.position(ms: ms)) }
        recording.receive(.ended(item, reason: .completed, positionMs: 40_000))
        let waiting = eventually { reports.withLock { $0 } .count >= 1 }
        XCTAssertTrue(waiting)
        XCTAssertEqual(reports.withLock { $0 }, [
            "play statistics are waiting in memory: the library database is read-only; they are saved when it can be written again",
        ], "said once, not once a write")

        try database.pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 0") }
        let saved = eventually { reports.withLock { $0 }.last == "play statistics saved" }
        XCTAssertTrue(saved, "\(reports.withLock { $0 })")
        XCTAssertEqual(try StatsStore(database: database).plays(songKey: "file:/music/song.mp3"), 1)
        recording.flush()
    }

    private func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 20)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }
}
