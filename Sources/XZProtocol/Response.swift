/// A response body under construction: `key: value` lines and binary chunks, ended later by `OK` or an ACK.
/// Values come from files and feeds, so line breaks inside them are replaced: a title can never add a line.
/// It carries its budget (MPD's `max_output_buffer_size`): once past `limit` bytes it takes no more lines,
/// and listings stop at `isFull`, so an answer never grows far beyond what the client may be sent.
package struct MPDResponse: Sendable, Equatable {
    package private(set) var bytes: [UInt8] = []
    /// Past this many bytes nothing more is written (a line started is finished, so it overshoots by one).
    package let limit: Int

    package init(limit: Int = .max) {
        self.limit = limit
    }

    /// Continues the bytes in `storage`, which is left empty so that its storage is reused, not copied;
    /// `capacity` more bytes fit without regrowing it.
    package init(taking storage: inout [UInt8], capacity: Int, limit: Int = .max) {
        self.limit = limit
        swap(&bytes, &storage)
        bytes.reserveCapacity(bytes.count + capacity)
    }

    /// Over budget: the answer is dropped with its client, so a listing may stop writing records.
    /// One comparison, for loops to check per record.
    @inline(__always) package var isFull: Bool { bytes.count > limit }

    package mutating func add(_ key: String, _ value: String) {
        guard !isFull else { return }
        appendKey(key)
        let start = bytes.count
        appendUTF8(value)
        // Checked on the bytes just written, the common case costing one pass over them.
        if bytes.withUnsafeBufferPointer({ $0[start...].contains { $0 == 0x0A || $0 == 0x0D || $0 == 0 } }) {
            bytes.removeSubrange(start...)
            appendUTF8(MPDResponse.singleLine(value))
        }
        bytes.append(0x0A)
    }

    package mutating func add(_ key: String, _ value: Int) {
        guard !isFull else { return }
        appendKey(key)
        appendNumber(value)
        bytes.append(0x0A)
    }

    /// `key: A:B:C`, numbers written as `add(_:_:)` writes one (`Format: 44100:16:2`).
    package mutating func add(_ key: String, numbers: Int...) {
        guard !isFull else { return }
        appendKey(key)
        for (index, value) in numbers.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ":")) }
            appendNumber(value)
        }
        bytes.append(0x0A)
    }

    /// `key: ` and what `value` writes, then the line's end.
    package mutating func add(_ key: String, writing value: (inout MPDResponse) -> Void) {
        guard !isFull else { return }
        appendKey(key)
        value(&self)
        bytes.append(0x0A)
    }

    package mutating func append(ascii character: Unicode.Scalar) {
        bytes.append(UInt8(ascii: character))
    }

    /// A number's digits, at least `digits` of them (zeros before): no string made per number.
    package mutating func appendNumber(_ value: Int, digits: Int = 1) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var divisor: UInt = 1
        var width = 1
        while magnitude / divisor >= 10 || width < digits {
            divisor *= 10
            width += 1
        }
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
            divisor /= 10
        } while divisor > 0
    }

    /// `key: `
    private mutating func appendKey(_ key: String) {
        appendUTF8(key)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
    }

    /// A string's bytes in one copy; `bytes += text.utf8` goes through the generic sequence path.
    private mutating func appendUTF8(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes += text.utf8 }
    }

    /// `binary: N`, the bytes, then a newline, as `albumart` and `readpicture` answer.
    package mutating func addBinary(_ data: ArraySlice<UInt8>) {
        guard !isFull else { return }
        add("binary", data.count)
        bytes += data
        bytes.append(0x0A)
    }

    package mutating func append(_ other: MPDResponse) {
        guard !isFull else { return }
        bytes += other.bytes
    }

    /// Lines an `MPDResponse` wrote before, kept as bytes.
    package mutating func append(rendered: ArraySlice<UInt8>) {
        guard !isFull else { return }
        bytes += rendered
    }

    package mutating func appendLine(_ line: String) {
        guard !isFull else { return }
        appendUTF8(line)
        bytes.append(0x0A)
    }

    package var isEmpty: Bool { bytes.isEmpty }

    /// Drops everything after the first `count` bytes.
    package mutating func truncate(to count: Int) {
        bytes.removeSubrange(count...)
    }

    /// Text as one protocol line: CR, LF and NUL become spaces.
    package static func singleLine(_ text: String) -> String {
        func isBreak(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D || byte == 0 }
        let breaks = text.utf8.withContiguousStorageIfAvailable { $0.contains(where: isBreak) }
        guard breaks ?? text.utf8.contains(where: isBreak) else { return text }
        return String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" || $0 == "\0" ? " " : $0 })
    }
}
