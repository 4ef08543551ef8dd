import Foundation

/// Folds names for search: lower case, no diacritics, half width, simplified Chinese, katakana as
/// hiragana; Han characters also carry toneless pinyin. The same folding builds the index and the
/// query, so both sides always agree.
public enum SearchText {
    public enum Token: Equatable, Sendable {
        /// A run of letters and digits in an alphabetic script.
        case word(String)
        /// One CJK character (Han, kana or Hangul), indexed on its own so fragments of any length match.
        case ideograph(String, pinyin: String?)
    }

    public struct Analysis: Sendable {
        public let tokens: [Token]
        /// Every token run together: "周杰伦", "bohemianrhapsody".
        public var key: String { tokens.map(\.text).joined() }
        /// Han characters replaced by their pinyin: "zhoujielun".
        public var pinyin: String { tokens.map(\.spelling).joined() }
        /// First letter of every word and Han syllable: "zjl", "qotsa"; empty unless there are two.
        public var initials: String {
            let letters = tokens.compactMap { token -> Character? in
                switch token {
                case .word(let w): return w.first
                case .ideograph(_, let pinyin): return pinyin?.first
                }
            }
            return letters.count < 2 ? "" : String(letters)
        }
        public var hasHan: Bool { tokens.contains { if case .ideograph(_, .some) = $0 { return true } else { return false } } }
    }

    public static func analyze(_ text: String) -> Analysis {
        var field = FoldedField()
        field.fold(text)
        return Analysis(tokens: field.tokens.indices.map { field.token($0) })
    }

