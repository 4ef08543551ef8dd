import Foundation
import GRDB

/// Parses catalogue feed lines (JSON Lines, one song per line).
///
/// A hand-written scanner: a feed of a million lines spent most of its import time in JSONDecoder.
/// It accepts and rejects exactly what the Foundation decoder did, with the same messages: lenient
/// structure (trailing commas, any run of number characters in values nobody reads), values checked
/// only where a key is read, the first of duplicate keys winning. FeedLineTests compare the two.
public struct FeedLine {
    private let baseDirectory: URL?

    /// `baseDirectory` resolves the optional `audio_file` / `lyrics_file` keys of bundled feeds such
    /// as the demo library.
    public init(baseDirectory: URL?) {
        self.baseDirectory = baseDirectory
    }

    /// The song a line describes, or a message saying what is wrong with it.
    public func parse(_ bytes: Data) -> Result<SongInput, CatalogueError> {
        bytes.withUnsafeBytes { raw in parse(raw.bindMemory(to: UInt8.self)) }
    }

    func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<SongInput, CatalogueError> {
        let record: Record
        do {
            if Record.mayNotBeUTF8(bytes) {
                record = try Record(foundation: Data(buffer: bytes))
            } else {
                record = try Record(FeedObject.scan(Record.droppingUTF8BOM(bytes)))
            }
        } catch let error as CatalogueError {
            return .failure(error)
        } catch {
            return .failure(CatalogueError("\(error)"))
        }
        do {
            guard let title = record.title, !title.isEmpty else { throw CatalogueError("missing \"title\"") }
            guard let singer = record.singer, !singer.isEmpty else { throw CatalogueError("missing \"singer\"") }
            let album = record.album.flatMap { $0.isEmpty ? nil : $0 }
            let sourceId = record.sourceId ?? ""
            let key = sourceId.isEmpty ? "meta:\(singer)\u{1F}\(album ?? "")\u{1F}\(title)" : "src:\(sourceId)"
            var input = SongInput(key: key, title: title, singer: singer)
            input.album = album
            input.track = record.track.map { Int(clamping: $0) }
            input.year = record.year.map { Int(clamping: $0) }
            input.durationMs = record.durationMs.map { Int(clamping: $0) }
            input.audioURL = record.audioURL ?? ""
            input.lyricsURL = record.lyricsURL ?? ""
            input.size = record.size
            input.sha256 = (record.sha256 ?? "").lowercased()
            if let base = baseDirectory {
                input.localPath = try record.audioFile.flatMap { try Self.bundledFile($0, in: base) }
                input.lyricsPath = try record.lyricsFile.flatMap { try Self.bundledFile($0, in: base) }
            }
            return .success(input)
        } catch let error as CatalogueError {
            return .failure(error)
        } catch {
            return .failure(CatalogueError("\(error)"))
        }
    }

    /// One feed line's keys; unknown keys are ignored, numbers may also come as numeric strings.
    /// Keys are read in this order, so the first bad one names the error, as before.
    struct Record {
        var sourceId, title, singer, album, audioURL, lyricsURL, sha256, audioFile, lyricsFile: String?
        var track, year, durationMs, size: Int64?

        static let textKeys = ["source_id", "title", "singer", "album", "audio_url", "lyrics_url", "sha256",
                               "audio_file", "lyrics_file"]
        static let numberKeys = ["track", "year", "duration_ms", "size"]
        static let keys = (textKeys + numberKeys).map { Array($0.utf8) }

        init(_ object: FeedObject) throws {
            sourceId = try object.text(0, "source_id")
            title = try object.text(1, "title")
            singer = try object.text(2, "singer")
            album = try object.text(3, "album")
            audioURL = try object.text(4, "audio_url")
            lyricsURL = try object.text(5, "lyrics_url")
            sha256 = try object.text(6, "sha256")
            audioFile = try object.text(7, "audio_file")
            lyricsFile = try object.text(8, "lyrics_file")
            track = try object.number(9, "track")
            year = try object.number(10, "year")
            durationMs = try object.number(11, "duration_ms")
            size = try object.number(12, "size")
        }

        init(texts: [String?], numbers: [Int64?]) {
            (sourceId, title, singer, album, audioURL, lyricsURL, sha256, audioFile, lyricsFile) =
                (texts[0], texts[1], texts[2], texts[3], texts[4], texts[5], texts[6], texts[7], texts[8])
            (track, year, durationMs, size) = (numbers[0], numbers[1], numbers[2], numbers[3])
        }
    }

