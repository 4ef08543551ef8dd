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
        var tokens: [Token] = []
        var word = ""
        func flushWord() {
            if !word.isEmpty { tokens.append(.word(word)); word = "" }
        }
        for scalar in text.unicodeScalars {
            switch fold(scalar) {
            case .separator:
                flushWord()
            case .letters(let s):
                word += s
            case .ideograph(let s, let pinyin):
                flushWord()
                tokens.append(.ideograph(s, pinyin: pinyin))
            }
        }
        flushWord()
        return Analysis(tokens: tokens)
    }

    /// The FTS5 document for one or more fields: the tokens themselves, then for each Han run its
    /// syllables, run-together suffixes ("zhoujielun", "jielun") and initials ("zjl", "jl").
    public static func document(_ fields: [String]) -> String {
        var terms: [String] = []
        for field in fields {
            let analysis = analyze(field)
            // Pinyin forms go after the field's characters, so CJK phrases stay adjacent.
            var pinyinTerms: [String] = []
            var hanRun: [String] = []
            func flushRun() {
                guard !hanRun.isEmpty else { return }
                pinyinTerms.append(contentsOf: hanRun)
                pinyinTerms.append(contentsOf: suffixes(hanRun))
                pinyinTerms.append(contentsOf: suffixes(hanRun.map { String($0.prefix(1)) }))
                hanRun.removeAll()
            }
            for token in analysis.tokens {
                terms.append(token.text)
                if case .ideograph(_, .some(let pinyin)) = token {
                    hanRun.append(pinyin)
                } else {
                    flushRun()
                }
            }
            flushRun()
            terms.append(contentsOf: pinyinTerms)
            let initials = analysis.initials
            if initials.count >= 2 { terms.append(initials) }
        }
        return terms.joined(separator: " ")
    }

    /// The FTS5 MATCH expression for what a user typed: every word must match (the last as a prefix),
    /// CJK runs as phrases. Each term is quoted and holds only letters and digits, so nothing the
    /// user types can act as FTS syntax. Nil when the query has nothing searchable.
    public static func matchExpression(_ query: String) -> String? {
        var parts: [String] = []
        var word = ""
        var run: [String] = []
        func flushWord() {
            if !word.isEmpty { parts.append("\"\(word)\""); word = "" }
        }
        func flushRun() {
            if !run.isEmpty { parts.append("\"" + run.joined(separator: " ") + "\""); run.removeAll() }
        }
        for scalar in query.unicodeScalars {
            switch fold(scalar) {
            case .separator:
                flushWord()
                flushRun()
            case .letters(let s):
                flushRun()
                word += s
            case .ideograph(let c, _):
                flushWord()
                run.append(c)
            }
        }
        flushWord()
        flushRun()
        guard let last = parts.last else { return nil }
        // The last word is a prefix (a CJK phrase already matches wherever it stands).
        if !last.contains(" ") { parts[parts.count - 1] += "*" }
        return parts.joined(separator: " ")
    }

    /// Index letter A-Z for a name (pinyin for Han), "#" otherwise.
    public static func firstLetter(_ analysis: Analysis) -> String {
        guard let first = analysis.tokens.first?.spelling.unicodeScalars.first,
              first.value >= 0x61, first.value <= 0x7A else { return "#" }
        return String(first).uppercased()
    }

    private static let maxSuffixSyllables = 8

    private static func suffixes(_ syllables: [String]) -> [String] {
        guard syllables.count >= 1 else { return [] }
        var out: [String] = []
        for start in syllables.indices {
            let end = min(syllables.count, start + maxSuffixSyllables)
            if end - start >= 2 { out.append(syllables[start..<end].joined()) }
        }
        return out
    }

    // MARK: Per-character folding

    enum Folded: Sendable {
        case separator
        case letters(String)
        case ideograph(String, pinyin: String?)
    }

    static func fold(_ scalar: Unicode.Scalar) -> Folded {
        let v = scalar.value
        if v < 0x80 {
            switch v {
            case 0x61...0x7A, 0x30...0x39: return .letters(String(scalar))
            case 0x41...0x5A: return .letters(String(Unicode.Scalar(v + 0x20)!))
            default: return .separator
            }
        }
        cacheLock.lock()
        if let hit = cache[v] { cacheLock.unlock(); return hit }
        cacheLock.unlock()
        let folded = foldUncached(scalar)
        cacheLock.lock()
        cache[v] = folded
        cacheLock.unlock()
        return folded
    }

    nonisolated(unsafe) private static var cache: [UInt32: Folded] = [:]
    private static let cacheLock = NSLock()

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
