import XCTest
@testable import XZLyrics

final class LyricTimelineTests: XCTestCase {
    // Lines at 1 s, 2 s (twice), 4 s (with words) and 9 s.
    let doc = LRCParser.parse("""
        [00:01.00]one
        [00:02.00]two a
        [00:02.00]two b
        [00:04.00]<00:04.00>four <00:04.50>and <00:05.25>more <00:20.00>late
        [00:09.00]nine
        """)

    func testLineLookups() {
        let timeline = LyricTimeline(doc)
        let table: [(Int, Int?)] = [
            (Int.min, nil), (-1, nil), (0, nil), (999, nil),      // before the first
            (1000, 0), (1001, 0), (1999, 0),                       // at and between stamps
            (2000, 2), (3999, 2),                                  // equal times: the last of them
            (4000, 3), (8999, 3), (9000, 4), (9001, 4),
            (1_000_000, 4), (Int.max, 4),                          // after the last
        ]
        for (at, want) in table {
            XCTAssertEqual(timeline.lineIndex(at: at), want, "at \(at)")
        }
    }

    func testLookupMatchesALinearScan() {
        let timeline = LyricTimeline(doc)
        for at in stride(from: -100, through: 10_000, by: 7) {
            let reference = timeline.lines.lastIndex { $0.timeMs <= at }
            XCTAssertEqual(timeline.lineIndex(at: at), reference, "at \(at)")
        }
    }

    func testWordLookups() {
        let timeline = LyricTimeline(doc)
        XCTAssertEqual(timeline.wordIndex(line: 3, at: 3999), nil)
        XCTAssertEqual(timeline.wordIndex(line: 3, at: 4000), 0)
        XCTAssertEqual(timeline.wordIndex(line: 3, at: 4499), 0)
        XCTAssertEqual(timeline.wordIndex(line: 3, at: 4500), 1)
        XCTAssertEqual(timeline.wordIndex(line: 3, at: 5250), 2)
        XCTAssertEqual(timeline.wordIndex(line: 3, at: 30_000), 3)
        XCTAssertNil(timeline.wordIndex(line: 0, at: 1500), "no words")
        XCTAssertNil(timeline.wordIndex(line: 5, at: 1500), "no such line")
        XCTAssertNil(timeline.wordIndex(line: -1, at: 1500), "no such line")
    }

    func testNextChange() {
        let timeline = LyricTimeline(doc)
        let table: [(Int, Int?)] = [
            (Int.min, 1000), (0, 1000), (1000, 2000), (1999, 2000), (2000, 4000),
            (4000, 4500), (4500, 5250), (5250, 9000), // the 20 s word is after the next line: no change then
            (8999, 9000), (9000, nil), (Int.max, nil),
        ]
        for (after, want) in table {
            XCTAssertEqual(timeline.nextChange(after: after), want, "after \(after)")
        }
        XCTAssertNil(LyricTimeline(LRCDocument()).nextChange(after: 0))
    }

    func testEmptyTimeline() {
        let timeline = LyricTimeline(LRCDocument())
        XCTAssertTrue(timeline.isEmpty)
        XCTAssertNil(timeline.lineIndex(at: 0))
        XCTAssertNil(timeline.lineIndex(atSample: 44_100, sampleRate: 44_100))
    }

    func testAdjustment() {
        // Positive = sooner, like [offset:].
        let sooner = LyricTimeline(doc, adjustmentMs: 500)
        XCTAssertEqual(sooner.lines.map(\.timeMs), [500, 1500, 1500, 3500, 8500])
        XCTAssertEqual(sooner.lines[3].words.map(\.timeMs), [3500, 4000, 4750, 19_500])
        XCTAssertEqual(sooner.lineIndex(at: 500), 0)
        XCTAssertEqual(sooner.adjustmentMs, 500)

        let later = LyricTimeline(doc, adjustmentMs: -1000)
        XCTAssertEqual(later.lines.map(\.timeMs), [2000, 3000, 3000, 5000, 10_000])
        XCTAssertNil(later.lineIndex(at: 1999))

        // Clamped at 0, order kept, no overflow at the extremes.
        XCTAssertEqual(LyricTimeline(doc, adjustmentMs: 3000).lines.map(\.timeMs), [0, 0, 0, 1000, 6000])
        XCTAssertEqual(LyricTimeline(doc, adjustmentMs: Int.max).lines.map(\.timeMs), [0, 0, 0, 0, 0])
        XCTAssertEqual(LyricTimeline(doc, adjustmentMs: Int.min).lines.map(\.timeMs), Array(repeating: Int.max, count: 5))
        // Adjustment and [offset:] add up.
        let offsetDoc = LRCParser.parse("[offset:300]\n[00:01.00]a")
        XCTAssertEqual(LyricTimeline(offsetDoc, adjustmentMs: 200).lines.map(\.timeMs), [500])
    }