    /// A file named by a feed must stay inside the feed's own folder.
    private static func bundledFile(_ relative: String, in base: URL) throws -> String? {
        guard !relative.isEmpty else { return nil }
        let resolved = base.appendingPathComponent(relative).standardizedFileURL.path
        let root = base.standardizedFileURL.path
        guard resolved.hasPrefix(root + "/") else {
            throw CatalogueError("file \"\(relative)\" is outside the feed's folder")
        }
        return FileManager.default.fileExists(atPath: resolved) ? resolved : nil
    }
}

/// The decoder reads UTF-16 and UTF-32 too, telling them by a byte-order mark or by zero bytes
/// up front. Such a line (rare in a JSON Lines feed) still goes through the decoder, so it
/// parses exactly as it always did.
extension FeedLine.Record {
    static func mayNotBeUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        return first == 0 || first == 0xFE || first == 0xFF || (bytes.count > 1 && bytes[1] == 0)
    }

    static func droppingUTF8BOM(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF else { return bytes }
        return UnsafeBufferPointer(rebasing: bytes[3...])
    }

    init(foundation data: Data) throws {
        let decoded: Decoded
        do {
            decoded = try JSONDecoder().decode(Decoded.self, from: data)
        } catch let error as CatalogueError {
            throw error
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw CatalogueError("not a JSON object")
        } catch {
            throw FeedObject.invalid
        }
        self = decoded.record
    }

    private struct Decoded: Decodable {
        var record: FeedLine.Record

        struct Key: CodingKey {
            var stringValue: String
            init(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            func text(_ name: String) throws -> String? {
                let key = Key(stringValue: name)
                guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
                guard let value = try? c.decode(String.self, forKey: key) else {
                    throw CatalogueError("\"\(name)\" must be a string")
                }
                return value.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            func number(_ name: String) throws -> Int64? {
                let key = Key(stringValue: name)
                guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
                if let value = try? c.decode(Int64.self, forKey: key) { return value }
                if let value = try? c.decode(String.self, forKey: key), let parsed = Int64(value) { return parsed }
                throw CatalogueError("\"\(name)\" must be a whole number")
            }
            let texts = try FeedLine.Record.textKeys.map(text)
            let numbers = try FeedLine.Record.numberKeys.map(number)
            record = FeedLine.Record(texts: texts, numbers: numbers)
        }
    }
}

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

    static let invalid = CatalogueError("not valid JSON")

    /// Scans a whole line; throws "not valid JSON" or "not a JSON object" like the decoder did.
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
            throw isNull ? invalid : CatalogueError("not a JSON object")
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
                throw CatalogueError("\"\(name)\" must be a string")
            }
            return JSONText.trimmed(s)
        case .number, .other:
            throw CatalogueError("\"\(name)\" must be a string")
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
        throw CatalogueError("\"\(name)\" must be a whole number")
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

extension LibraryDatabase {
    /// Imports a catalogue feed in one transaction: bad lines are reported and skipped, and an
    /// interrupted import leaves the library as it was.
    ///
    /// Large feeds are parsed and folded on a second thread while this one writes, so the two halves
    /// of the work overlap.
    public func importFeed(at url: URL, resolveBundledFiles: Bool = false,
                           progress: ((Double) -> Void)? = nil) throws -> ImportSummary {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw CatalogueError("cannot read \(url.path): \((error as NSError).localizedDescription)")
        }
        let parser = FeedLine(baseDirectory: resolveBundledFiles ? url.deletingLastPathComponent() : nil)
        return try pool.write { db in
            var summary = ImportSummary()
            let writer = try CatalogueWriter(db)
            var lastReport = 0
            try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                let bytes = raw.bindMemory(to: UInt8.self)
                let feed = FeedBatches(bytes: bytes, parser: parser)
                func apply(_ batch: FeedBatch) throws {
                    try batch.withSongs { song, arena in
                        summary.count(try writer.upsert(song, arena: arena))
                    } failure: { line, error in
                        summary.failed += 1
                        summary.problems.append("line \(line): \(error.description)")
                    }
                    if let progress, batch.end - lastReport > 1 << 20 {
                        lastReport = batch.end
                        progress(Double(batch.end) / Double(max(bytes.count, 1)))
                    }
                }
                if bytes.count < FeedBatches.parallelThreshold {
                    var folder = SongFolder()
                    while let batch = feed.next(&folder) { try apply(batch) }
                } else {
                    try feed.pipelined(apply)
                }
            }
            for outcome in try writer.finish() { summary.count(outcome) }
            progress?(1)
            return summary
        }
    }
}

