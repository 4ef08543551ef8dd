import XCTest
@testable import XZLyrics

/// The tracker fed the way the player will feed it: sample positions after each decoded chunk.
final class LyricSyncTrackerTests: XCTestCase {
    let rate = 44_100
    // Lines at 0 s, 1 s, 2.5 s (twice), 2.6 s, 7 s and an empty line at 9 s.
    let timeline = LyricTimeline(LRCParser.parse("""
        [00:00.00]intro
        [00:01.00]one
        [00:02.50]both a
        [00:02.50]both b
        [00:02.60]quick
        [00:07.00]seven
        [00:09.00]
        """))

    func sample(_ ms: Int) -> Int { LyricTimeline.firstSample(atMs: ms, sampleRate: rate) }

    /// Plays from `start` to `end` in chunks of `chunk` samples; all events in order.
    func play(_ tracker: inout LyricSyncTracker, from start: Int, to end: Int, chunk: Int) -> [LyricEvent] {
        var events: [LyricEvent] = []
        var position = start
        while position <= end {
            events += tracker.update(sample: position, sampleRate: rate, seeked: false)
            position += chunk
        }
        return events
    }

    func testNormalPlaybackGivesEachLineOnceInOrder() {
        // An MP3 frame (1152 samples), a 100 ms chunk and a chunk longer than the gap between lines.
        for chunk in [1152, 4410, 6615, 44_100] {
            var tracker = LyricSyncTracker(timeline: timeline)
            let events = play(&tracker, from: 0, to: sample(12_000), chunk: chunk)
            XCTAssertEqual(events.map(\.lineIndex), [0, 1, 2, 3, 4, 5, 6], "chunk \(chunk)")
            XCTAssertEqual(events.map(\.text), ["intro", "one", "both a", "both b", "quick", "seven", ""])
            XCTAssertEqual(events.map(\.timeMs), [0, 1000, 2500, 2500, 2600, 7000, 9000])
            XCTAssertEqual(tracker.currentLineIndex, 6)
        }
    }

    func testEventsFireAtTheExactSample() {
        var tracker = LyricSyncTracker(timeline: timeline)
        XCTAssertEqual(tracker.update(sample: 0, sampleRate: rate, seeked: false).map(\.lineIndex), [0])
        XCTAssertEqual(tracker.update(sample: 44_099, sampleRate: rate, seeked: false), [], "999 ms")
        XCTAssertEqual(tracker.update(sample: 44_100, sampleRate: rate, seeked: false),
                       [LyricEvent(lineIndex: 1, timeMs: 1000, text: "one")])
        XCTAssertEqual(tracker.update(sample: 44_100, sampleRate: rate, seeked: false), [], "same position: nothing")
        XCTAssertEqual(tracker.update(sample: 110_249, sampleRate: rate, seeked: false), [], "2499.98 ms")
        XCTAssertEqual(tracker.update(sample: 110_250, sampleRate: rate, seeked: false).map(\.lineIndex), [2, 3],
                       "equal times: both, in file order")
        XCTAssertEqual(tracker.positionMs, 2500)
    }

    func testSeeks() {
        var tracker = LyricSyncTracker(timeline: timeline)
        _ = tracker.update(sample: 0, sampleRate: rate, seeked: false)

        // Forward over several lines: one event, the line at the new position.
        XCTAssertEqual(tracker.update(sample: sample(8000), sampleRate: rate, seeked: true),
                       [LyricEvent(lineIndex: 5, timeMs: 7000, text: "seven")])
        // Within the same line: still one event (the display is redrawn after a seek).
        XCTAssertEqual(tracker.update(sample: sample(7500), sampleRate: rate, seeked: true).map(\.lineIndex), [5])
        // Backwards.
        XCTAssertEqual(tracker.update(sample: sample(1200), sampleRate: rate, seeked: true).map(\.lineIndex), [1])
        // Onto equal times: the last of them only.
        XCTAssertEqual(tracker.update(sample: sample(2550), sampleRate: rate, seeked: true).map(\.lineIndex), [3])
        // Playing on from there: the next line only.
        XCTAssertEqual(tracker.update(sample: sample(2700), sampleRate: rate, seeked: false).map(\.lineIndex), [4])
        // Past the end.
        XCTAssertEqual(tracker.update(sample: sample(600_000), sampleRate: rate, seeked: true).map(\.lineIndex), [6])
    }