    func testHandBuiltUnsortedLinesAreSorted() {
        let timeline = LyricTimeline(lines: [LyricLine(timeMs: 3000, text: "c"), LyricLine(timeMs: 1000, text: "a"),
                                             LyricLine(timeMs: 3000, text: "d"), LyricLine(timeMs: 2000, text: "b")])
        XCTAssertEqual(timeline.lines.map(\.text), ["a", "b", "c", "d"])
        XCTAssertEqual(timeline.lineIndex(at: 3000), 3)
    }

    func testSampleConversionIsExactFloor() {
        let table: [(sample: Int, rate: Int, ms: Int)] = [
            (0, 44_100, 0), (44, 44_100, 0), (45, 44_100, 1), (44_099, 44_100, 999), (44_100, 44_100, 1000),
            (48_000, 48_000, 1000), (47_999, 48_000, 999), (1, 8000, 0), (8, 8000, 1), (-1, 44_100, -1),
            (-44_100, 44_100, -1000), (-44_101, 44_100, -1001), (7, 3, 2333),
        ]
        for c in table {
            XCTAssertEqual(LyricTimeline.milliseconds(atSample: c.sample, sampleRate: c.rate), c.ms, "\(c)")
        }
        // Agrees with exact integer arithmetic wherever that does not overflow.
        for rate in [8000, 11_025, 22_050, 32_000, 44_100, 48_000, 96_000] {
            for sample in stride(from: 0, through: 10_000_000, by: 9973) {
                XCTAssertEqual(LyricTimeline.milliseconds(atSample: sample, sampleRate: rate), sample * 1000 / rate)
            }
        }
        // Extremes saturate or stay exact instead of trapping.
        XCTAssertEqual(LyricTimeline.milliseconds(atSample: Int.max, sampleRate: 1), Int.max)
        XCTAssertEqual(LyricTimeline.milliseconds(atSample: Int.min, sampleRate: 1), Int.min)
        XCTAssertEqual(LyricTimeline.milliseconds(atSample: Int.max, sampleRate: Int.max), 1000)
        XCTAssertEqual(LyricTimeline.milliseconds(atSample: Int.max - 1, sampleRate: Int.max), 999)
        XCTAssertEqual(LyricTimeline.milliseconds(atSample: 5, sampleRate: 0), 0)
    }

    func testFirstSampleInvertsTheConversion() {
        for rate in [8000, 22_050, 44_100, 48_000] {
            for at in stride(from: 0, through: 20_000, by: 37) {
                let sample = LyricTimeline.firstSample(atMs: at, sampleRate: rate)
                XCTAssertGreaterThanOrEqual(LyricTimeline.milliseconds(atSample: sample, sampleRate: rate), at)
                XCTAssertLessThan(LyricTimeline.milliseconds(atSample: sample - 1, sampleRate: rate), at)
            }
        }
        XCTAssertEqual(LyricTimeline.firstSample(atMs: Int.max, sampleRate: 48_000), Int.max)
    }

    func testSampleLookups() {
        let timeline = LyricTimeline(doc)
        let rate = 44_100
        XCTAssertNil(timeline.lineIndex(atSample: 44_099, sampleRate: rate))
        XCTAssertEqual(timeline.lineIndex(atSample: 44_100, sampleRate: rate), 0)
        XCTAssertEqual(timeline.lineIndex(atSample: 88_199, sampleRate: rate), 0)
        XCTAssertEqual(timeline.lineIndex(atSample: 88_200, sampleRate: rate), 2)
        XCTAssertEqual(timeline.wordIndex(line: 3, atSample: 198_449, sampleRate: rate), 0) // 4499.97 ms
        XCTAssertEqual(timeline.wordIndex(line: 3, atSample: 198_450, sampleRate: rate), 1) // 4500 ms
        XCTAssertEqual(timeline.nextChange(afterSample: 0, sampleRate: rate), 44_100)
        XCTAssertEqual(timeline.nextChange(afterSample: 44_100, sampleRate: rate), 88_200)
        XCTAssertEqual(timeline.nextChange(afterSample: 176_400, sampleRate: rate), 198_450)
        XCTAssertNil(timeline.nextChange(afterSample: 396_900, sampleRate: rate))
        // 22,050 Hz with a 1 ms stamp: the first sample at or after 1 ms is 23 (1.043 ms), not 22 (0.997 ms).
        let one = LyricTimeline(LRCParser.parse("[00:00.001]x"))
        XCTAssertEqual(one.nextChange(afterSample: 0, sampleRate: 22_050), 23)
        XCTAssertNil(one.lineIndex(atSample: 22, sampleRate: 22_050))
        XCTAssertEqual(one.lineIndex(atSample: 23, sampleRate: 22_050), 0)
    }
}
