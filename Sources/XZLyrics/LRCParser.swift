/// LRC text to `LRCDocument`. Pure: no I/O, never fails; anything it cannot read is skipped.
///
/// Grammar accepted (lenient in, strict out):
/// - time stamps `[m:s]`, `[m:s.f]`, `[m:s:f]` (colon form), `[h:m:s.f]`; any digit counts, spaces around
///   fields; the fraction is scaled by its digit count (`.7` = 700 ms, `.07` = 70 ms, `.0071` = 7 ms);
///   seconds past 59 carry into minutes; stamps above `maxTimeMs`, signs or other characters make it junk;
/// - a line starting with one or more stamps is one lyric line per stamp; a line not starting with a stamp
///   may still hold a stamp run: the text after the run, or before it when nothing follows (trailing stamps);
/// - inside the text `<stamp>` (A2) and `[stamp]` (foobar2000) tags time the words;
/// - a line without stamps contributes every `[key:value]` group it holds as a tag.
package enum LRCParser {
    /// A lyrics file larger than this is not read: no LRC file comes near it.
    package static let fileLimit = 4 << 20

    /// The largest time stamp accepted (about 24.8 days): bigger ones are junk, so sums never overflow.
    package static let maxTimeMs = Int(Int32.max)

    package static func parse(bytes: [UInt8]) -> LRCDocument {
        parse(LRCDecoding.decode(bytes))
    }

    package static func parse(_ text: String) -> LRCDocument {
        var bytes = Array(text.utf8)
        // A BOM that survived decoding is not part of the first line.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var state = ParseState()
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            var i = 0
            let n = buffer.count
            while i < n {
                let b = buffer[i]
                if b == UInt8(ascii: "\n") || b == UInt8(ascii: "\r") {
                    state.parseLine(buffer, start, i)
                    if b == UInt8(ascii: "\r"), i + 1 < n, buffer[i + 1] == UInt8(ascii: "\n") { i += 1 }
                    start = i + 1
                }
                i += 1
            }
            if start < n { state.parseLine(buffer, start, n) }
        }
        return state.document()
    }

    /// Parses one time stamp such as `00:12.34` (no brackets); nil when it is not one.
    package static func parseTimeStamp(_ text: String) -> Int? {
        let bytes = Array(("[" + text + "]").utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            guard let (ms, end) = LRCScanner.stamp(buffer, 0, buffer.count, close: UInt8(ascii: "]")),
                  end == buffer.count else { return nil }
            return ms
        }
    }

    /// Reads an `[offset:]` value: optional sign, digits, optional fraction (rounded half away from zero);
    /// saturates at ±`maxTimeMs`. nil when it is not a number.
    package static func parseOffset(_ text: String) -> Int? {
        let bytes = Array(LRCText.trimmed(text).utf8)
        var i = 0
        var negative = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        var value = 0
        var digits = 0
        while i < bytes.count, let d = digit(bytes[i]) {
            value = min(value * 10 + d, maxTimeMs + 1)
            digits += 1
            i += 1
        }
        guard digits > 0 else { return nil }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            var fractionDigits = 0
            while i < bytes.count, let d = digit(bytes[i]) {
                if fractionDigits == 0, d >= 5 { value += 1 }
                fractionDigits += 1
                i += 1
            }
            guard fractionDigits > 0 else { return nil }
        }
        guard i == bytes.count else { return nil }
        value = min(value, maxTimeMs)
        return negative ? -value : value
    }

    static func digit(_ b: UInt8) -> Int? {
        b >= 0x30 && b <= 0x39 ? Int(b - 0x30) : nil
    }
}

/// One stamped line as read, before the offset and sorting.
private struct RawLine {
    var timeMs: Int
    var text: String
    /// nil time: text before the first word tag, timed by its line.
    var words: [(timeMs: Int?, text: String)]
}

private struct ParseState {
    var tags: [String: String] = [:]
    /// The last [offset:] that was a number.
    var offsetMs = 0
    var lines: [RawLine] = []

