/// An `Encoder` that writes straight into a `JSONWriter`, one value after another. Unlike JSONEncoder
/// it writes a nil optional as null instead of leaving its key out, so records print every key
/// whether or not the value is known, without a hand-written `encode(to:)` each; and it writes a
/// dictionary's keys in sorted order, so output does not change from run to run. `codingPath` stays
/// empty: nothing here reports errors by path, and building one for every value cost more than the writing.
struct JSONStreamEncoder: Encoder {
    let writer: JSONWriter
    var codingPath: [CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func encodeValue<T: Encodable>(_ value: T) throws {
        // The common leaves directly, by a cheap type comparison: most of a large output is these.
        if T.self == String.self { return writer.string(value as! String) }
        if T.self == Int.self { return writer.int(value as! Int) }
        if T.self == Int64.self { return writer.int(value as! Int64) }
        if T.self == Bool.self { return writer.bool(value as! Bool) }
        if T.self == Double.self { return writer.double(value as! Double) }
        if let dictionary = value as? any StringKeyedDictionary { return try dictionary.encodeSorted(self) }
        let depth = writer.depth
        let count = writer.valueCount
        try value.encode(to: self)
        writer.close(to: depth)
        // A value that asked for no container at all, as JSONEncoder writes it.
        if writer.valueCount == count { writer.beginObject(); writer.end() }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        writer.beginObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, depth: writer.depth))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        writer.beginArray()
        return UnkeyedContainer(encoder: self, depth: writer.depth)
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        SingleValueContainer(encoder: self)
    }
}

private protocol StringKeyedDictionary {
    func encodeSorted(_ encoder: JSONStreamEncoder) throws
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Encodable {
    fileprivate func encodeSorted(_ encoder: JSONStreamEncoder) throws {
        encoder.writer.beginObject()
        for key in keys.sorted() {
            encoder.writer.key(key)
            try encoder.encodeValue(self[key]!)
        }
        encoder.writer.end()
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JSONStreamEncoder
    /// The writer's depth with this object open: entries close whatever a previous entry left open.
    let depth: Int
    var codingPath: [CodingKey] { [] }

    private func start(_ key: Key) {
        encoder.writer.close(to: depth)
        encoder.writer.key(key.stringValue)
    }

    private func put<T: Encodable>(_ value: T?, _ key: Key) throws {
        start(key)
        if let value { try encoder.encodeValue(value) } else { encoder.writer.null() }
    }

    mutating func encodeNil(forKey key: Key) throws { start(key); encoder.writer.null() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { start(key); encoder.writer.bool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { start(key); encoder.writer.string(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { start(key); encoder.writer.double(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { start(key); encoder.writer.int(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { start(key); encoder.writer.int(value) }
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
    let encoder: JSONStreamEncoder
    let depth: Int
    var codingPath: [CodingKey] { [] }
    private(set) var count = 0

    init(encoder: JSONStreamEncoder, depth: Int) {
        self.encoder = encoder; self.depth = depth
    }

    private mutating func next() -> JSONStreamEncoder {
        encoder.writer.close(to: depth)
        count += 1
        return encoder
    }

    private mutating func put<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }

    mutating func encodeNil() throws { _ = next(); encoder.writer.null() }
    mutating func encode<T: Encodable>(_ value: T) throws { try put(value) }
    mutating func encode(_ value: Bool) throws { _ = next(); encoder.writer.bool(value) }
    mutating func encode(_ value: String) throws { _ = next(); encoder.writer.string(value) }
    mutating func encode(_ value: Double) throws { _ = next(); encoder.writer.double(value) }
    mutating func encode(_ value: Float) throws { try put(value) }
    mutating func encode(_ value: Int) throws { _ = next(); encoder.writer.int(value) }
    mutating func encode(_ value: Int8) throws { try put(value) }
    mutating func encode(_ value: Int16) throws { try put(value) }
    mutating func encode(_ value: Int32) throws { try put(value) }
    mutating func encode(_ value: Int64) throws { _ = next(); encoder.writer.int(value) }
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
    let encoder: JSONStreamEncoder
    var codingPath: [CodingKey] { [] }

    mutating func encodeNil() throws { encoder.writer.null() }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
    mutating func encode(_ value: Bool) throws { encoder.writer.bool(value) }
    mutating func encode(_ value: String) throws { encoder.writer.string(value) }
    mutating func encode(_ value: Double) throws { encoder.writer.double(value) }
    mutating func encode(_ value: Float) throws { try encoder.encodeValue(value) }
    mutating func encode(_ value: Int) throws { encoder.writer.int(value) }
    mutating func encode(_ value: Int8) throws { try encoder.encodeValue(value) }
    mutating func encode(_ value: Int16) throws { try encoder.encodeValue(value) }
    mutating func encode(_ value: Int32) throws { try encoder.encodeValue(value) }
    mutating func encode(_ value: Int64) throws { encoder.writer.int(value) }
    mutating func encode(_ value: UInt) throws { try encoder.encodeValue(value) }
    mutating func encode(_ value: UInt8) throws { try encoder.encodeValue(value) }
    mutating func encode(_ value: UInt16) throws { try encoder.encodeValue(value) }
    mutating func encode(_ value: UInt32) throws { try encoder.encodeValue(value) }
    mutating func encode(_ value: UInt64) throws { try encoder.encodeValue(value) }
}
