// libFuzzer harness for XZLyrics. Built and run by fuzz/run.sh; not part of the package or `make test`.
// Every check ends in a `precondition` failure, so a violated invariant is a crash that libFuzzer records.
import Foundation
import XZLyrics

/// `precondition`, but the message is printed in -O builds too (there the standard one drops it).
@inline(__always)
private func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        let text = "LRCFuzz invariant violated: \(message())\n"
        fputs(text, stderr)
        preconditionFailure(text)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
package func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    let doc = LRCParser.parse(bytes: bytes)
    check(doc)

    // The string entry point on the UTF-8 reading of the same bytes (differs from the above for
    // BOM / UTF-16 / GB18030 input).
    let text = String(decoding: bytes, as: UTF8.self)
    let textDoc = LRCParser.parse(text)
    check(textDoc)

    // A user adjustment taken from the input, and the saturating extremes.
    let adjustments = [0, adjustment(bytes), Int.max, Int.min]
    for adj in adjustments {
        exercise(LyricTimeline(doc, adjustmentMs: adj), doc)
    }
    exercise(LyricTimeline(textDoc), textDoc)
    // Hand-built, unsorted lines take the timeline's sorting path.
    exercise(LyricTimeline(lines: doc.lines.reversed(), adjustmentMs: adjustment(bytes)), doc)
    return 0
}

private func adjustment(_ bytes: [UInt8]) -> Int {
    guard bytes.count >= 4 else { return 0 }
    let raw = Int32(bitPattern: UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24)
    return Int(raw)
}

private func isTrimmed(_ s: String) -> Bool {
    !(s.first?.isWhitespace ?? false) && !(s.last?.isWhitespace ?? false)
}

/// Document invariants, as documented in XZLyrics.swift.
private func check(_ doc: LRCDocument) {
    var previous = Int.min
    for (i, line) in doc.lines.enumerated() {
        require(line.timeMs >= 0, "line \(i) has negative time \(line.timeMs)")
        require(line.timeMs >= previous, "lines not sorted at \(i): \(previous) > \(line.timeMs)")
        previous = line.timeMs
        require(isTrimmed(line.text), "line \(i) text not trimmed: \(line.text.debugDescription)")
        if !line.words.isEmpty {
            require(line.words.map(\.text).joined() == line.text,
                         "line \(i) words do not join to its text: \(line.words) vs \(line.text.debugDescription)")
            let count = line.text.count
            for (w, word) in line.words.enumerated() {
                require(word.timeMs >= 0, "line \(i) word \(w) has negative time \(word.timeMs)")
                if let range = line.wordCharacterRange(w) {
                    require(range.lowerBound >= 0 && range.upperBound <= count,
                                 "line \(i) word \(w) range \(range) outside text of \(count) characters")
                } else {
                    require(false, "no character range for line \(i) word \(w)")
                }
            }
            require(line.wordCharacterRange(line.words.count) == nil, "range for a word past the end")
        }
    }

    // (JSONSerialization/JSONEncoder on top would mostly fuzz Foundation, at a third of the speed.)
    let json = doc.jsonObject()
    let jsonLines = json["lines"] as? [[String: Any]]
    require(jsonLines?.count == doc.lines.count && json["tags"] is [String: String], "jsonObject() shape")
    for (line, object) in zip(doc.lines, jsonLines ?? []) {
        require(object["time_ms"] as? Int == line.timeMs && object["text"] as? String == line.text,
                     "jsonObject() line mismatch")
        require((object["words"] as? [[String: Any]])?.count ?? 0 == line.words.count, "jsonObject() words")
    }

    let plain = doc.plainText()
    let plainLines = doc.lines.isEmpty ? 0 : plain.split(separator: "\n", omittingEmptySubsequences: false).count
    require(plainLines == doc.lines.count, "plainText() has \(plainLines) lines for \(doc.lines.count)")
    require(!plain.unicodeScalars.contains { $0.value == 0x1B }, "plainText() contains ESC")
}