    mutating func parseLine(_ buf: UnsafeBufferPointer<UInt8>, _ lineStart: Int, _ end: Int) {
        var start = lineStart
        while start < end, LRCScanner.isSpace(buf[start]) { start += 1 }
        guard start < end else { return }

        // Usual case: the line starts with its stamps.
        let (leading, afterLeading) = LRCScanner.stampRun(buf, start, end)
        if !leading.isEmpty {
            addLines(leading, buf, afterLeading, end)
            return
        }

        // Otherwise the first stamp run anywhere; the text after it, or before it when nothing follows.
        var i = start
        while i < end {
            if buf[i] == UInt8(ascii: "["), LRCScanner.stamp(buf, i, end, close: UInt8(ascii: "]")) != nil {
                let (stamps, after) = LRCScanner.stampRun(buf, i, end)
                if LRCScanner.hasVisibleText(buf, after, end) {
                    addLines(stamps, buf, after, end)
                } else {
                    addLines(stamps, buf, start, i)
                }
                return
            }
            i += 1
        }

        LRCScanner.tags(buf, start, end) { key, value in
            tags[key] = value
            // An [offset:] that is no number stays a tag but does not undo an earlier valid one.
            if key == "offset", let ms = LRCParser.parseOffset(value) { offsetMs = ms }
        }
    }

    mutating func addLines(_ stamps: [Int], _ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        let (text, words) = LRCScanner.lyricText(buf, start, end)
        for stamp in stamps {
            lines.append(RawLine(timeMs: stamp, text: text, words: words))
        }
    }

    func document() -> LRCDocument {
        let offset = offsetMs
        func shifted(_ t: Int) -> Int { max(0, t - offset) }
        // Indices sorted by (time, file order): a stable sort whatever the library's sort guarantees.
        let order = lines.indices.sorted { a, b in
            let ta = lines[a].timeMs, tb = lines[b].timeMs
            return ta != tb ? ta < tb : a < b
        }
        let out = order.map { index -> LyricLine in
            let raw = lines[index]
            let words = raw.words.map { LyricWord(timeMs: shifted($0.timeMs ?? raw.timeMs), text: $0.text) }
            return LyricLine(timeMs: shifted(raw.timeMs), text: raw.text, words: words)
        }
        return LRCDocument(tags: tags, offsetMs: offset, lines: out)
    }
}

/// Byte-level scanning over UTF-8. Every syntax character is ASCII, so slicing at them keeps UTF-8 valid.
/// Each scan stops at the first byte that cannot continue it, so a line costs linear time whatever it holds.
enum LRCScanner {
    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

    /// A time stamp opening at `i` (`[` or `<`) and closed by `close`: its milliseconds and the index after it.
    static func stamp(_ buf: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int, close: UInt8) -> (Int, Int)? {
        // Field values saturate at `cap` and then count as too big; cap keeps the total below Int.max.
        let cap = 1_000_000_000_000
        var values: [Int] = []
        var firstThree: [Int] = []
        var digitCounts: [Int] = []
        var separators: [UInt8] = []
        var j = i + 1
        while true {
            while j < end, isSpace(buf[j]) { j += 1 }
            var value = 0, lead = 0, count = 0
            while j < end, let d = LRCParser.digit(buf[j]) {
                value = value >= cap ? cap : value * 10 + d
                if count < 3 { lead = lead * 10 + d }
                count += 1
                j += 1
            }
            guard count > 0 else { return nil }
            values.append(value)
            firstThree.append(lead)
            digitCounts.append(count)
            while j < end, isSpace(buf[j]) { j += 1 }
            guard j < end else { return nil }
            let c = buf[j]
            j += 1
            if c == close { break }
            guard c == UInt8(ascii: ":") || c == UInt8(ascii: "."), values.count < 4 else { return nil }
            separators.append(c)
        }
        let colon = UInt8(ascii: ":"), dot = UInt8(ascii: ".")
        var hours = 0, minutes = 0, seconds = 0, fractionField: Int?
        switch separators {
        case [colon]:
            (minutes, seconds) = (values[0], values[1])
        case [colon, dot], [colon, colon]:
            (minutes, seconds, fractionField) = (values[0], values[1], 2)
        case [colon, colon, dot]:
            (hours, minutes, seconds, fractionField) = (values[0], values[1], values[2], 3)
        default:
            return nil
        }
        guard hours < cap, minutes < cap, seconds < cap else { return nil }
        var fraction = 0
        if let f = fractionField {
            switch digitCounts[f] {
            case 1: fraction = firstThree[f] * 100
            case 2: fraction = firstThree[f] * 10
            default: fraction = firstThree[f]
            }
        }
        let total = ((hours * 60 + minutes) * 60 + seconds) * 1000 + fraction
        guard total <= LRCParser.maxTimeMs else { return nil }
        return (total, j)
    }

    /// Consecutive `[stamp]` groups from `i`, spaces allowed between them: their times and the index after.
    static func stampRun(_ buf: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int) -> ([Int], Int) {
        var stamps: [Int] = []
        var j = i
        var after = i
        while j < end, buf[j] == UInt8(ascii: "["),
              let (ms, next) = stamp(buf, j, end, close: UInt8(ascii: "]")) {
            stamps.append(ms)
            after = next
            j = next
            while j < end, isSpace(buf[j]) { j += 1 }
        }
        return (stamps, after)
    }

