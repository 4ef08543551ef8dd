import XZText

/// Time-to-line lookups over a document's lines, in milliseconds or in audio samples.
package struct LyricTimeline: Sendable {
    /// The lines with the adjustment applied, sorted by time (equal times in file order).
    package private(set) var lines: [LyricLine]
    /// Per-song user shift; positive shows lyrics sooner, the same sign as `[offset:]`.
    package let adjustmentMs: Int
    private let lineTimes: [Int]
    /// Every time at which the shown line or word can change, ascending, no repeats.
    private let changeTimes: [Int]

    package init(_ doc: LRCDocument, adjustmentMs: Int = 0) {
        self.init(lines: doc.lines, adjustmentMs: adjustmentMs)
    }

    package init(lines: [LyricLine], adjustmentMs: Int = 0) {
        self.adjustmentMs = adjustmentMs
        var shifted = lines.map { line in
            LyricLine(timeMs: Self.shift(line.timeMs, by: adjustmentMs), text: line.text,
                      words: line.words.map { LyricWord(timeMs: Self.shift($0.timeMs, by: adjustmentMs), text: $0.text) })
        }
        // Documents from LRCParser are sorted already; hand-built ones may not be.
        if zip(shifted, shifted.dropFirst()).contains(where: { $0.timeMs > $1.timeMs }) {
            shifted = shifted.indices.sorted { a, b in
                shifted[a].timeMs != shifted[b].timeMs ? shifted[a].timeMs < shifted[b].timeMs : a < b
            }.map { shifted[$0] }
        }
        self.lines = shifted
        let times = shifted.map(\.timeMs)
        self.lineTimes = times

        // A word only changes the display while its line is the current one: between the line's time and
        // the next line's.
        var changes = Set(times)
        for (i, line) in shifted.enumerated() {
            let until = i + 1 < times.count ? times[i + 1] : Int.max
            for word in line.words where word.timeMs > line.timeMs && word.timeMs < until {
                changes.insert(word.timeMs)
            }
        }
        self.changeTimes = changes.sorted()
    }

    package var isEmpty: Bool { lines.isEmpty }

    /// The last line whose time is <= ms (the last of several with equal times); nil before the first.
    package func lineIndex(at ms: Int) -> Int? {
        let index = Self.upperBound(lineTimes, ms) - 1
        return index >= 0 ? index : nil
    }

    /// The last word of `line` whose time is <= ms; nil before its first word, for a line without words
    /// or an index out of range.
    package func wordIndex(line: Int, at ms: Int) -> Int? {
        guard lines.indices.contains(line) else { return nil }
        // Words are few and their times need not ascend (they are kept as written), so a scan.
        return lines[line].words.lastIndex { $0.timeMs <= ms }
    }

    /// The time of the next line or word change strictly after ms; nil when nothing changes any more.
    package func nextChange(after ms: Int) -> Int? {
        let index = Self.upperBound(changeTimes, ms)
        return index < changeTimes.count ? changeTimes[index] : nil
    }

    // MARK: Samples

    /// floor(sample * 1000 / sampleRate) without overflow; 0 for a sample rate <= 0.
    package static func milliseconds(atSample sample: Int, sampleRate: Int) -> Int {
        SampleTime.milliseconds(atSample: sample, sampleRate: sampleRate)
    }

    /// The first sample whose millisecond time (as `milliseconds(atSample:sampleRate:)`) is >= ms.
    package static func firstSample(atMs ms: Int, sampleRate: Int) -> Int {
        guard sampleRate > 0 else { return 0 }
        var (q, r) = ms.quotientAndRemainder(dividingBy: 1000)
        if r < 0 { q -= 1; r += 1000 }
        let (whole, overflow) = q.multipliedReportingOverflow(by: sampleRate)
        if overflow { return q < 0 ? Int.min : Int.max }
        // ceil(r * sampleRate / 1000)
        let product = r.multipliedFullWidth(by: sampleRate)
        let (part, remainder) = 1000.dividingFullWidth(product)
        let (sum, sumOverflow) = whole.addingReportingOverflow(remainder > 0 ? part + 1 : part)
        return sumOverflow ? Int.max : sum
    }

    package func lineIndex(atSample sample: Int, sampleRate: Int) -> Int? {
        lineIndex(at: Self.milliseconds(atSample: sample, sampleRate: sampleRate))
    }

    package func wordIndex(line: Int, atSample sample: Int, sampleRate: Int) -> Int? {
        wordIndex(line: line, at: Self.milliseconds(atSample: sample, sampleRate: sampleRate))
    }

    /// The first sample after `sample` at which the line or word changes, for scheduling the next redraw.
    package func nextChange(afterSample sample: Int, sampleRate: Int) -> Int? {
        nextChange(after: Self.milliseconds(atSample: sample, sampleRate: sampleRate))
            .map { Self.firstSample(atMs: $0, sampleRate: sampleRate) }
    }

    // MARK: Helpers

    /// time - shift, clamped at 0, saturating instead of overflowing.
    static func shift(_ time: Int, by adjustment: Int) -> Int {
        let (value, overflow) = time.subtractingReportingOverflow(adjustment)
        if overflow { return adjustment < 0 ? Int.max : 0 }
        return max(0, value)
    }

    /// The first index whose value is > x in an ascending array.
    static func upperBound(_ values: [Int], _ x: Int) -> Int {
        var low = 0, high = values.count
        while low < high {
            let mid = low + (high - low) / 2
            if values[mid] <= x { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