extension ImportSummary {
    mutating func count(_ outcome: CatalogueWriter.Outcome) {
        switch outcome {
        case .added: added += 1
        case .updated: updated += 1
        case .unchanged: skipped += 1
        case .deferred: break  // counted when finish() applies it
        }
    }
}

/// Lines of a feed cut into batches of parsed, folded songs.
struct FeedBatches: @unchecked Sendable {
    static let batchLines = 512
    /// Below this many bytes a second thread costs more than it saves.
    static let parallelThreshold = 1 << 20

    let bytes: UnsafeBufferPointer<UInt8>
    let parser: FeedLine
    private let cursor = Cursor()

    init(bytes: UnsafeBufferPointer<UInt8>, parser: FeedLine) {
        self.bytes = bytes
        self.parser = parser
    }

    private final class Cursor: @unchecked Sendable {
        var start = 0
        var lineNumber = 0
    }

    /// The next batch; only one thread calls this.
    func next(_ folder: inout SongFolder) -> FeedBatch? {
        guard cursor.start < bytes.count else { return nil }
        var batch = FeedBatch()
        var start = cursor.start
        var lineNumber = cursor.lineNumber
        let base = bytes.baseAddress!
        while start < bytes.count && batch.count < Self.batchLines {
            let rest = bytes.count - start
            let newline = memchr(base + start, 0x0A, rest)
            let end = newline.map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - base } ?? bytes.count
            lineNumber += 1
            var lineEnd = end
            if lineEnd > start && bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            var blank = true
            for k in start..<lineEnd where bytes[k] != 0x20 && bytes[k] != 0x09 {
                blank = false
                break
            }
            if !blank {
                switch parser.parse(UnsafeBufferPointer(rebasing: bytes[start..<lineEnd])) {
                case .success(let input): batch.append(folder.prepare(input, arena: &batch.arena))
                case .failure(let error): batch.fail(line: lineNumber, error)
                }
            }
            start = end + 1
        }
        cursor.start = start
        cursor.lineNumber = lineNumber
        batch.end = min(start, bytes.count)
        return batch
    }

    /// Parses on a second thread, a few batches ahead of `consume` on this one.
    func pipelined(_ consume: (FeedBatch) throws -> Void) throws {
        let queue = BatchQueue(capacity: 4)
        let done = DispatchSemaphore(value: 0)
        let feed = self
        Thread.detachNewThread {
            var folder = SongFolder()
            while !queue.isCancelled, let batch = feed.next(&folder) {
                queue.put(batch)
            }
            queue.finish()
            done.signal()
        }
        defer {
            queue.cancel()
            done.wait()
        }
        while let batch = queue.take() {
            try consume(batch)
        }
    }
}

/// A bounded hand-off between the parsing thread and the writer.
private final class BatchQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [FeedBatch] = []
    private var finished = false
    private var cancelled = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    func put(_ batch: FeedBatch) {
        condition.lock()
        while items.count >= capacity && !cancelled { condition.wait() }
        if !cancelled { items.append(batch) }
        condition.broadcast()
        condition.unlock()
    }

    func take() -> FeedBatch? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !finished { condition.wait() }
        guard !items.isEmpty else { return nil }
        let batch = items.removeFirst()
        condition.broadcast()
        return batch
    }

    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// The writer failed or returned: the parser stops at its next batch.
    func cancel() {
        condition.lock()
        cancelled = true
        items.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}

/// Parsed songs and failures of consecutive lines, in line order.
struct FeedBatch: @unchecked Sendable {
    enum Entry {
        case song(PreparedSong)
        case failure(line: Int, CatalogueError)
    }

    var entries: [Entry] = []
    /// The folded keys and search documents of the batch's songs.
    var arena: [UInt8] = []
    /// Byte offset in the feed where the batch ends, for progress.
    var end = 0

    var count: Int { entries.count }

    mutating func append(_ song: PreparedSong) { entries.append(.song(song)) }
    mutating func fail(line: Int, _ error: CatalogueError) { entries.append(.failure(line: line, error)) }

    func withSongs(_ body: (PreparedSong, UnsafeBufferPointer<UInt8>) throws -> Void,
                   failure: (Int, CatalogueError) -> Void) throws {
        try arena.withUnsafeBufferPointer { arena in
            for entry in entries {
                switch entry {
                case .song(let song): try body(song, arena)
                case .failure(let line, let error): failure(line, error)
                }
            }
        }
    }
}
