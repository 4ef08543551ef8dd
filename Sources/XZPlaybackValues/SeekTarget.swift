/// Where a seek goes, relative to the current position, absolute, or a share of the track.
package enum SeekTarget: Sendable, Equatable {
    case relative(ms: Int)
    case absolute(ms: Int)
    /// 0...100 of the track's length.
    case percent(Double)

    package static let usage = "+SECONDS, -SECONDS, M:SS, H:MM:SS, SECONDS (or =SECONDS) or PERCENT% (e.g. +10, -5, 1:23, 83, 50%)"

    /// "+10" / "-5" seconds from here, "1:23", "1:02:03" or "83" (seconds, fractions allowed: "83.5"), "50%".
    package init(parsing input: String) throws {
        let text = String(input.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        let fail = PlaybackError.invalidSeekTarget("cannot read the seek position \"\(input)\"; use \(SeekTarget.usage)")
        if text.hasSuffix("%") {
            guard let value = Double(text.dropLast()), value.isFinite, !text.hasPrefix("+"), !text.hasPrefix("-") else { throw fail }
            guard (0...100).contains(value) else {
                throw PlaybackError.invalidSeekTarget("seek percentage \(text) is outside 0% to 100%")
            }
            self = .percent(value)
            return
        }
        if let sign = text.first, sign == "+" || sign == "-" {
            guard let ms = SeekTarget.clockMs(text.dropFirst()) else { throw fail }
            self = .relative(ms: sign == "-" ? -ms : ms)
            return
        }
        // "=83" is "83": a bare position is absolute, as everywhere a signed value is relative.
        guard let ms = SeekTarget.clockMs(text.hasPrefix("=") ? text.dropFirst() : Substring(text)) else { throw fail }
        self = .absolute(ms: ms)
    }

    /// `[[h:]m:]s[.fff]` to milliseconds; fields after the first stay below 60; nil when malformed.
    static func clockMs(_ text: Substring) -> Int? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count), let last = fields.last else { return nil }
        var whole: [Int] = []
        for field in fields.dropLast() {
            guard let value = digits(field) else { return nil }
            whole.append(value)
        }
        let secondParts = last.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let seconds = digits(secondParts[0]) else { return nil }
        var fraction = 0
        if secondParts.count == 2 {
            let f = secondParts[1]
            guard !f.isEmpty, f.count <= 9, f.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            // Milliseconds: the first three digits, padded ("5" is 500 ms).
            fraction = Int(String((f + "00").prefix(3))) ?? 0
        }
        if fields.count > 1, seconds >= 60 { return nil }
        if fields.count == 3, whole[1] >= 60 { return nil }
        let totalSeconds = whole.reduce(0) { $0 * 60 + $1 } * 60 + seconds
        return totalSeconds * 1000 + fraction
    }

    /// ASCII digits only, at most 9 (so sums cannot overflow).
    private static func digits(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}
