/// Compact JSON text written as it is produced and handed on in pieces of about `chunkSize` bytes,
/// so that a large output never sits in memory whole. Hand-written because Foundation's serializers
/// on Linux take seconds for a few hundred thousand values. Pieces always end between tokens, never
/// inside a character.
public final class JSONWriter {
    private var buffer: [UInt8] = []
    private let chunkSize: Int
    private let sink: (String) -> Void
    /// A value was just completed, so the next one needs a comma first.
    private var afterValue = false
    /// Open containers, innermost last; true for an object.
    private var open: [Bool] = []
    /// Values completed so far, containers included.
    private(set) var valueCount = 0

    public init(chunkSize: Int = 1 << 16, sink: @escaping (String) -> Void) {
        self.chunkSize = chunkSize
        self.sink = sink
        buffer.reserveCapacity(min(chunkSize, 1 << 16) + 256)
    }

    /// The JSON text of `value`, in one string.
    public static func text<T: Encodable>(_ value: T) throws -> String {
        var text = ""
        let writer = JSONWriter(chunkSize: .max) { text += $0 }
        try writer.encode(value)
        writer.finish()
        return text
    }

    /// Writes `value` through `Encodable`; see `JSONStreamEncoder` for how it differs from JSONEncoder.
    public func encode<T: Encodable>(_ value: T) throws {
        try JSONStreamEncoder(writer: self).encodeValue(value)
    }

    /// Hands on what is left; the writer can go on being used afterwards.
    public func finish() {
        guard !buffer.isEmpty else { return }
        sink(String(decoding: buffer, as: UTF8.self))
        buffer.removeAll(keepingCapacity: true)
    }

    // MARK: Structure

    public var depth: Int { open.count }

    public func beginObject() { beginValue(); buffer.append(UInt8(ascii: "{")); open.append(true); afterValue = false }
    public func beginArray() { beginValue(); buffer.append(UInt8(ascii: "[")); open.append(false); afterValue = false }

    /// Closes the innermost open container.
    public func end() {
        buffer.append(open.removeLast() ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        endValue()
    }

    /// Closes containers until `depth` are left open.
    public func close(to depth: Int) {
        while open.count > depth { end() }
    }

    public func key(_ name: String) {
        beginValue()
        appendQuoted(name)
        buffer.append(UInt8(ascii: ":"))
        afterValue = false
    }

    // MARK: Values

    public func null() { beginValue(); append("null"); endValue() }
    public func bool(_ value: Bool) { beginValue(); append(value ? "true" : "false"); endValue() }
    public func int<T: BinaryInteger>(_ value: T) { beginValue(); append(String(value)); endValue() }

    /// Swift's shortest round-trip form; null for infinity and NaN, which JSON cannot hold.
    public func double(_ value: Double) {
        guard value.isFinite else { return null() }
        beginValue()
        append(value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)")
        endValue()
    }

    public func string(_ value: String) { beginValue(); appendQuoted(value); endValue() }

    // MARK: Bytes

    private func beginValue() {
        if afterValue { buffer.append(UInt8(ascii: ",")) }
    }

    private func endValue() {
        afterValue = true
        valueCount += 1
        if buffer.count >= chunkSize { finish() }
    }

    private func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    /// A JSON string: quote, backslash and control characters escaped, everything else (slashes and
    /// all non-ASCII text included) as it is, like JSONSerialization with `.withoutEscapingSlashes`.
    private func appendQuoted(_ text: String) {
        buffer.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                switch byte {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                case 0x08: append("\\b")
                case 0x0C: append("\\f")
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    append("\\u00")
                    buffer.append(hex[Int(byte >> 4)])
                    buffer.append(hex[Int(byte & 0xF)])
                }
                start = index + 1
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        buffer.append(UInt8(ascii: "\""))
    }
}
