import Foundation
import XCTest
import XZAudio
import XZPlaybackEngine
import XZPlaybackValues
import XZTestSupport

/// A paced output (null, realtime files) takes a whole period in one write and the audio thread sleeps
/// until the clock has played it; a command cuts that sleep short and acts inside the period.
final class PacedPeriodTests: XCTestCase {
    private var fixtures: PlaybackFixtures!

    override func setUpWithError() throws {
        fixtures = try PlaybackFixtures.shared()
    }

    func testPauseInsideAPeriodStopsTheClockThere() throws {
        let output = PeriodLogOutput()
        let log = EventLog()
        let player = Player(output: output, onEvent: { event in
            // What the output had taken when the pause took effect.
            if case .paused = event { output.mark() }
            log.append(event)
        })
        defer { player.shutdown() }
        player.play([item(try fixtures.path("long6"))])
        // A short first period, then quarter seconds: the fourth write (500 to 750 ms) has been handed over and
        // the thread sleeps while the clock plays it.
        XCTAssertTrue(output.waitForWrites(4))
        XCTAssertLessThanOrEqual(player.snapshot().positionMs, output.framesTaken * 1000 / 44_100,
                                 "elapsed runs on with the clock, never past what the output took")
        player.pause()
        XCTAssertTrue(log.wait { $0.contains { if case .paused = $0 { true } else { false } } })
        guard case .paused(let pausedMs)? = log.events.first(where: { if case .paused = $0 { true } else { false } }) else {
            return XCTFail("no pause: \(log.events)")
        }
        let taken = output.marked
        XCTAssertEqual(taken, 33_075, "750 ms at 44.1 kHz")
        XCTAssertGreaterThanOrEqual(pausedMs, 500)
        XCTAssertLessThan(pausedMs, 750, "paused inside the period the output holds, not after it")
        XCTAssertEqual(player.snapshot().state, .paused)
        XCTAssertEqual(player.snapshot().positionMs, pausedMs, "elapsed is what was heard")
        XCTAssertEqual(output.framesTaken, taken, "nothing written while paused")

        player.resume()
        XCTAssertGreaterThanOrEqual(player.snapshot().positionMs, pausedMs)
        XCTAssertLessThanOrEqual(player.snapshot().positionMs, output.framesTaken * 1000 / 44_100)
        XCTAssertTrue(player.waitUntilFinished(timeout: 20))
        XCTAssertTrue(log.events.contains(.resumed(ms: pausedMs)))
        // The rest of the held period plays first: the next report is its end, and nothing is skipped or repeated.
        let after = log.events.drop { $0 != .resumed(ms: pausedMs) }
        let positions = after.compactMap { if case .position(let ms) = $0 { return ms } else { return nil } }
        XCTAssertEqual(positions.first, 750)
        XCTAssertEqual(positions, Array(stride(from: 750, through: positions.last ?? 0, by: 250)))
        XCTAssertEqual(output.framesTaken, 6 * 44_100, "the whole song, once")
        XCTAssertLessThanOrEqual(output.largestWriteFrames, 11_025, "at most a quarter of a second per write")
    }

    func testSkipInsideAPeriodEndsTheSongAtWhatTheOutputTook() throws {
        let output = PeriodLogOutput()
        let log = EventLog()
        let player = Player(output: output, onEvent: { event in
            if case .ended = event { output.mark() }
            log.append(event)
        })
        defer { player.shutdown() }
        let first = try fixtures.path("long6"), second = try fixtures.path("cbr44")
        player.play([item(first), item(second)])
        XCTAssertTrue(output.waitForWrites(2))
        player.next()
        XCTAssertTrue(log.wait { events in
            events.contains { if case .started(let item, _) = $0 { item.path == second } else { false } }
        })
        guard case .ended(_, .skipped, let endedMs)? = log.events.first(where: { if case .ended = $0 { true } else { false } }) else {
            return XCTFail("no skip: \(log.events)")
        }
        // The held period is not waited for; what the output took of the song counts as played.
        XCTAssertEqual(endedMs, output.marked * 1000 / 44_100)
        XCTAssertGreaterThanOrEqual(endedMs, 250)
        player.stop()
        XCTAssertTrue(player.waitUntilFinished(timeout: 20))
    }
}

/// A paced output that takes audio at once and counts the frames of each write (16-bit stereo).
private final class PeriodLogOutput: AudioOutput, @unchecked Sendable {
    private let condition = NSCondition()
    private var writes: [Int] = []
    private var markedFrames = 0

    func open(format: AudioFormat) throws {}
    func close() {}
    var needsPacing: Bool { true }
    var bufferedFrames: Int { 0 }

    func write(_ pcm: UnsafeRawBufferPointer) throws {
        condition.lock()
        writes.append(pcm.count / 4)
        condition.broadcast()
        condition.unlock()
    }

    /// Remembers the frames taken so far (called on the audio thread, from an event).
    func mark() {
        condition.lock()
        markedFrames = writes.reduce(0, +)
        condition.unlock()
    }

    var marked: Int { locked { markedFrames } }
    var framesTaken: Int { locked { writes.reduce(0, +) } }
    var largestWriteFrames: Int { locked { writes.max() ?? 0 } }

    func waitForWrites(_ count: Int, timeout: TimeInterval = 20) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while writes.count < count, condition.wait(until: deadline) {}
        return writes.count >= count
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}
