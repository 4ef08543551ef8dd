/// Arguments read as MPD reads them, with MPD's messages for what does not parse.
public enum MPDArgument {
    public static func integer(_ text: String) throws(MPDError) -> Int {
        guard let value = Int(text) else { throw MPDError(.arg, "Integer expected: \(text)") }
        return value
    }

    /// MPD's unsigned: a negative number wraps in `strtoul`, so it is "too large" there too.
    public static func unsigned(_ text: String) throws(MPDError) -> Int {
        let value = try integer(text)
        guard (0...Int(UInt32.max)).contains(value) else { throw MPDError(.arg, "Number too large: \(text)") }
        return value
    }

    /// As `strtof` reads it: `nan` and `inf` included.
    public static func float(_ text: String) throws(MPDError) -> Double {
        guard let value = Float(text) else { throw MPDError(.arg, "Float expected: \(text)") }
        return Double(value)
    }

    public static func boolean(_ text: String) throws(MPDError) -> Bool {
        switch text {
        case "0": return false
        case "1": return true
        default: throw MPDError(.arg, "Boolean (0/1) expected: \(text)")
        }
    }

    public static func priorityValue(_ text: String) throws(MPDError) -> Int {
        let value = try integer(text)
        guard (0...255).contains(value) else { throw MPDError(.arg, "Priority out of range: \(text)") }
        return value
    }

    /// `N` or `START:END` (END may be left out: to the end of the queue).
    public static func positionRange(_ text: String, count: Int) throws(MPDError) -> Range<Int> {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let start = Int(parts[0]), start >= 0 else { throw MPDError(.arg, "Integer expected: \(text)") }
        guard parts.count == 2 else { return start..<(start + 1) }
        if parts[1].isEmpty { return start..<max(start, count) }
        guard let end = Int(parts[1]), end >= start else { throw MPDError(.arg, "Malformed range: \(text)") }
        return start..<end
    }
}