/// Lookups and the sync tracker on one timeline.
private func exercise(_ timeline: LyricTimeline, _ doc: LRCDocument) {
    let lines = timeline.lines
    require(lines.count == doc.lines.count, "timeline lost lines")
    for i in lines.indices.dropFirst() {
        require(lines[i - 1].timeMs <= lines[i].timeMs, "timeline lines not sorted at \(i)")
    }
    require(lines.allSatisfy { $0.timeMs >= 0 }, "timeline has a negative time")

    // Probe times: around each line (capped, so big files stay fast) and the extremes.
    var probes: Set<Int> = [Int.min, -1, 0, 1, Int.max, LRCParser.maxTimeMs]
    for line in lines.prefix(64) + lines.suffix(16) {
        for d in [-1, 0, 1] { probes.insert(line.timeMs &+ d) }
        for word in line.words.prefix(8) { probes.insert(word.timeMs) }
    }

    for t in probes {
        // Reference: the last line with time <= t.
        let expected = lines.lastIndex { $0.timeMs <= t }
        let got = timeline.lineIndex(at: t)
        require(got == expected, "lineIndex(at: \(t)) = \(String(describing: got)), expected \(String(describing: expected))")

        if let next = timeline.nextChange(after: t) {
            require(next > t, "nextChange(after: \(t)) = \(next) is not after it")
            // Nothing between t and next may change the line.
            if next > t &+ 1 {
                require(timeline.lineIndex(at: next - 1) == got, "line changes before nextChange(after: \(t))")
            }
        } else {
            require(lines.allSatisfy { $0.timeMs <= t }, "nextChange(after: \(t)) is nil but a line is later")
        }

        if let index = got {
            let words = lines[index].words
            if let w = timeline.wordIndex(line: index, at: t) {
                require(words.indices.contains(w), "wordIndex out of range")
                require(words[w].timeMs <= t, "wordIndex gives a word after t")
            } else {
                require(!words.contains { $0.timeMs <= t }, "wordIndex nil but a word has started")
            }
        }
        require(timeline.wordIndex(line: -1, at: t) == nil && timeline.wordIndex(line: lines.count, at: t) == nil,
                     "wordIndex for a line out of range")

        // Sample-based lookups agree with the millisecond ones.
        if t >= 0 && t <= LRCParser.maxTimeMs {
            let rate = 44_100
            let sample = LyricTimeline.firstSample(atMs: t, sampleRate: rate)
            require(LyricTimeline.milliseconds(atSample: sample, sampleRate: rate) >= t, "firstSample too early")
            require(timeline.lineIndex(atSample: sample, sampleRate: rate) == got, "sample lookup disagrees")
            if let nextSample = timeline.nextChange(afterSample: sample, sampleRate: rate) {
                require(nextSample > sample, "nextChange(afterSample:) is not after the sample")
            }
        }
    }

    // The tracker: play forward through a few positions, seek back, play on, go backwards without a seek.
    var tracker = LyricSyncTracker(timeline: timeline)
    let last = lines.last?.timeMs ?? 0
    let mid = lines.isEmpty ? 0 : lines[lines.count / 2].timeMs
    let steps: [(Int, Bool)] = [(0, false), (mid, false), (mid &+ 1, false), (last, false),
                                (mid, true), (last &+ 1000, false), (0, false), (Int.max, false), (Int.min, true)]
    for (position, seeked) in steps {
        let before = tracker.currentLineIndex
        let wentBack = tracker.positionMs.map { position < $0 } ?? false
        let events = tracker.update(positionMs: position, seeked: seeked)
        let now = timeline.lineIndex(at: position)
        require(tracker.currentLineIndex == now, "tracker line \(String(describing: tracker.currentLineIndex)) != \(String(describing: now))")
        require(tracker.positionMs == position, "tracker position not kept")
        for e in events {
            require(lines.indices.contains(e.lineIndex), "event for a line out of range")
            require(e.timeMs == lines[e.lineIndex].timeMs && e.text == lines[e.lineIndex].text, "event mismatch")
        }
        if seeked || wentBack {
            require(events.map(\.lineIndex) == (now.map { [$0] } ?? []), "seek gave events \(events.map(\.lineIndex))")
        } else if let now {
            let first = (before ?? -1) + 1
            let expected = first <= now ? Array(first...now) : []
            require(events.map(\.lineIndex) == expected, "advance gave events \(events.map(\.lineIndex)), expected \(expected)")
        } else {
            require(events.isEmpty, "events before the first line")
        }
    }
    tracker.reset()
    require(tracker.currentLineIndex == nil && tracker.positionMs == nil, "reset did not reset")
    _ = tracker.update(sample: 44_100 * 3, sampleRate: 44_100, seeked: false)
}
