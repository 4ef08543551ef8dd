/// Arguments read as MPD reads them (its `ArgParser`), each into MPD's domain, with MPD's messages for
/// what does not parse. Every value returned fits 32 bits, so no arithmetic on it can overflow an Int.
package enum MPDArgument {
    /// MPD's `ParseCommandArgInt`: a signed 32-bit number, or `bounds` when given.
    package static func integer(_ text: String, in bounds: ClosedRange<Int> = Int(Int32.min)...Int(Int32.max))
        throws(MPDError) -> Int {
        switch parse(text[...]) {
        case .value(let value) where bounds.contains(value): return value
        case .value, .tooLarge: throw MPDError.arg("Number too large: \(text)")
        case .junk: throw MPDError.arg("Integer expected: \(text)")
        }
    }

    /// MPD's `ParseCommandArgUnsigned`: 0 up to `maximum` (an unsigned 32-bit number unless given). A
    /// negative number wraps in `strtoul`, so it is "too large" there too.
    package static func unsigned(_ text: String, maximum: Int = Int(UInt32.max)) throws(MPDError) -> Int {
        // `strtoul` takes "-0" as 0.
        try integer(text, in: 0...maximum)
    }

    /// A queue version (`plchanges`): MPD's `ParseCommandArgU32`, which never fails on a number; one past
    /// 32 bits or negative is read as the largest, a version newer than any (so everything has changed).
    package static func version(_ text: String) throws(MPDError) -> Int {
        switch parse(text[...]) {
        case .value(let value) where (0...Int(UInt32.max)).contains(value): return value
        case .value, .tooLarge: return Int(UInt32.max)
        case .junk: throw MPDError.arg("Integer expected: \(text)")
        }
    }

    /// As `strtof` reads it: `nan` and `inf` included (users clamp what they keep).
    package static func float(_ text: String) throws(MPDError) -> Double {
        guard let value = Float(text) else { throw MPDError.arg("Float expected: \(text)") }
        return Double(value)
    }

    package static func boolean(_ text: String) throws(MPDError) -> Bool {
        // As `strtol`: "01" and "-0" are numbers too.
        switch parse(text[...]) {
        case .value(0): return false
        case .value(1): return true
        default: throw MPDError.arg("Boolean (0/1) expected: \(text)")
        }
    }

    /// A song priority, 0-255.
    package static func priorityValue(_ text: String) throws(MPDError) -> Int {
        try unsigned(text, maximum: 255)
    }

    /// MPD's `ParseCommandArgRange`: `N`, `START:END`, `START:` (to the end), or `-1` (everything); each
    /// number 0 up to Int32's largest.
    package static func range(_ text: String) throws(MPDError) -> MPDRange {
        let junk = MPDError.arg("Integer or range expected: \(text)")
        let colon = text.firstIndex(of: ":")
        let startText = text[..<(colon ?? text.endIndex)]
        guard let start = rangeNumber(startText) else { throw junk }
        guard let colon else {
            if start == -1 { return .all }
            try checkRangeNumber(start, whole: text)
            return MPDRange(start: start, end: start + 1)
        }
        try checkRangeNumber(start, whole: text)
        let endText = text[text.index(after: colon)...]
        if endText.isEmpty { return MPDRange(start: start, end: nil) }
        guard let end = rangeNumber(endText) else { throw junk }
        try checkRangeNumber(end, whole: text)
        guard start <= end else { throw MPDError.arg("Malformed range: \(text)") }
        return MPDRange(start: start, end: end)
    }

    /// A number of a range; past 64 bits, as `strtol`'s saturated value, too large.
    private static func rangeNumber(_ text: Substring) -> Int? {
        switch parse(text) {
        case .value(let value): return value
        case .tooLarge: return text.first == "-" ? Int.min : Int.max
        case .junk: return nil
        }
    }

    private static func checkRangeNumber(_ value: Int, whole: String) throws(MPDError) {
        guard value >= 0 else { throw MPDError.arg("Number is negative: \(whole)") }
        guard value <= Int(Int32.max) else { throw MPDError.arg("Number too large: \(whole)") }
    }

    private enum Parsed: Equatable {
        case value(Int)
        /// Digits past 64 bits.
        case tooLarge
        case junk
    }

    /// A decimal number with an optional sign, as `strtol` takes it whole.
    private static func parse(_ text: Substring) -> Parsed {
        if let value = Int(text) { return .value(value) }
        let digits = text.first == "+" || text.first == "-" ? text.dropFirst() : text
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return .junk
        }
        return .tooLarge
    }
}

/// MPD's `RangeArg`: queue or playlist positions from `start`, up to `end` (nil: to the end). Both fit
/// 31 bits, whatever the client wrote.
package struct MPDRange: Sendable, Equatable {
    package var start: Int
    package var end: Int?

    package init(start: Int, end: Int?) {
        self.start = start
        self.end = end
    }

    /// `-1`: every position.
    package static let all = MPDRange(start: 0, end: nil)

    /// MPD's `CheckClip`: the positions of a list of `count` the range names, its end cut to the list's;
    /// nil when it starts past the list's end (MPD's "Bad song index"). Work on the result is bounded by
    /// `count`, never by what the client wrote.
    package func clipped(to count: Int) -> Range<Int>? {
        let upper = Swift.min(end ?? count, count)
        guard start <= upper else { return nil }
        return start..<upper
    }

    /// The range as written, when it has an end.
    package var closed: Range<Int>? { end.map { start..<$0 } }
}
