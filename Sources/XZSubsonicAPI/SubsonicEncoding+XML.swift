import Foundation

/// Subsonic's XML from any `Encodable`: every scalar field is an attribute, every object (and every item of
/// an array) a child element named by its key, a `SubsonicXMLText` type's text field the element's text.
/// Written here because XMLCoder marks attributes per key of each type, not "every scalar" for all types.
enum SubsonicXMLEncoder {
    /// The whole document: the declaration, then `value` as the root element.
    static func document(_ value: some Encodable, rootName: String, rootAttributes: [(String, String)]) throws -> [UInt8] {
        let root = XMLTreeNode()
        try value.encode(to: XMLTreeEncoder(node: root, codingPath: []))
        var out = Array(#"<?xml version="1.0" encoding="UTF-8"?>"#.utf8)
        out.append(UInt8(ascii: "\n"))
        write(root, name: rootName, extraAttributes: rootAttributes, into: &out)
        return out
    }

    private static func write(_ node: XMLTreeNode, name: String, extraAttributes: [(String, String)] = [],
                              into out: inout [UInt8]) {
        out.append(UInt8(ascii: "<"))
        out += name.utf8
        for (key, value) in extraAttributes { appendAttribute(key, value, into: &out) }
        var text: String?
        var children: [(String, XMLTreeNode)] = []
        switch node.kind {
        case .scalar(let value):
            text = value
        case .keyed:
            for (key, child) in node.fields {
                switch child.kind {
                case .scalar(let value):
                    if key == node.textKey { text = value } else { appendAttribute(key, value, into: &out) }
                case .keyed: children.append((key, child))
                case .unkeyed: children += child.flattenedItems.map { (key, $0) }
                case .empty: break
                }
            }
        case .unkeyed:
            children = node.flattenedItems.map { (name, $0) }
        case .empty:
            break
        }
        guard text != nil || !children.isEmpty else {
            out += "/>".utf8
            return
        }
        out.append(UInt8(ascii: ">"))
        if let text { appendEscaped(text, into: &out, inAttribute: false) }
        for (key, child) in children { write(child, name: key, into: &out) }
        out += "</".utf8
        out += name.utf8
        out.append(UInt8(ascii: ">"))
    }

    private static func appendAttribute(_ key: String, _ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: " "))
        out += key.utf8
        out += "=\"".utf8
        appendEscaped(value, into: &out, inAttribute: true)
        out.append(UInt8(ascii: "\""))
    }

    /// Markup escaped; in an attribute, tabs and line breaks as references so a parser keeps them; what
    /// XML 1.0 forbids (other control characters, U+FFFE, U+FFFF) left out.
    private static func appendEscaped(_ text: String, into out: inout [UInt8], inAttribute: Bool) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;".utf8
            case "<": out += "&lt;".utf8
            case ">": out += "&gt;".utf8
            case "\"" where inAttribute: out += "&quot;".utf8
            case "\t" where inAttribute: out += "&#9;".utf8
            case "\n" where inAttribute: out += "&#10;".utf8
            case "\r": out += "&#13;".utf8
            default:
                guard isAllowed(scalar) else { continue }
                out += String(scalar).utf8
            }
        }
    }

    /// XML 1.0's Char production.
    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: true
        case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    /// `text` without the characters XML 1.0 forbids.
    static func strippingForbidden(_ text: String) -> String {
        guard !text.unicodeScalars.allSatisfy(isAllowed) else { return text }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.filter(isAllowed))
        return String(scalars)
    }
}

/// What one value encoded to: nothing (nil), a scalar's text, fields by key, or items.
final class XMLTreeNode {
    enum Kind {
        case empty
        case scalar(String)
        case keyed
        case unkeyed
    }

    var kind = Kind.empty
    /// Fields in the order encoded; a key written twice keeps its first place and its last value.
    private(set) var fields: [(key: String, node: XMLTreeNode)] = []
    private var fieldIndex: [String: Int] = [:]
    var items: [XMLTreeNode] = []
    /// The field written as the element's text (`SubsonicXMLText`).
    var textKey: String?

