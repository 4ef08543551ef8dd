/// A response body under construction: `key: value` lines and binary chunks, ended later by `OK` or an ACK.
/// Values come from files and feeds, so line breaks inside them are replaced: a title can never add a line.
public struct MPDResponse: Sendable, Equatable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func add(_ key: String, _ value: String) {
        bytes += key.utf8
        bytes += ": ".utf8
        bytes += MPDResponse.singleLine(value).utf8
        bytes.append(0x0A)
    }

    public mutating func add(_ key: String, _ value: Int) {
        add(key, String(value))
    }

    /// `binary: N`, the bytes, then a newline, as `albumart` and `readpicture` answer.
    public mutating func addBinary(_ data: ArraySlice<UInt8>) {
        add("binary", data.count)
        bytes += data
        bytes.append(0x0A)
    }

    public mutating func append(_ other: MPDResponse) {
        bytes += other.bytes
    }

    public mutating func appendLine(_ line: String) {
        bytes += line.utf8
        bytes.append(0x0A)
    }

    public var isEmpty: Bool { bytes.isEmpty }

    /// Drops everything after the first `count` bytes.
    mutating func truncate(to count: Int) {
        bytes.removeSubrange(count...)
    }

    /// Text as one protocol line: CR, LF and NUL become spaces.
    public static func singleLine(_ text: String) -> String {
        func isBreak(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D || byte == 0 }
        let breaks = text.utf8.withContiguousStorageIfAvailable { $0.contains(where: isBreak) }
        guard breaks ?? text.utf8.contains(where: isBreak) else { return text }
        return String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" || $0 == "\0" ? " " : $0 })
    }
}
