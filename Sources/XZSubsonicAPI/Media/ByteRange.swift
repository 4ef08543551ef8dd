/// HTTP's `Range: bytes=…` header against a file of `size` bytes (RFC 9110 §14.1.2), as raw streams and
/// downloads take it: `a-b`, `a-` and `-n`; of several ranges only the first is served.
package enum ByteRange {
    /// The longest header read; longer is ignored (the whole file is sent).
    static let maxHeaderBytes = 1024

    /// The bytes to send: nil for the whole file (no header, another unit, or a header that does not parse,
    /// which RFC 9110 says to ignore). Throws `MediaError.rangeNotSatisfiable` when the first range starts at
    /// or past the end, is an empty suffix, or holds a number past Int64.
    package static func parse(_ header: String?, size: Int64) throws(MediaError) -> ClosedRange<Int64>? {
        guard let header, header.utf8.count <= maxHeaderBytes, size >= 0 else { return nil }
        let bytes = Array(header.utf8)
        let unit = Array("bytes=".utf8)
        guard bytes.count > unit.count,
              zip(bytes, unit).allSatisfy({ ($0 | 0x20) == $1 || ($0 == $1) }) else { return nil }
        var spec = bytes[unit.count...].prefix { $0 != UInt8(ascii: ",") }
        spec = trimmed(spec)
        guard let dash = spec.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let first = trimmed(spec[spec.startIndex..<dash])
        let last = trimmed(spec[(dash + 1)...])
        let unsatisfiable = MediaError.rangeNotSatisfiable(fileSize: size)
        if first.isEmpty {
            // `-n`: the last n bytes.
            switch number(last) {
            case .invalid: return nil
            case .tooLarge: throw unsatisfiable
            case .value(let count):
                guard count > 0, size > 0 else { throw unsatisfiable }
                return max(0, size - count)...(size - 1)
            }
        }
        let start: Int64
        switch number(first) {
        case .invalid: return nil
        case .tooLarge: throw unsatisfiable
        case .value(let value): start = value
        }
        var end = size - 1
        if !last.isEmpty {
            switch number(last) {
            case .invalid: return nil
            case .tooLarge: throw unsatisfiable
            case .value(let value):
                // `a-b` with b before a is no valid range: ignored.
                guard value >= start else { return nil }
                end = min(value, size - 1)
            }
        }
        guard start < size else { throw unsatisfiable }
        return start...end
    }

    private enum Number { case value(Int64), tooLarge, invalid }

    private static func number(_ digits: ArraySlice<UInt8>) -> Number {
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return .invalid }
        var value: Int64 = 0
        for digit in digits {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(digit - 0x30))
            guard !overflow1, !overflow2 else { return .tooLarge }
            value = sum
        }
        return .value(value)
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else {
            return bytes[bytes.endIndex...]
        }
        return bytes[first...last]
    }
}
