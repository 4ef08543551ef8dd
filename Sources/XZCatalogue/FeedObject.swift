import Foundation

/// The top-level object of one feed line: where each known key's value lies.
struct FeedObject {
    enum Value {
        case null
        case string(Range<Int>, simple: Bool)
        case number(Range<Int>)
        case other
    }

    let bytes: UnsafeBufferPointer<UInt8>
    /// By slot of `FeedLine.Record.keys`; the first occurrence of a key wins.
    var values: [Value?]

    static let invalid = CatalogueError.badFeedLine("not valid JSON")

    /// Scans a whole line; throws "not valid JSON" or "not a JSON object" where JSONDecoder fails.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) throws -> FeedObject {
        var scanner = JSONScanner(bytes: bytes)
        var object = FeedObject(bytes: bytes, values: Array(repeating: nil, count: FeedLine.Record.keys.count))
        guard let first = scanner.skipWhitespace() else { throw invalid }
        if first == UInt8(ascii: "{") {
            try scanner.scanObject { key, value in
                // Every key of the top-level object is decoded, so a bad one fails the line.
                guard let slot = try FeedObject.slot(of: key, simple: value.keySimple, in: bytes) else { return }
                if object.values[slot] == nil { object.values[slot] = value.value }
            }
        } else {
            let isNull = first == UInt8(ascii: "n")
            try scanner.skipValue()
            guard scanner.skipWhitespace() == nil else { throw invalid }
            throw isNull ? invalid : CatalogueError.badFeedLine("not a JSON object")
        }
        guard scanner.skipWhitespace() == nil else { throw invalid }
        return object
    }

    private static func slot(of key: Range<Int>, simple: Bool, in bytes: UnsafeBufferPointer<UInt8>) throws -> Int? {
        let name: [UInt8]
        if simple {
            guard JSONText.isValidUTF8(bytes, key) else { throw invalid }
            let length = key.count
            // Known keys are short ASCII: compare in place.
            for (slot, candidate) in FeedLine.Record.keys.enumerated() where candidate.count == length {
                var same = true
                for k in 0..<length where bytes[key.lowerBound + k] != candidate[k] {
                    same = false
                    break
                }
                if same { return slot }
            }
            return nil
        } else {
            guard let decoded = JSONText.decode(bytes, key) else { throw invalid }
            name = decoded
        }
        return FeedLine.Record.keys.firstIndex(of: name)
    }

    func text(_ slot: Int, _ name: String) throws -> String? {
        guard let value = values[slot] else { return nil }
        switch value {
        case .null:
            return nil
        case .string(let range, let simple):
            guard let s = JSONText.string(bytes, range, simple: simple) else {
                throw CatalogueError.badFeedLine("\"\(name)\" must be a string")
            }
            return JSONText.trimmed(s)
        case .number, .other:
            throw CatalogueError.badFeedLine("\"\(name)\" must be a string")
        }
    }

    func number(_ slot: Int, _ name: String) throws -> Int64? {
        guard let value = values[slot] else { return nil }
        switch value {
        case .null:
            return nil
        case .number(let range):
            if let n = JSONText.wholeNumber(bytes, range) { return n }
        case .string(let range, let simple):
            if let s = JSONText.string(bytes, range, simple: simple), let n = Int64(s) { return n }
        case .other:
            break
        }
        throw CatalogueError.badFeedLine("\"\(name)\" must be a whole number")
    }
}

/// The structural scan: as lenient as Foundation's scanner, and no stricter.
struct JSONScanner {
    struct Member {
        var keySimple: Bool
        var value: FeedObject.Value
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0
    var depth = 0
    static let maxDepth = 512

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")

    /// Skips JSON whitespace; the next byte, nil at the end.
    mutating func skipWhitespace() -> UInt8? {
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { i += 1 } else { return b }
        }
        return nil
    }

    private mutating func next() throws -> UInt8 {
        guard let b = skipWhitespace() else { throw FeedObject.invalid }
        return b
    }

    /// The top-level object, reporting each member's key range and value.
    mutating func scanObject(_ member: (Range<Int>, Member) throws -> Void) throws {
        i += 1  // "{"
        depth = 1
        if try next() == UInt8(ascii: "}") {
            i += 1
            return
        }
        while true {
            guard try next() == Self.quote else { throw FeedObject.invalid }
            let (key, keySimple) = try scanString()
            guard try next() == UInt8(ascii: ":") else { throw FeedObject.invalid }
            i += 1
            let value = try scanValue()
            try member(key, Member(keySimple: keySimple, value: value))
            if try endOfMember(close: UInt8(ascii: "}")) { return }
        }
    }

    /// After a member or element: "," (a trailing one allowed) or the closing bracket.
    private mutating func endOfMember(close: UInt8) throws -> Bool {
        let b = try next()
        if b == close {
            i += 1
            return true
        }
        guard b == UInt8(ascii: ",") else { throw FeedObject.invalid }
        i += 1
        if try next() == close {
            i += 1
            return true
        }
        return false
    }

    mutating func skipValue() throws {
        _ = try scanValue()
    }

    private mutating func scanValue() throws -> FeedObject.Value {
        let b = try next()
        switch b {
        case Self.quote:
            let (range, simple) = try scanString()
            return .string(range, simple: simple)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            try scanContainer(close: b == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]"))
            return .other
        case UInt8(ascii: "t"):
            try literal("true")
            return .other
        case UInt8(ascii: "f"):
            try literal("false")
            return .other
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = i
            i += 1
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"),
                     UInt8(ascii: "e"), UInt8(ascii: "E"):
                    i += 1
                    continue
                default:
                    break
                }
                break
            }
            return .number(start..<i)
        default:
            throw FeedObject.invalid
        }
    }

    private mutating func scanContainer(close: UInt8) throws {
        guard depth < Self.maxDepth else { throw FeedObject.invalid }
        depth += 1
        defer { depth -= 1 }
        let isObject = close == UInt8(ascii: "}")
        i += 1
        if try next() == close {
            i += 1
            return
        }
        while true {
            if isObject {
                guard try next() == Self.quote else { throw FeedObject.invalid }
                _ = try scanString()
                guard try next() == UInt8(ascii: ":") else { throw FeedObject.invalid }
                i += 1
            }
            _ = try scanValue()
            if try endOfMember(close: close) { return }
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard bytes.count - i >= count else { throw FeedObject.invalid }
        let p = word.utf8Start
        for k in 0..<count where bytes[i + k] != p[k] { throw FeedObject.invalid }
        i += count
    }

    /// A string's contents (without quotes) and whether it needs no unescaping. Escapes and control
    /// characters are only checked when the value is read, as Foundation does; "\u" needs four
    /// more bytes, none of them a quote.
    private mutating func scanString() throws -> (Range<Int>, Bool) {
        i += 1
        let start = i
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b == Self.quote {
                i += 1
                return (start..<(i - 1), true)
            }
            if b == Self.backslash || b < 0x20 { break }
            i += 1
        }
        while i < n {
            let b = bytes[i]
            if b == Self.quote {
                i += 1
                return (start..<(i - 1), false)
            }
            if b == Self.backslash {
                i += 1
                guard i < n else { throw FeedObject.invalid }
                let escaped = bytes[i]
                i += 1
                if escaped == UInt8(ascii: "u") {
                    guard n - i >= 4 else { throw FeedObject.invalid }
                    for k in 0..<4 where bytes[i + k] == Self.quote { throw FeedObject.invalid }
                    i += 4
                }
            } else {
                i += 1
            }
        }
        throw FeedObject.invalid
    }
}