    /// The FTS5 document for one or more fields: the words, each CJK character with the one after
    /// it ("周杰 杰伦 伦"), then for each Han run its syllables, run-together suffixes ("zhoujielun",
    /// "jielun") and initials ("zjl", "jl").
    public static func document(_ fields: [String]) -> String {
        var field = FoldedField()
        var out: [UInt8] = []
        for text in fields {
            field.fold(text)
            field.appendDocument(to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The FTS5 MATCH expression for what a user typed: every word must match (the last as a prefix),
    /// CJK runs as phrases of character pairs, a lone CJK character as the prefix of a pair. Each
    /// term is quoted and holds only letters and digits, so nothing the user types can act as FTS
    /// syntax. Nil when the query has nothing searchable.
    public static func matchExpression(_ query: String) -> String? {
        QueryTerms(query)?.expression(lastAsPrefix: true)
    }

    /// Index letter A-Z for a name (pinyin for Han), "#" otherwise.
    public static func firstLetter(_ analysis: Analysis) -> String {
        guard let first = analysis.tokens.first?.spelling.unicodeScalars.first,
              first.value >= 0x61, first.value <= 0x7A else { return "#" }
        return String(first).uppercased()
    }

    static let maxSuffixSyllables = 8

    // MARK: Per-character folding

    enum Folded: Sendable {
        case separator
        case letters(String)
        case ideograph(String, pinyin: String?)
    }

    /// Folds one scalar without the shared table (the table is filled from here).
    static func fold(_ scalar: Unicode.Scalar) -> Folded {
        let v = scalar.value
        if v < 0x80 {
            switch v {
            case 0x61...0x7A, 0x30...0x39: return .letters(String(scalar))
            case 0x41...0x5A: return .letters(String(Unicode.Scalar(UInt8(v + 0x20))))
            default: return .separator
            }
        }
        return foldUncached(scalar)
    }

    private static func isHan(_ v: UInt32) -> Bool {
        (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xF900...0xFAFF).contains(v)
            || (0x20000...0x3134F).contains(v)
    }

    private static func isKanaOrHangul(_ v: UInt32) -> Bool {
        (0x3041...0x30FF).contains(v) || (0x31F0...0x31FF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0x1100...0x11FF).contains(v) || (0x3130...0x318F).contains(v)
    }

    private static func foldUncached(_ scalar: Unicode.Scalar) -> Folded {
        let v = scalar.value
        if isHan(v) {
            let text = String(scalar)
            let simplified = text.applyingTransform(StringTransform("Hant-Hans"), reverse: false) ?? text
            let latin = simplified.applyingTransform(StringTransform("Han-Latin"), reverse: false) ?? ""
            let pinyin = String(String.UnicodeScalarView(
                (latin.applyingTransform(.stripDiacritics, reverse: false) ?? latin)
                    .lowercased().unicodeScalars.filter { $0.value >= 0x61 && $0.value <= 0x7A }))
            return .ideograph(simplified, pinyin: pinyin.isEmpty ? nil : pinyin)
        }
        if (0x30A1...0x30F6).contains(v), let hiragana = Unicode.Scalar(v - 0x60) {
            return .ideograph(String(hiragana), pinyin: nil)
        }
        if isKanaOrHangul(v) {
            return scalar.properties.isAlphabetic ? .ideograph(String(scalar), pinyin: nil) : .separator
        }
        // Compatibility forms (fullwidth Latin, halfwidth kana, ligatures) first, then per-scalar rules.
        let compatible = String(scalar).precomposedStringWithCompatibilityMapping
        if compatible.unicodeScalars.count != 1 || compatible.unicodeScalars.first != scalar {
            var letters = ""
            for s in compatible.unicodeScalars {
                switch fold(s) {
                case .letters(let l): letters += l
                case .ideograph(let c, let p): return letters.isEmpty ? .ideograph(c, pinyin: p) : .letters(letters)
                case .separator: continue
                }
            }
            return letters.isEmpty ? .separator : .letters(letters)
        }
        let isLetterOrDigit = scalar.properties.isAlphabetic || scalar.properties.numericType != nil
        guard isLetterOrDigit else { return .separator }
        let isLatin = (0x80...0x24F).contains(v) || (0x1E00...0x1EFF).contains(v)
        let ascii = isLatin
            ? (String(scalar).applyingTransform(StringTransform("Latin-ASCII"), reverse: false) ?? String(scalar))
            : String(String.UnicodeScalarView(String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
                .filter { $0.properties.generalCategory != .nonspacingMark }))
        let lowered = ascii.lowercased().unicodeScalars.filter {
            $0.properties.isAlphabetic || $0.properties.numericType != nil
        }
        return lowered.isEmpty ? .separator : .letters(String(String.UnicodeScalarView(lowered)))
    }

    // MARK: Shared table of folded non-ASCII scalars

    /// What one non-ASCII scalar folds to, as UTF-8 in `FoldTable.bytes`.
    struct FoldEntry {
        static let separator: UInt8 = 0, letters: UInt8 = 1, ideograph: UInt8 = 2
        var kind: UInt8
        var textStart: Int32
        var textEnd: Int32
        var pinyinEnd: Int32   // pinyin is bytes[textEnd..<pinyinEnd]; empty when there is none
    }

    /// Readers take a snapshot (copy-on-write arrays, so no lock while folding); a miss computes the
    /// scalar through ICU once and publishes it for every thread.
    struct FoldTable {
        var bmp = [Int32](repeating: -1, count: 0x10000)
        var astral: [UInt32: Int32] = [:]
        var entries: [FoldEntry] = []
        var bytes: [UInt8] = []

        func index(_ v: UInt32) -> Int32 {
            v < 0x10000 ? bmp[Int(v)] : (astral[v] ?? -1)
        }
    }

    private static let tableLock = NSLock()
    nonisolated(unsafe) private static var sharedTable = FoldTable()

    static func tableSnapshot() -> FoldTable {
        tableLock.lock()
        defer { tableLock.unlock() }
        return sharedTable
    }

    /// Folds `v` and stores it in the shared table; returns its entry index.
    static func learn(_ v: UInt32) -> Int32 {
        let folded = Unicode.Scalar(v).map(foldUncached) ?? .separator
        tableLock.lock()
        defer { tableLock.unlock() }
        let known = sharedTable.index(v)
        if known >= 0 { return known }
        var entry = FoldEntry(kind: FoldEntry.separator, textStart: Int32(sharedTable.bytes.count),
                              textEnd: Int32(sharedTable.bytes.count), pinyinEnd: Int32(sharedTable.bytes.count))
        switch folded {
        case .separator:
            break
        case .letters(let s):
            entry.kind = FoldEntry.letters
            sharedTable.bytes.append(contentsOf: s.utf8)
        case .ideograph(let c, let pinyin):
            entry.kind = FoldEntry.ideograph
            sharedTable.bytes.append(contentsOf: c.utf8)
            entry.textEnd = Int32(sharedTable.bytes.count)
            sharedTable.bytes.append(contentsOf: (pinyin ?? "").utf8)
        }
        if entry.kind == FoldEntry.letters { entry.textEnd = Int32(sharedTable.bytes.count) }
        entry.pinyinEnd = Int32(sharedTable.bytes.count)
        let index = Int32(sharedTable.entries.count)
        sharedTable.entries.append(entry)
        if v < 0x10000 { sharedTable.bmp[Int(v)] = index } else { sharedTable.astral[v] = index }
        return index
    }
}

extension SearchText.Token {
    /// The folded text as indexed.
    public var text: String {
        switch self {
        case .word(let w): return w
        case .ideograph(let c, _): return c
        }
    }

    /// Pinyin for Han, the text itself otherwise.
    public var spelling: String {
        switch self {
        case .word(let w): return w
        case .ideograph(let c, let pinyin): return pinyin ?? c
        }
    }
}

/// One field folded into UTF-8 tokens, reusable without allocating per field. This is the hot path of
/// an import: ASCII folds inline, other scalars come from the shared table.
struct FoldedField {
    struct Token {
        var start: Int32, end: Int32             // the folded text: text[start..<end]
        var pinyinStart: Int32, pinyinEnd: Int32 // Han pinyin: pinyin[pinyinStart..<pinyinEnd], empty if none
        var isIdeograph: Bool
        /// An ideograph folded right after another one, with nothing between: the same CJK phrase in a query.
        var continuesRun: Bool
        var hasPinyin: Bool { pinyinEnd > pinyinStart }
    }

    /// Every token's text back to back, which is also the folded key.
    private(set) var text: [UInt8] = []
    private(set) var tokens: [Token] = []
    private(set) var pinyin: [UInt8] = []
    private var table: SearchText.FoldTable?

    init() {}

    mutating func fold(_ string: String) {
        var string = string
        string.withUTF8 { fold(utf8: $0) }
    }

    mutating func fold(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        text.removeAll(keepingCapacity: true)
        tokens.removeAll(keepingCapacity: true)
        pinyin.removeAll(keepingCapacity: true)
        var wordStart: Int32 = -1
        var lastWasIdeograph = false
        var i = 0
        let count = bytes.count
        while i < count {
            let b = bytes[i]
            if b < 0x80 {
                i += 1
                if b >= 0x61 && b <= 0x7A || b >= 0x30 && b <= 0x39 || b >= 0x41 && b <= 0x5A {
                    if wordStart < 0 { wordStart = Int32(text.count) }
                    text.append(b >= 0x41 && b <= 0x5A ? b + 0x20 : b)
                    lastWasIdeograph = false
                } else {
                    endWord(&wordStart)
                    lastWasIdeograph = false
                }
                continue
            }
            // Multi-byte scalar: the string is valid UTF-8.
            var v: UInt32
            if b < 0xE0 {
                v = UInt32(b & 0x1F) << 6 | UInt32(bytes[i + 1] & 0x3F)
                i += 2
            } else if b < 0xF0 {
                v = UInt32(b & 0x0F) << 12 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F)
                i += 3
            } else {
                v = UInt32(b & 0x07) << 18 | UInt32(bytes[i + 1] & 0x3F) << 12
                    | UInt32(bytes[i + 2] & 0x3F) << 6 | UInt32(bytes[i + 3] & 0x3F)
                i += 4
            }
            if table == nil { table = SearchText.tableSnapshot() }
            var index = table!.index(v)
            if index < 0 {
                table = nil  // drop the snapshot so publishing does not copy the table
                index = SearchText.learn(v)
                table = SearchText.tableSnapshot()
            }
            let entry = table!.entries[Int(index)]
            switch entry.kind {
            case SearchText.FoldEntry.letters:
                if wordStart < 0 { wordStart = Int32(text.count) }
                appendTable(entry.textStart, entry.textEnd, to: &text)
                lastWasIdeograph = false
            case SearchText.FoldEntry.ideograph:
                endWord(&wordStart)
                let start = Int32(text.count)
                appendTable(entry.textStart, entry.textEnd, to: &text)
                let pinyinStart = Int32(pinyin.count)
                appendTable(entry.textEnd, entry.pinyinEnd, to: &pinyin)
                tokens.append(Token(start: start, end: Int32(text.count), pinyinStart: pinyinStart,
                                    pinyinEnd: Int32(pinyin.count), isIdeograph: true,
                                    continuesRun: lastWasIdeograph))
                lastWasIdeograph = true
            default:
                endWord(&wordStart)
                lastWasIdeograph = false
            }
        }
        endWord(&wordStart)
        // Hold no snapshot between fields, so another thread's lookup miss never copies the table.
        table = nil
    }

    private func appendTable(_ start: Int32, _ end: Int32, to out: inout [UInt8]) {
        guard end > start else { return }
        table!.bytes.withUnsafeBufferPointer { out.append(contentsOf: $0[Int(start)..<Int(end)]) }
    }

    private mutating func endWord(_ wordStart: inout Int32) {
        guard wordStart >= 0 else { return }
        let p = Int32(pinyin.count)
        tokens.append(Token(start: wordStart, end: Int32(text.count), pinyinStart: p, pinyinEnd: p,
                            isIdeograph: false, continuesRun: false))
        wordStart = -1
    }

    var isEmpty: Bool { tokens.isEmpty }

    func textBytes(_ t: Token) -> ArraySlice<UInt8> { text[Int(t.start)..<Int(t.end)] }
    func pinyinBytes(_ t: Token) -> ArraySlice<UInt8> { pinyin[Int(t.pinyinStart)..<Int(t.pinyinEnd)] }

    func token(_ i: Int) -> SearchText.Token {
        let t = tokens[i]
        let s = String(decoding: textBytes(t), as: UTF8.self)
        if !t.isIdeograph { return .word(s) }
        return .ideograph(s, pinyin: t.hasPinyin ? String(decoding: pinyinBytes(t), as: UTF8.self) : nil)
    }

    // MARK: Keys

    /// Tokens run together ("周杰伦"); `text` itself.
    var keyString: String { String(decoding: text, as: UTF8.self) }

    /// Han replaced by pinyin ("zhoujielun").
    func appendPinyinKey(to out: inout [UInt8]) {
        for t in tokens {
            if t.hasPinyin { out.append(contentsOf: pinyinBytes(t)) } else { out.append(contentsOf: textBytes(t)) }
        }
    }

    var pinyinKeyString: String {
        var out: [UInt8] = []
        out.reserveCapacity(text.count + pinyin.count)
        appendPinyinKey(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The initials of `SearchText.Analysis`: ASCII inline; anything else through `Character`, so
    /// grapheme rules stay exactly those of the analysis.
    func appendInitials(to out: inout [UInt8]) -> Bool {
        var letters = 0
        let start = out.count
        for t in tokens {
            if t.isIdeograph {
                guard t.hasPinyin else { continue }
                out.append(pinyin[Int(t.pinyinStart)])
            } else {
                let first = text[Int(t.start)]
                let secondIsASCII = t.end - t.start < 2 || text[Int(t.start) + 1] < 0x80
                guard first < 0x80 && secondIsASCII else {
                    out.removeSubrange(start...)
                    let initials = SearchText.Analysis(tokens: tokens.indices.map(token)).initials
                    out.append(contentsOf: initials.utf8)
                    return !initials.isEmpty
                }
                out.append(first)
            }
            letters += 1
        }
        if letters < 2 { out.removeSubrange(start...) }
        return letters >= 2
    }

    var initialsString: String {
        var out: [UInt8] = []
        _ = appendInitials(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// "A"-"Z" from the first token's spelling, else "#".
    var firstLetter: String {
        guard let t = tokens.first else { return "#" }
        let b = t.hasPinyin ? pinyin[Int(t.pinyinStart)] : text[Int(t.start)]
        guard b >= 0x61 && b <= 0x7A else { return "#" }
        return String(UnicodeScalar(b - 0x20))
    }

    // MARK: Document

    /// Appends this field's search terms, space separated, exactly as `SearchText.document` lists them.
    /// Terms are separated by a space; one goes before the first term when `out` already holds
    /// terms past `start`.
    func appendDocument(to out: inout [UInt8], from start: Int = 0) {
        guard !tokens.isEmpty else { return }
        for (i, t) in tokens.enumerated() {
            if out.count > start { out.append(0x20) }
            out.append(contentsOf: textBytes(t))
            // A CJK character is indexed as the pair it starts (the last of a run alone): the same
            // number of terms, but a phrase query reads the short doclists of pairs instead of the
            // long ones of single characters, and a single character is a prefix of its pairs.
            if t.isIdeograph, i + 1 < tokens.count, tokens[i + 1].isIdeograph {
                out.append(contentsOf: textBytes(tokens[i + 1]))
            }
        }
        // Pinyin forms go after the field's characters, so CJK phrases stay adjacent.
        var runStart = -1
        for i in 0...tokens.count {
            if i < tokens.count && tokens[i].hasPinyin {
                if runStart < 0 { runStart = i }
            } else if runStart >= 0 {
                appendPinyinTerms(runStart..<i, to: &out)
                runStart = -1
            }
        }
        // A field that is one Han run already listed its initials as the first initials suffix.
        if tokens.count >= 2 && tokens.count <= SearchText.maxSuffixSyllables && tokens.allSatisfy(\.hasPinyin) {
            return
        }
        let mark = out.count
        out.append(0x20)
        let initialsStart = out.count
        if appendInitials(to: &out) {
            // The analysis counts letters, the document counts characters of the joined string.
            let joined = out[initialsStart...]
            if !joined.allSatisfy({ $0 < 0x80 }) && String(decoding: joined, as: UTF8.self).count < 2 {
                out.removeSubrange(mark...)
            }
        } else {
            out.removeSubrange(mark...)
        }
    }

    private func appendPinyinTerms(_ run: Range<Int>, to out: inout [UInt8]) {
        for i in run {
            out.append(0x20)
            out.append(contentsOf: pinyinBytes(tokens[i]))
        }
        let maxSyllables = SearchText.maxSuffixSyllables
        for start in run {
            let end = min(run.upperBound, start + maxSyllables)
            guard end - start >= 2 else { continue }
            out.append(0x20)
            for i in start..<end { out.append(contentsOf: pinyinBytes(tokens[i])) }
        }
        for start in run {
            let end = min(run.upperBound, start + maxSyllables)
            guard end - start >= 2 else { continue }
            out.append(0x20)
            for i in start..<end { out.append(pinyin[Int(tokens[i].pinyinStart)]) }
        }
    }
}

/// A query as FTS5 terms: words (the last a prefix) and CJK runs (the characters typed together).
struct QueryTerms {
    struct Part {
        /// The word, or the characters of a CJK run.
        var tokens: [[UInt8]]
        var isCJK: Bool
    }

    var parts: [Part]
    /// The folded query run together, compared with the stored keys for ranking.
    var key: String

    init?(_ query: String) {
        var field = FoldedField()
        field.fold(query)
        guard !field.isEmpty else { return nil }
        var parts: [Part] = []
        for t in field.tokens {
            let bytes = Array(field.textBytes(t))
            if t.isIdeograph && t.continuesRun, let last = parts.last, last.isCJK {
                parts[parts.count - 1].tokens.append(bytes)
            } else {
                parts.append(Part(tokens: [bytes], isCJK: t.isIdeograph))
            }
        }
        self.parts = parts
        key = field.keyString
    }

    /// Whether the last part is a word, which matches as a prefix.
    var lastIsPrefix: Bool { parts.last.map { !$0.isCJK } ?? false }

    /// The MATCH expression; `lastAsPrefix: false` asks for the last word whole, a cheap first try
    /// (FTS5 merges the doclists of every term a prefix covers before returning anything).
    func expression(lastAsPrefix: Bool) -> String {
        var out = ""
        for (i, part) in parts.enumerated() {
            if i > 0 { out += " " }
            if part.isCJK {
                if part.tokens.count == 1 {
                    // Every occurrence of a character starts a pair or ends a run.
                    out += "\"" + String(decoding: part.tokens[0], as: UTF8.self) + "\"*"
                } else {
                    let pairs = (0..<(part.tokens.count - 1)).map {
                        String(decoding: part.tokens[$0] + part.tokens[$0 + 1], as: UTF8.self)
                    }
                    out += "\"" + pairs.joined(separator: " ") + "\""
                }
            } else {
                out += "\"" + String(decoding: part.tokens[0], as: UTF8.self) + "\""
                if lastAsPrefix && i == parts.count - 1 { out += "*" }
            }
        }
        return out
    }

    /// Whether a stored search document (space-separated terms) holds every part as
    /// `expression(lastAsPrefix: true)` asks: exactly what MATCH decides, done on the document text
    /// so candidates found through other indexes can be checked cheaply.
    /// Term boundaries of a document, kept between calls to save allocations.
    struct Scratch {
        var starts: [Int] = []
        var ends: [Int] = []
    }

    func matches(document: UnsafeBufferPointer<UInt8>) -> Bool {
        var scratch = Scratch()
        return matches(document: document, scratch: &scratch)
    }

    func matches(document: UnsafeBufferPointer<UInt8>, scratch: inout Scratch) -> Bool {
        scratch.starts.removeAll(keepingCapacity: true)
        scratch.ends.removeAll(keepingCapacity: true)
        var i = 0
        let n = document.count
        while i < n {
            while i < n && document[i] == 0x20 { i += 1 }
            guard i < n else { break }
            let s = i
            while i < n && document[i] != 0x20 { i += 1 }
            scratch.starts.append(s)
            scratch.ends.append(i)
        }
        let starts = scratch.starts, ends = scratch.ends
        let termCount = starts.count
        /// Term `term` is `a` followed by `b` (b may be empty), or begins so when `prefix`.
        func term(_ term: Int, is a: [UInt8], _ b: [UInt8], prefix: Bool) -> Bool {
            let length = ends[term] - starts[term]
            let wanted = a.count + b.count
            if prefix ? length < wanted : length != wanted { return false }
            let base = starts[term]
            for k in 0..<a.count where document[base + k] != a[k] { return false }
            for k in 0..<b.count where document[base + a.count + k] != b[k] { return false }
            return true
        }
        for (p, part) in parts.enumerated() {
            var found = false
            if part.isCJK && part.tokens.count > 1 {
                let width = part.tokens.count - 1
                var t = 0
                while !found && t + width <= termCount {
                    found = (0..<width).allSatisfy { term(t + $0, is: part.tokens[$0], part.tokens[$0 + 1], prefix: false) }
                    t += 1
                }
            } else {
                let prefix = part.isCJK || p == parts.count - 1
                var t = 0
                while !found && t < termCount {
                    found = term(t, is: part.tokens[0], [], prefix: prefix)
                    t += 1
                }
            }
            if !found { return false }
        }
        return true
    }
}
