import XCTest
@testable import XZStats

/// The counting rule as a table: inputs in, played time and the count moment out. No I/O.
final class SessionTrackerTests: XCTestCase {
    /// Ticks from `from` (exclusive) to `to` (inclusive) every `step` ms.
    static func ticks(_ from: Int, _ to: Int, step: Int = 500) -> [PlayerInput] {
        stride(from: from + step, through: to, by: step).map { .position(ms: $0) }
    }

    static func run(_ duration: Int?, _ inputs: [PlayerInput]) -> (SessionTracker, [SessionTracker.Event]) {
        var tracker = SessionTracker()
        var events: [SessionTracker.Event] = []
        for input in [.started(durationMs: duration)] + inputs { events += tracker.handle(input) }
        return (tracker, events)
    }

    func testCountingTable() {
        struct Row {
            let name: String
            let duration: Int?
            let inputs: [PlayerInput]
            let played: Int
            let countedAt: Int?
        }
        func t(_ from: Int, _ to: Int, step: Int = 500) -> [PlayerInput] { Self.ticks(from, to, step: step) }
        let table: [Row] = [
            Row(name: "29 s track never counts", duration: 29_000, inputs: t(0, 29_000), played: 29_000, countedAt: nil),
            Row(name: "exactly 30 s is not longer than 30 s", duration: 30_000, inputs: t(0, 30_000),
                played: 30_000, countedAt: nil),
            Row(name: "31 s track: not yet at 15 s", duration: 31_000, inputs: t(0, 15_000), played: 15_000, countedAt: nil),
            Row(name: "31 s track counts at 15.5 s", duration: 31_000, inputs: t(0, 15_500), played: 15_500,
                countedAt: 15_500),
            Row(name: "coarse ticks: the crossing is interpolated", duration: 31_000,
                inputs: [.position(ms: 10_000), .position(ms: 20_000)], played: 20_000, countedAt: 15_500),
            Row(name: "odd length: half rounds up", duration: 31_001, inputs: t(0, 16_000, step: 1), played: 16_000,
                countedAt: 15_501),
            Row(name: "6 min track counts at half, 3 min", duration: 360_000, inputs: t(0, 200_000, step: 1000),
                played: 200_000, countedAt: 180_000),
            Row(name: "10 min track counts at 4 min", duration: 600_000, inputs: t(0, 300_000, step: 1000),
                played: 300_000, countedAt: 240_000),
            Row(name: "10 min track: not at 3:59", duration: 600_000, inputs: t(0, 239_000, step: 1000),
                played: 239_000, countedAt: nil),
            Row(name: "unknown length counts after 4 min", duration: nil, inputs: t(0, 240_000, step: 1000),
                played: 240_000, countedAt: 240_000),
            Row(name: "paused time is not counted", duration: 31_000,
                inputs: t(0, 10_000) + [.paused, .position(ms: 10_000), .position(ms: 12_000), .position(ms: 12_000),
                                        .resumed] + t(12_000, 20_000),
                played: 18_000, countedAt: 17_500),
            Row(name: "seek forward adds nothing", duration: 600_000,
                inputs: t(0, 10_000) + [.seeked(toMs: 200_000)] + t(200_000, 210_000), played: 20_000, countedAt: nil),
            Row(name: "seeking past the threshold does not count", duration: 31_000,
                inputs: t(0, 5_000) + [.seeked(toMs: 25_000)] + t(25_000, 31_000)
                    + [.ended(reason: .completed, positionMs: 31_000)],
                played: 11_000, countedAt: nil),
            Row(name: "seek back and listen again counts the listening", duration: 31_000,
                inputs: t(0, 10_000) + [.seeked(toMs: 0)] + t(0, 10_000), played: 20_000, countedAt: 5_500),
            Row(name: "an unreported jump is not listening", duration: 600_000,
                inputs: t(0, 5_000) + [.position(ms: 100_000)] + t(100_000, 105_000), played: 10_000, countedAt: nil),
            Row(name: "a backward tick is not listening", duration: 600_000,
                inputs: t(0, 5_000) + [.position(ms: 1_000)] + t(1_000, 2_000), played: 6_000, countedAt: nil),
            Row(name: "the end position adds the last stretch", duration: 31_000,
                inputs: t(0, 30_000) + [.ended(reason: .completed, positionMs: 31_000)], played: 31_000,
                countedAt: 15_500),
            Row(name: "ticks after the end are ignored", duration: 31_000,
                inputs: [.ended(reason: .stopped, positionMs: 0)] + t(0, 20_000), played: 0, countedAt: nil),
        ]
        for row in table {
            let (tracker, events) = Self.run(row.duration, row.inputs)
            XCTAssertEqual(tracker.playedMs, row.played, row.name)
            XCTAssertEqual(tracker.countedAtPositionMs, row.countedAt, row.name)
            let countEvents = events.filter { if case .counted = $0 { true } else { false } }
            XCTAssertEqual(countEvents, row.countedAt.map { [.counted(positionMs: $0)] } ?? [], row.name)
        }
    }

