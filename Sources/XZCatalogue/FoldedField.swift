import Foundation

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
        // Halfwidth katakana and separate voiced-sound marks (ﾊﾟ, は\u{309A}) compose across scalars,
        // which the per-scalar table cannot do: such text is normalised (NFKC) first.
        if Self.hasComposingKana(bytes) {
            // NFC again: Foundation's NFKC here leaves a mapped halfwidth mark (ﾟ to U+309A) uncomposed.
            var composed = String(decoding: bytes, as: UTF8.self).precomposedStringWithCompatibilityMapping
                .precomposedStringWithCanonicalMapping
            composed.withUTF8 { foldComposed(utf8: $0) }
        } else {
            foldComposed(utf8: bytes)
        }
    }

    /// U+FF65...U+FF9F (EF BD A5-BF, EF BE 80-9F) or U+3099/U+309A (E3 82 99/9A).
    private static func hasComposingKana(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i + 2 < bytes.count {
            let b = bytes[i]
            if b == 0xEF {
                let (c1, c2) = (bytes[i + 1], bytes[i + 2])
                if (c1 == 0xBD && c2 >= 0xA5) || (c1 == 0xBE && c2 <= 0x9F) { return true }
            } else if b == 0xE3, bytes[i + 1] == 0x82, bytes[i + 2] == 0x99 || bytes[i + 2] == 0x9A {
                return true
            }
            i += 1
        }
        return false
    }

    private mutating func foldComposed(utf8 bytes: UnsafeBufferPointer<UInt8>) {
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

    /// A Han token's readings other than its own pinyin (see `SearchText.otherReadings`).
    private func otherReadings(_ t: Token) -> [[UInt8]] {
        guard let key = SearchText.readingKey(textBytes(t)), let all = SearchText.otherReadings[key] else { return [] }
        let own = pinyinBytes(t)
        return all.filter { !$0.elementsEqual(own) }
    }

    private func appendPinyinTerms(_ run: Range<Int>, to out: inout [UInt8]) {
        if run.contains(where: { !otherReadings(tokens[$0]).isEmpty }) {
            appendPinyinTermsWithReadings(run, to: &out)
            return
        }
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

    /// The same terms for a run holding polyphonic characters: each syllable also in its other
    /// readings, and each window of syllables (whole and as initials) in up to four spellings, the
    /// first two polyphonic characters of the window taking each of their readings.
    private func appendPinyinTermsWithReadings(_ run: Range<Int>, to out: inout [UInt8]) {
        let readings: [[[UInt8]]] = run.map { [Array(pinyinBytes(tokens[$0]))] + otherReadings(tokens[$0]) }
        for choices in readings {
            for spelling in choices {
                out.append(0x20)
                out.append(contentsOf: spelling)
            }
        }
        let maxSyllables = SearchText.maxSuffixSyllables
        var windows: [[[UInt8]]] = []
        for start in 0..<readings.count {
            let end = min(readings.count, start + maxSyllables)
            guard end - start >= 2 else { continue }
            var spellings: [[[UInt8]]] = [readings[start..<end].map { $0[0] }]
            for position in (start..<end).filter({ readings[$0].count > 1 }).prefix(2) {
                for spelling in spellings {
                    for other in readings[position].dropFirst() where spellings.count < 4 {
                        var variant = spelling
                        variant[position - start] = other
                        spellings.append(variant)
                    }
                }
            }
            windows.append(contentsOf: spellings)
        }
        for syllables in windows {
            out.append(0x20)
            for syllable in syllables { out.append(contentsOf: syllable) }
        }
        var seenInitials = Set<[UInt8]>()
        for syllables in windows {
            let initials = syllables.compactMap(\.first)
            guard seenInitials.insert(initials).inserted else { continue }
            out.append(0x20)
            out.append(contentsOf: initials)
        }
    }
}
