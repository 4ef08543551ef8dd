import XCTest
@testable import XZStats

/// How a session ends: a skip is moving on before the play counted and after 5 s of listening;
/// stops, quits and errors are never skips, and errors never count.
final class SkipAndErrorTests: XCTestCase {
    func testClassification() {
        struct Row {
            let name: String
            let inputs: [PlayerInput]
            let counted: Bool
            let skip: Bool
            let reason: PlayEndReason
        }
        let t = { SessionTrackerTests.ticks($0, $1) }
        let table: [Row] = [
            Row(name: "moved on after 3 s is a glance", inputs: t(0, 3_000) + [.ended(reason: .skipped, positionMs: 3_000)],
                counted: false, skip: false, reason: .skipped),
            Row(name: "moved on after exactly 5 s is a skip",
                inputs: t(0, 5_000) + [.ended(reason: .skipped, positionMs: 5_000)], counted: false, skip: true, reason: .skipped),
            Row(name: "moved on after 10 s is a skip",
                inputs: t(0, 10_000) + [.ended(reason: .skipped, positionMs: 10_000)], counted: false, skip: true, reason: .skipped),
            Row(name: "moved on after it counted is a play, not a skip",
                inputs: t(0, 20_000) + [.ended(reason: .skipped, positionMs: 20_000)], counted: true, skip: false, reason: .skipped),
            Row(name: "skip needs 5 s heard, not 5 s of position",
                inputs: t(0, 2_000) + [.seeked(toMs: 20_000)] + t(20_000, 21_000) + [.ended(reason: .skipped, positionMs: 21_000)],
                counted: false, skip: false, reason: .skipped),
            Row(name: "stopped is not a skip", inputs: t(0, 10_000) + [.ended(reason: .stopped, positionMs: 10_000)],
                counted: false, skip: false, reason: .stopped),
            Row(name: "quit is not a skip", inputs: t(0, 10_000) + [.ended(reason: .quit, positionMs: 10_000)],
                counted: false, skip: false, reason: .quit),
            Row(name: "an error is not a skip", inputs: t(0, 10_000) + [.ended(reason: .error, positionMs: 10_000)],
                counted: false, skip: false, reason: .error),
            Row(name: "an error's last position is not listening",
                inputs: t(0, 10_000) + [.ended(reason: .error, positionMs: 20_000)], counted: false, skip: false, reason: .error),
            Row(name: "a play that counted before an error stays counted",
                inputs: t(0, 16_000) + [.ended(reason: .error, positionMs: 16_000)], counted: true, skip: false, reason: .error),
            Row(name: "completed short of the threshold is neither", inputs: t(0, 12_000) + [.seeked(toMs: 30_000),
                .ended(reason: .completed, positionMs: 31_000)], counted: false, skip: false, reason: .completed),
        ]
        for row in table {
            let (tracker, events) = SessionTrackerTests.run(31_000, row.inputs)
            XCTAssertEqual(tracker.isCounted, row.counted, row.name)
            XCTAssertEqual(tracker.isSkip, row.skip, row.name)
            XCTAssertEqual(tracker.endReason, row.reason, row.name)
            XCTAssertEqual(events.last, .ended(row.reason), row.name)
        }
        let (errored, _) = SessionTrackerTests.run(31_000, t(0, 10_000) + [.ended(reason: .error, positionMs: 20_000)])
        XCTAssertEqual(errored.playedMs, 10_000)
        XCTAssertEqual(errored.positionMs, 20_000, "the end position is still recorded")
    }

    func testSkipsAndErrorsInTheStore() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "Song One", "Singer", 200_000), ("2", "Song Two", "Singer", 200_000)])
        let one = try fixture.song("src:1"), two = try fixture.song("src:2")
        try fixture.play(one, playedMs: 8_000, reason: .skipped)
        try fixture.play(one, playedMs: 9_000, reason: .skipped)
        try fixture.play(one, playedMs: 2_000, reason: .skipped)
        try fixture.play(two, playedMs: 30_000, reason: .error)
        try fixture.play(two, playedMs: 120_000, reason: .error) // counted at 100 s, before the error
        try fixture.play(two, playedMs: 6_000, reason: .stopped)
        let summary = try fixture.store.summary(now: fixture.clock.now)
        XCTAssertEqual(summary.plays, 1)
        XCTAssertEqual(summary.skips, 2)
        XCTAssertEqual(summary.mostSkipped.map(\.title), ["Song One"])
        XCTAssertEqual(summary.mostSkipped.first?.skips, 2)
        XCTAssertEqual(summary.listenedMs, 8_000 + 9_000 + 2_000 + 30_000 + 120_000 + 6_000)
        let history = try fixture.store.history(limit: 10)
        XCTAssertEqual(history.map(\.endReason), [.stopped, .error, .error, .skipped, .skipped, .skipped])
        XCTAssertEqual(history.map(\.skip), [false, false, false, false, true, true])
        XCTAssertEqual(history.map(\.counted), [false, true, false, false, false, false])
    }
}