    func testSeekBeforeTheFirstLine() {
        let late = LyricTimeline(LRCParser.parse("[00:05.00]a\n[00:06.00]b"))
        var tracker = LyricSyncTracker(timeline: late)
        XCTAssertEqual(tracker.update(sample: sample(6000), sampleRate: rate, seeked: true).map(\.lineIndex), [1])
        XCTAssertEqual(tracker.update(sample: sample(1000), sampleRate: rate, seeked: true), [])
        XCTAssertNil(tracker.currentLineIndex, "nothing to show: the player clears the display")
        XCTAssertNil(tracker.currentLine)
        // Playing on reaches the lines again, each once.
        XCTAssertEqual(play(&tracker, from: sample(1000), to: sample(7000), chunk: 1152).map(\.lineIndex), [0, 1])
    }

    func testGoingBackwardsWithoutTheSeekFlagCountsAsASeek() {
        var tracker = LyricSyncTracker(timeline: timeline)
        _ = tracker.update(sample: sample(7100), sampleRate: rate, seeked: true)
        XCTAssertEqual(tracker.update(sample: sample(1100), sampleRate: rate, seeked: false).map(\.lineIndex), [1])
        XCTAssertEqual(tracker.currentLine?.text, "one")
    }

    func testAJumpWithoutTheSeekFlagReportsEveryCrossedLine() {
        // A stalled output catching up: the lines in between were crossed, so each is reported.
        var tracker = LyricSyncTracker(timeline: timeline)
        _ = tracker.update(sample: sample(1500), sampleRate: rate, seeked: true)
        XCTAssertEqual(tracker.update(sample: sample(8000), sampleRate: rate, seeked: false).map(\.lineIndex), [2, 3, 4, 5])
    }

    func testFirstUpdateCountsFromTheStart() {
        var tracker = LyricSyncTracker(timeline: timeline)
        XCTAssertEqual(tracker.update(sample: sample(1100), sampleRate: rate, seeked: false).map(\.lineIndex), [0, 1])
        tracker.reset()
        XCTAssertNil(tracker.positionMs)
        XCTAssertEqual(tracker.update(sample: sample(1100), sampleRate: rate, seeked: true).map(\.lineIndex), [1],
                       "starting mid-song is a seek")
    }

    func testNoLyrics() {
        var tracker = LyricSyncTracker(timeline: LyricTimeline(LRCDocument()))
        XCTAssertEqual(play(&tracker, from: 0, to: sample(5000), chunk: 4410), [])
        XCTAssertEqual(tracker.update(sample: sample(2000), sampleRate: rate, seeked: true), [])
    }

    func testRandomPlaybackAgainstAReference() {
        // Random chunk sizes and seeks; the events must match what the lines' times say.
        var state: UInt64 = 42
        func random(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
        var tracker = LyricSyncTracker(timeline: timeline)
        var position = 0
        var previousMs: Int?
        for _ in 0..<5000 {
            let seek = random(10) == 0
            position = seek ? random(sample(11_000)) : position + random(20_000)
            let events = tracker.update(sample: position, sampleRate: rate, seeked: seek)
            let now = LyricTimeline.milliseconds(atSample: position, sampleRate: rate)
            let current = timeline.lineIndex(at: now)
            XCTAssertEqual(tracker.currentLineIndex, current)
            if seek || (previousMs.map { now < $0 } ?? false) {
                XCTAssertEqual(events.map(\.lineIndex), current.map { [$0] } ?? [])
            } else {
                let crossed = timeline.lines.indices.filter { i in
                    timeline.lines[i].timeMs <= now && previousMs.map { timeline.lines[i].timeMs > $0 } ?? true
                }
                XCTAssertEqual(events.map(\.lineIndex), crossed)
            }
            for event in events {
                XCTAssertEqual(event.timeMs, timeline.lines[event.lineIndex].timeMs)
                XCTAssertEqual(event.text, timeline.lines[event.lineIndex].text)
            }
            previousMs = now
        }
    }

    func testAdjustedTimelineMovesTheEvents() {
        var tracker = LyricSyncTracker(timeline: LyricTimeline(LRCParser.parse("[00:01.00]a"), adjustmentMs: 250))
        XCTAssertEqual(tracker.update(sample: sample(749), sampleRate: rate, seeked: false), [])
        XCTAssertEqual(tracker.update(sample: sample(750), sampleRate: rate, seeked: false),
                       [LyricEvent(lineIndex: 0, timeMs: 750, text: "a")])
    }
}