    static func hasVisibleText(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        !LRCText.trimmed(string(buf, start, end)).isEmpty
    }

    static func string(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        start < end ? String(decoding: UnsafeBufferPointer(rebasing: buf[start..<end]), as: UTF8.self) : ""
    }

    /// The line's text with word tags removed, and its words when it has timed ones.
    static func lyricText(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int)
        -> (String, [(timeMs: Int?, text: String)]) {
        var segments: [(timeMs: Int?, text: String)] = []
        var segmentStart = start
        var segmentTime: Int?
        var j = start
        while j < end {
            let c = buf[j]
            if c == UInt8(ascii: "<") || c == UInt8(ascii: "["),
               let (ms, next) = stamp(buf, j, end, close: c == UInt8(ascii: "<") ? UInt8(ascii: ">") : UInt8(ascii: "]")) {
                segments.append((segmentTime, string(buf, segmentStart, j)))
                segmentTime = ms
                segmentStart = next
                j = next
                continue
            }
            j += 1
        }
        guard !segments.isEmpty else { return (LRCText.trimmed(string(buf, start, end)), []) }
        segments.append((segmentTime, string(buf, segmentStart, end)))

        // Whitespace-only pieces join the word before them, so the words still add up to the text; a tag
        // with spaces on both sides ("a <t> b") counts as one space.
        var words: [(timeMs: Int?, text: String)] = []
        for var segment in segments where !segment.text.isEmpty {
            if let last = words.last?.text.last, last.isWhitespace {
                segment.text = LRCText.trimmedStart(segment.text)
            }
            if LRCText.trimmed(segment.text).isEmpty {
                if !words.isEmpty { words[words.count - 1].text += segment.text }
            } else {
                words.append(segment)
            }
        }
        guard !words.isEmpty else { return ("", []) }
        words[0].text = LRCText.trimmedStart(words[0].text)
        words[words.count - 1].text = LRCText.trimmedEnd(words[words.count - 1].text)
        let text = words.map(\.text).joined()
        // A tag inside a character (e.g. before a combining mark) leaves word borders that are not character
        // borders of the text (and can leave whitespace at its end): keep the text, drop the word timing.
        var border = text.utf8.startIndex
        for word in words.dropLast() {
            border = text.utf8.index(border, offsetBy: word.text.utf8.count)
            if String.Index(border, within: text) == nil { return (LRCText.trimmed(text), []) }
        }
        // Tags that time nothing (e.g. a stray stamp at the end) leave no word timing.
        if words.allSatisfy({ $0.timeMs == nil }) { return (text, []) }
        return (text, words)
    }

    /// Every innermost `[key:value]` group between start and end.
    static func tags(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ found: (String, String) -> Void) {
        var open: Int?
        for j in start..<end {
            switch buf[j] {
            case UInt8(ascii: "["):
                open = j
            case UInt8(ascii: "]"):
                if let o = open, let (key, value) = tag(buf, o + 1, j) { found(key, value) }
                open = nil
            default:
                break
            }
        }
    }

    /// `key:value` with a key of ASCII letters, digits, `_`, `-` and spaces starting with a letter.
    static func tag(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (String, String)? {
        var colon: Int?
        for j in start..<end where buf[j] == UInt8(ascii: ":") {
            colon = j
            break
        }
        guard let c = colon else { return nil }
        var keyStart = start, keyEnd = c
        while keyStart < keyEnd, isSpace(buf[keyStart]) { keyStart += 1 }
        while keyEnd > keyStart, isSpace(buf[keyEnd - 1]) { keyEnd -= 1 }
        guard keyStart < keyEnd, isLetter(buf[keyStart]) else { return nil }
        for j in keyStart..<keyEnd {
            let b = buf[j]
            guard isLetter(b) || LRCParser.digit(b) != nil || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
                    || b == 0x20 else { return nil }
        }
        let key = string(buf, keyStart, keyEnd).lowercased()
        return (key, LRCText.trimmed(string(buf, c + 1, end)))
    }

    static func isLetter(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }
}

/// Trimming shared by the parser and the model, so words and lines agree on what whitespace is.
enum LRCText {
    static func trimmed<S: StringProtocol>(_ s: S) -> String {
        guard let first = s.firstIndex(where: { !$0.isWhitespace }),
              let last = s.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(s[first...last])
    }

    static func trimmedStart(_ s: String) -> String {
        String(s.drop { $0.isWhitespace })
    }

    static func trimmedEnd(_ s: String) -> String {
        guard let last = s.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(s[...last])
    }
}
