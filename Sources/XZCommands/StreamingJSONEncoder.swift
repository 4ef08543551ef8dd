/// The `--json` output: an `Encoder` that writes compact JSON text as values arrive and hands it on in
/// pieces of about `chunkSize` bytes, so a large output never sits in memory whole. Pieces end between
/// tokens, never inside a character.
///
/// Hand-written because it encodes the largest outputs at least twice as fast as JSONEncoder
/// (`make bench-json`). Unlike JSONEncoder it writes a nil optional as null instead of leaving its key
/// out, so records print every key whether or not the value is known, without an `encode(to:)` each;
/// it writes an object's keys in the order they are encoded and a dictionary's in sorted order, so
/// output does not change from run to run; slashes and non-ASCII text are written as they are.
/// `codingPath` stays empty: nothing here reports errors by path, and building one for every value
/// cost more than the writing.
package final class StreamingJSONEncoder: Encoder {
    private var buffer: [UInt8] = []
    private let chunkSize: Int
    private let sink: (String) -> Void
    /// A value was just completed, so the next one needs a comma first.
    private var afterValue = false
    /// Open containers, innermost last; true for an object.
    private var open: [Bool] = []
    /// Values completed so far, containers included.
    private var valueCount = 0

    package init(chunkSize: Int = 1 << 16, sink: @escaping (String) -> Void) {
        self.chunkSize = chunkSize
        self.sink = sink
        buffer.reserveCapacity(min(chunkSize, 1 << 16) + 256)
    }

    /// The JSON text of `value`, in one string.
    package static func text<T: Encodable>(_ value: T) throws -> String {
        var text = ""
        let encoder = StreamingJSONEncoder(chunkSize: .max) { text += $0 }
        try encoder.encode(value)
        encoder.finish()
        return text
    }

    package func encode<T: Encodable>(_ value: T) throws {
        // The common leaves directly, by a cheap type comparison: most of a large output is these.
        if T.self == String.self { return string(value as! String) }
        if T.self == Int.self { return int(value as! Int) }
        if T.self == Int64.self { return int(value as! Int64) }
        if T.self == Bool.self { return bool(value as! Bool) }
        if T.self == Double.self { return double(value as! Double) }
        if let dictionary = value as? any StringKeyedDictionary { return try dictionary.encodeSorted(self) }
        let depth = open.count
        let count = valueCount
        try value.encode(to: self)
        close(to: depth)
        // A value that asked for no container at all, as JSONEncoder writes it.
        if valueCount == count { beginObject(); end() }
    }

    /// Hands on what is left; the encoder can go on being used afterwards.
    package func finish() {
        guard !buffer.isEmpty else { return }
        sink(String(decoding: buffer, as: UTF8.self))
        buffer.removeAll(keepingCapacity: true)
    }

    // MARK: Encoder

    package var codingPath: [CodingKey] { [] }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        beginObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, depth: open.count))
    }

    package func unkeyedContainer() -> UnkeyedEncodingContainer {
        beginArray()
        return UnkeyedContainer(encoder: self, depth: open.count)
    }

    package func singleValueContainer() -> SingleValueEncodingContainer {
        SingleValueContainer(encoder: self)
    }

    // MARK: Tokens, for output written without an Encodable value

    func beginObject() { beginValue(); buffer.append(UInt8(ascii: "{")); open.append(true); afterValue = false }
    func beginArray() { beginValue(); buffer.append(UInt8(ascii: "[")); open.append(false); afterValue = false }

    /// Closes the innermost open container.
    func end() {
        buffer.append(open.removeLast() ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        endValue()
    }

    /// Closes containers until `depth` are left open.
    fileprivate func close(to depth: Int) {
        while open.count > depth { end() }
    }

    func key(_ name: String) {
        beginValue()
        appendQuoted(name)
        buffer.append(UInt8(ascii: ":"))
        afterValue = false
    }

    func null() { beginValue(); append("null"); endValue() }
    func bool(_ value: Bool) { beginValue(); append(value ? "true" : "false"); endValue() }
    func int<T: BinaryInteger>(_ value: T) { beginValue(); append(String(value)); endValue() }

    /// Swift's shortest round-trip form; null for infinity and NaN, which JSON cannot hold.
    func double(_ value: Double) {
        guard value.isFinite else { return null() }
        beginValue()
        append(value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)")
        endValue()
    }

    func string(_ value: String) { beginValue(); appendQuoted(value); endValue() }

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

private protocol StringKeyedDictionary {
    func encodeSorted(_ encoder: StreamingJSONEncoder) throws
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Encodable {
    fileprivate func encodeSorted(_ encoder: StreamingJSONEncoder) throws {
        encoder.beginObject()
        for key in keys.sorted() {
            encoder.key(key)
            try encoder.encode(self[key]!)
        }
        encoder.end()
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: StreamingJSONEncoder
    /// The encoder's depth with this object open: entries close whatever a previous entry left open.
    let depth: Int
    var codingPath: [CodingKey] { [] }

    private func start(_ key: Key) {
        encoder.close(to: depth)
        encoder.key(key.stringValue)
    }

    private func put<T: Encodable>(_ value: T?, _ key: Key) throws {
        start(key)
        if let value { try encoder.encode(value) } else { encoder.null() }
    }

    mutating func encodeNil(forKey key: Key) throws { start(key); encoder.null() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { start(key); encoder.bool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { start(key); encoder.string(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { start(key); encoder.double(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { start(key); encoder.int(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { start(key); encoder.int(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try put(value, key) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey> {
        start(key)
        return encoder.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        start(key)
        return encoder.unkeyedContainer()
    }

    mutating func superEncoder() -> Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> Encoder {
        start(key)
        return encoder
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: StreamingJSONEncoder
    let depth: Int
    var codingPath: [CodingKey] { [] }
    private(set) var count = 0

    init(encoder: StreamingJSONEncoder, depth: Int) {
        self.encoder = encoder; self.depth = depth
    }

    private mutating func next() -> StreamingJSONEncoder {
        encoder.close(to: depth)
        count += 1
        return encoder
    }

    private mutating func put<T: Encodable>(_ value: T) throws { try next().encode(value) }

    mutating func encodeNil() throws { _ = next(); encoder.null() }
    mutating func encode<T: Encodable>(_ value: T) throws { try put(value) }
    mutating func encode(_ value: Bool) throws { _ = next(); encoder.bool(value) }
    mutating func encode(_ value: String) throws { _ = next(); encoder.string(value) }
    mutating func encode(_ value: Double) throws { _ = next(); encoder.double(value) }
    mutating func encode(_ value: Float) throws { try put(value) }
    mutating func encode(_ value: Int) throws { _ = next(); encoder.int(value) }
    mutating func encode(_ value: Int8) throws { try put(value) }
    mutating func encode(_ value: Int16) throws { try put(value) }
    mutating func encode(_ value: Int32) throws { try put(value) }
    mutating func encode(_ value: Int64) throws { _ = next(); encoder.int(value) }
    mutating func encode(_ value: UInt) throws { try put(value) }
    mutating func encode(_ value: UInt8) throws { try put(value) }
    mutating func encode(_ value: UInt16) throws { try put(value) }
    mutating func encode(_ value: UInt32) throws { try put(value) }
    mutating func encode(_ value: UInt64) throws { try put(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        next().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer { next().unkeyedContainer() }
    mutating func superEncoder() -> Encoder { next() }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let encoder: StreamingJSONEncoder
    var codingPath: [CodingKey] { [] }

    mutating func encodeNil() throws { encoder.null() }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encode(value) }
    mutating func encode(_ value: Bool) throws { encoder.bool(value) }
    mutating func encode(_ value: String) throws { encoder.string(value) }
    mutating func encode(_ value: Double) throws { encoder.double(value) }
    mutating func encode(_ value: Float) throws { try encoder.encode(value) }
    mutating func encode(_ value: Int) throws { encoder.int(value) }
    mutating func encode(_ value: Int8) throws { try encoder.encode(value) }
    mutating func encode(_ value: Int16) throws { try encoder.encode(value) }
    mutating func encode(_ value: Int32) throws { try encoder.encode(value) }
    mutating func encode(_ value: Int64) throws { encoder.int(value) }
    mutating func encode(_ value: UInt) throws { try encoder.encode(value) }
    mutating func encode(_ value: UInt8) throws { try encoder.encode(value) }
    mutating func encode(_ value: UInt16) throws { try encoder.encode(value) }
    mutating func encode(_ value: UInt32) throws { try encoder.encode(value) }
    mutating func encode(_ value: UInt64) throws { try encoder.encode(value) }
}
