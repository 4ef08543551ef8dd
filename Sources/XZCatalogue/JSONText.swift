import Foundation

/// Reading JSON string and number values the way Foundation's decoder reads them.
enum JSONText {
    static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, simple: Bool) -> String? {
        if simple {
            guard isValidUTF8(bytes, range) else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        return decode(bytes, range).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Unescapes a string's contents to UTF-8; nil for a bad escape, a control character, a lone
    /// surrogate or bytes that are not UTF-8.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var i = range.lowerBound
        let end = range.upperBound
        var chunkStart = i
        func flush(_ upTo: Int) -> Bool {
            guard isValidUTF8(bytes, chunkStart..<upTo) else { return false }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[chunkStart..<upTo]))
            return true
        }
        func hex(_ at: Int) -> UInt32? {
            guard end - at >= 4 else { return nil }
            var v: UInt32 = 0
            for k in 0..<4 {
                let c = bytes[at + k]
                let d: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
                default: return nil
                }
                v = v << 4 | UInt32(d)
            }
            return v
        }
        while i < end {
            let b = bytes[i]
            if b == UInt8(ascii: "\\") {
                guard flush(i) else { return nil }
                i += 1
                guard i < end else { return nil }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard let unit = hex(i) else { return nil }
                    i += 4
                    var scalar = unit
                    if (0xD800...0xDBFF).contains(unit) {
                        guard end - i >= 2, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u"),
                              let low = hex(i + 2), (0xDC00...0xDFFF).contains(low) else { return nil }
                        i += 6
                        scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let s = Unicode.Scalar(scalar) else { return nil }
                    out.append(contentsOf: UTF8.encode(s)!)
                default:
                    return nil
                }
                chunkStart = i
            } else if b < 0x20 {
                return nil
            } else {
                i += 1
            }
        }
        guard flush(end) else { return nil }
        return out
    }

    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var i = range.lowerBound
        let end = range.upperBound
        while i < end {
            let b = bytes[i]
            if b < 0x80 {
                i += 1
                continue
            }
            let count: Int
            var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
            switch b {
            case 0xC2...0xDF: count = 2
            case 0xE0: count = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: count = 3
            case 0xED: count = 3; upper = 0x9F
            case 0xF0: count = 4; lower = 0x90
            case 0xF1...0xF3: count = 4
            case 0xF4: count = 4; upper = 0x8F
            default: return false
            }
            guard end - i >= count else { return false }
            let second = bytes[i + 1]
            guard second >= lower && second <= upper else { return false }
            for k in 2..<max(2, count) where bytes[i + k] & 0xC0 != 0x80 { return false }
            i += count
        }
        return true
    }

    /// Trims like `trimmingCharacters(in: .whitespacesAndNewlines)`, skipping that (slow) call when
    /// both ends are plainly not white space.
    static func trimmed(_ s: String) -> String {
        let scalars = s.unicodeScalars
        guard let first = scalars.first, let last = scalars.last else { return s }
        if isPlainlyNotSpace(first.value) && isPlainlyNotSpace(last.value) { return s }
        return s.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Ranges that hold no white space of any kind (Unicode's spaces are U+0009-000D, U+0020,
    /// U+0085, U+00A0, U+1680, U+2000-200B, U+2028/2029, U+202F, U+205F, U+3000; U+FEFF is left out
    /// too). Anything else goes the slow way, so the exact set never matters here.
    private static func isPlainlyNotSpace(_ v: UInt32) -> Bool {
        (0x21...0x7E).contains(v) || (0xA1...0x167F).contains(v) || (0x3001...0xD7FF).contains(v)
            || (0xF900...0xFEFE).contains(v) || (0xFF00...0xFFFF).contains(v) || v >= 0x10000
    }

    /// A JSON number as Int64 by Foundation's rules: a plain integer exactly; anything else through
    /// a Double that must be whole (below 2^53 that Double is the value, above it the decimal text,
    /// truncated); nil when the text is not a valid number or the value does not fit.
    static func wholeNumber(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int64? {
        let text = UnsafeBufferPointer(rebasing: bytes[range])
        guard validNumberShape(text) else { return nil }
        if let plain = plainInteger(text) { return plain }
        let string = String(decoding: text, as: UTF8.self)
        // strtod must read the whole text ("1..0" stops early).
        guard let double = Double(string), let whole = Int64(exactly: double) else { return nil }
        if abs(double) < 9_007_199_254_740_992 { return whole }
        return exactWhole(text)
    }

    /// Leading zeros, a digit after "-", a digit before the exponent and at the end.
    private static func validNumberShape(_ t: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = t.first, let last = t.last else { return false }
        var digits = 0
        if first == UInt8(ascii: "-") {
            guard t.count > 1, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(t[1]) else { return false }
            digits = 1
        }
        if t[digits] == UInt8(ascii: "0") && t.count > digits + 1 {
            switch t[digits + 1] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): break
            default: return false
            }
        }
        if let e = t.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }), e > digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(t[e - 1]) else { return false }
        }
        return (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(last)
    }

    private static func plainInteger(_ t: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        let negative = t[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        var value: Int64 = 0
        while i < t.count {
            let c = t[i]
            guard c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") else { return nil }
            let d = Int64(c - UInt8(ascii: "0"))
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (v, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
            if o1 || o2 { return nil }
            value = v
            i += 1
        }
        return value
    }

    /// The decimal value of a number text with its fraction cut off, within ±(2^63 - 1).
    private static func exactWhole(_ t: UnsafeBufferPointer<UInt8>) -> Int64? {
        var digits: [UInt8] = []
        var pointShift = 0
        var exponent = 0
        var i = 0
        let negative = t[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        var afterPoint = false
        while i < t.count {
            let c = t[i]
            if c == UInt8(ascii: ".") {
                afterPoint = true
            } else if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                guard let e = Int(String(decoding: UnsafeBufferPointer(rebasing: t[(i + 1)...]), as: UTF8.self)) else {
                    return nil
                }
                exponent = e
                break
            } else {
                digits.append(c - UInt8(ascii: "0"))
                if afterPoint { pointShift += 1 }
            }
            i += 1
        }
        let integerDigits = digits.count - pointShift + exponent
        guard integerDigits <= 19 else { return nil }
        var value: Int64 = 0
        for k in 0..<max(0, integerDigits) {
            let d = Int64(k < digits.count ? digits[k] : 0)
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (v, o2) = m.addingReportingOverflow(d)
            if o1 || o2 { return nil }
            value = v
        }
        return negative ? -value : value
    }
}