    func child(for key: String) -> XMLTreeNode {
        let node = XMLTreeNode()
        if let index = fieldIndex[key] {
            fields[index].node = node
        } else {
            fieldIndex[key] = fields.count
            fields.append((key, node))
        }
        return node
    }

    func appendItem() -> XMLTreeNode {
        let node = XMLTreeNode()
        items.append(node)
        return node
    }

    /// Items with nested arrays spread out, as an element repeats once per item.
    var flattenedItems: [XMLTreeNode] {
        items.flatMap { item -> [XMLTreeNode] in
            if case .unkeyed = item.kind { return item.flattenedItems }
            if case .empty = item.kind { return [] }
            return [item]
        }
    }

    func becomeKeyed() {
        if case .keyed = kind { return }
        kind = .keyed
    }

    func becomeUnkeyed() {
        if case .unkeyed = kind { return }
        kind = .unkeyed
    }
}

/// Scalars as Subsonic's XML writes them.
private enum XMLScalar {
    static func text(_ value: Bool) -> String { value ? "true" : "false" }
    static func text(_ value: Double) -> String { value.isFinite ? String(value) : "0" }
    static func text(_ value: Float) -> String { value.isFinite ? String(value) : "0" }
}

/// Encodes `value` into `node`: a scalar directly, anything else through its own `encode(to:)`.
private func encodeValue<T: Encodable>(_ value: T, into node: XMLTreeNode, codingPath: [any CodingKey]) throws {
    switch value {
    case let text as String: node.kind = .scalar(text)
    case let flag as Bool: node.kind = .scalar(XMLScalar.text(flag))
    case let number as Double: node.kind = .scalar(XMLScalar.text(number))
    case let number as Float: node.kind = .scalar(XMLScalar.text(number))
    case let number as any BinaryInteger: node.kind = .scalar(String(describing: number))
    case let url as URL: node.kind = .scalar(url.absoluteString)
    default:
        try value.encode(to: XMLTreeEncoder(node: node, codingPath: codingPath))
        if let texted = value as? any SubsonicXMLText {
            node.textKey = type(of: texted).xmlTextKey
        }
    }
}

private struct XMLTreeEncoder: Encoder {
    let node: XMLTreeNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeKeyed()
        return KeyedEncodingContainer(XMLKeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeUnkeyed()
        return XMLUnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        XMLSingleValueContainer(node: node, codingPath: codingPath)
    }
}

private struct XMLKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: XMLTreeNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {}

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encodeValue(value, into: node.child(for: key.stringValue), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = node.child(for: key.stringValue)
        child.becomeKeyed()
        return KeyedEncodingContainer(XMLKeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.child(for: key.stringValue)
        child.becomeUnkeyed()
        return XMLUnkeyedContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        XMLTreeEncoder(node: node.child(for: "super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        XMLTreeEncoder(node: node.child(for: key.stringValue), codingPath: codingPath + [key])
    }
}

private struct XMLUnkeyedContainer: UnkeyedEncodingContainer {
    let node: XMLTreeNode
    let codingPath: [any CodingKey]
    var count: Int { node.items.count }

    private struct Index: CodingKey {
        var intValue: Int?
        var stringValue: String { intValue.map(String.init) ?? "" }
        init(_ index: Int) { intValue = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    mutating func encodeNil() throws { _ = node.appendItem() }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = codingPath + [Index(count)]
        try encodeValue(value, into: node.appendItem(), codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = codingPath + [Index(count)]
        let item = node.appendItem()
        item.becomeKeyed()
        return KeyedEncodingContainer(XMLKeyedContainer<NestedKey>(node: item, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = codingPath + [Index(count)]
        let item = node.appendItem()
        item.becomeUnkeyed()
        return XMLUnkeyedContainer(node: item, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        XMLTreeEncoder(node: node.appendItem(), codingPath: codingPath + [Index(count)])
    }
}

private struct XMLSingleValueContainer: SingleValueEncodingContainer {
    let node: XMLTreeNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.kind = .empty }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encodeValue(value, into: node, codingPath: codingPath)
    }
}