    func testCountsAtTheMomentTheThresholdIsCrossedNotAtTheEnd() {
        var tracker = SessionTracker()
        tracker.handle(.started(durationMs: 31_000))
        for input in Self.ticks(0, 15_000) {
            XCTAssertFalse(tracker.handle(input).contains(.counted(positionMs: 15_500)))
        }
        XCTAssertFalse(tracker.isCounted)
        XCTAssertEqual(tracker.handle(.position(ms: 15_500)), [.counted(positionMs: 15_500)])
        XCTAssertTrue(tracker.isCounted)
        XCTAssertFalse(tracker.isEnded)
        // Counted once only, however long it goes on.
        let later = Self.ticks(15_500, 31_000).flatMap { tracker.handle($0) }
        XCTAssertFalse(later.contains { if case .counted = $0 { true } else { false } })
    }

    func testCheckpointEveryTenSecondsOfAudio() {
        var tracker = SessionTracker()
        tracker.handle(.started(durationMs: 600_000))
        var log: [(Int, SessionTracker.Event)] = []
        for input in Self.ticks(0, 262_000, step: 1000) {
            for event in tracker.handle(input) { log.append((tracker.playedMs, event)) }
            if case .position(25_000) = input {
                tracker.handle(.paused)
                tracker.handle(.resumed)
            }
        }
        XCTAssertEqual(log.map(\.0), Array(stride(from: 10_000, through: 260_000, by: 10_000)))
        XCTAssertEqual(log.filter { $0.1 == .counted(positionMs: 240_000) }.map(\.0), [240_000],
                       "the count write stands in for the checkpoint due then")
        XCTAssertEqual(log.filter { $0.1 == .checkpoint }.count, 25)
        XCTAssertEqual(tracker.handle(.ended(reason: .stopped, positionMs: 262_500)), [.ended(.stopped)])
        XCTAssertEqual(tracker.playedMs, 262_500)
    }

    func testRepeatOneIsANewSessionEachPass() {
        var passes: [SessionTracker] = []
        for _ in 0..<3 {
            let (tracker, _) = Self.run(31_000, Self.ticks(0, 31_000) + [.ended(reason: .completed, positionMs: 31_000)])
            passes.append(tracker)
        }
        XCTAssertEqual(passes.map(\.isCounted), [true, true, true])
        XCTAssertEqual(passes.map(\.playedMs), [31_000, 31_000, 31_000])
        // One tracker cannot be restarted: a second `started` is ignored and its ticks add nothing.
        var tracker = SessionTracker()
        tracker.handle(.started(durationMs: 31_000))
        Self.ticks(0, 31_000).forEach { tracker.handle($0) }
        tracker.handle(.ended(reason: .completed, positionMs: 31_000))
        XCTAssertTrue(tracker.handle(.started(durationMs: 31_000)).isEmpty)
        XCTAssertTrue(tracker.handle(.position(ms: 20_000)).isEmpty)
        XCTAssertEqual(tracker.playedMs, 31_000)
    }

    func testRuleThresholds() {
        let rule = PlayCountRule.lastFM
        XCTAssertNil(rule.thresholdMs(durationMs: 29_000))
        XCTAssertNil(rule.thresholdMs(durationMs: 30_000))
        XCTAssertEqual(rule.thresholdMs(durationMs: 31_000), 15_500)
        XCTAssertEqual(rule.thresholdMs(durationMs: 480_000), 240_000)
        XCTAssertEqual(rule.thresholdMs(durationMs: 600_000), 240_000)
        XCTAssertEqual(rule.thresholdMs(durationMs: nil), 240_000)
        XCTAssertEqual(rule.thresholdMs(durationMs: 0), 240_000)
    }
}
