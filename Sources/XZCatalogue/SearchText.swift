import Foundation
import XZSystem

/// Folds names for search: lower case, no diacritics, half width, simplified Chinese, katakana as
/// hiragana; Han characters also carry toneless pinyin. The same folding builds the index and the
/// query, so both sides always agree.
package enum SearchText {
    package enum Token: Equatable, Sendable {
        /// A run of letters and digits in an alphabetic script.
        case word(String)
        /// One CJK character (Han, kana or Hangul), indexed on its own so fragments of any length match.
        case ideograph(String, pinyin: String?)
    }

    package struct Analysis: Sendable {
        package let tokens: [Token]
        /// Every token run together: "周杰伦", "bohemianrhapsody".
        package var key: String { tokens.map(\.text).joined() }
        /// Han characters replaced by their pinyin: "zhoujielun".
        package var pinyin: String { tokens.map(\.spelling).joined() }
        /// First letter of every word and Han syllable: "zjl", "qotsa"; empty unless there are two.
        package var initials: String {
            let letters = tokens.compactMap { token -> Character? in
                switch token {
                case .word(let w): return w.first
                case .ideograph(_, let pinyin): return pinyin?.first
                }
            }
            return letters.count < 2 ? "" : String(letters)
        }
        package var hasHan: Bool { tokens.contains { if case .ideograph(_, .some) = $0 { return true } else { return false } } }
    }

    package static func analyze(_ text: String) -> Analysis {
        var field = FoldedField()
        field.fold(text)
        return Analysis(tokens: field.tokens.indices.map { field.token($0) })
    }

    /// The FTS5 document for one or more fields: the words, each CJK character with the one after
    /// it ("周杰 杰伦 伦"), then for each Han run its syllables, run-together suffixes ("zhoujielun",
    /// "jielun") and initials ("zjl", "jl").
    package static func document(_ fields: [String]) -> String {
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
    package static func matchExpression(_ query: String) -> String? {
        QueryTerms(query)?.expression(lastAsPrefix: true)
    }

    /// Index letter A-Z for a name (pinyin for Han), "#" otherwise.
    package static func firstLetter(_ analysis: Analysis) -> String {
        guard let first = analysis.tokens.first?.spelling.unicodeScalars.first,
              first.value >= 0x61, first.value <= 0x7A else { return "#" }
        return String(first).uppercased()
    }

    static let maxSuffixSyllables = 8

    /// Readings of common polyphonic characters (simplified forms) besides the one ICU gives: 音乐 is
    /// read yinyue, 银行 yinhang, 长城 changcheng, and 曾, 单 or 解 as surnames zeng, shan, xie.
    /// Search documents list these spellings too. Keyed by the character's UTF-8 bytes.
    static let otherReadings: [UInt32: [[UInt8]]] = {
        let table = """
            乐:le,yue 重:zhong,chong 长:chang,zhang 行:xing,hang 了:le,liao 曾:ceng,zeng 单:dan,shan,chan
            还:hai,huan 得:de,dei 地:di,de 的:de,di 和:he,huo,hu 着:zhe,zhao,zhuo 都:dou,du 朝:chao,zhao
            传:chuan,zhuan 调:diao,tiao 大:da,dai 便:bian,pian 藏:cang,zang 降:jiang,xiang 角:jiao,jue
            觉:jue,jiao 会:hui,kuai 落:luo,la,lao 模:mo,mu 强:qiang,jiang 区:qu,ou 色:se,shai 省:sheng,xing
            识:shi,zhi 属:shu,zhu 说:shuo,shui 宿:su,xiu 提:ti,di 系:xi,ji 校:xiao,jiao 血:xue,xie
            约:yue,yao 扎:zha,za 折:zhe,she 薄:bao,bo 参:can,shen,cen 差:cha,chai,ci 盛:sheng,cheng
            乘:cheng,sheng 弹:dan,tan 度:du,duo 给:gei,ji 合:he,ge 解:jie,xie 劲:jin,jing 卡:ka,qia
            露:lu,lou 率:lv,lu,shuai 绿:lv,lu 律:lv,lu 旅:lv,lu 女:nv,nu 吕:lv,lu 没:mei,mo 秘:mi,bi
            奇:qi,ji 亲:qin,qing 圈:quan,juan 塞:sai,se 厦:sha,xia 似:si,shi 沈:shen,chen
            仇:chou,qiu 查:cha,zha 翟:zhai,di 朴:pu,piao 尉:wei,yu 覃:tan,qin 缪:miao,mou 种:zhong,chong
            数:shu,shuo 兴:xing 应:ying 只:zhi 相:xiang 空:kong 发:fa 干:gan 几:ji 间:jian 难:nan
            """
        var readings: [UInt32: [[UInt8]]] = [:]
        for entry in table.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = entry.split(separator: ":")
            guard parts.count == 2, let key = readingKey(Array(parts[0].utf8)[...]) else { continue }
            let spellings = parts[1].split(separator: ",").map { Array($0.utf8) }
            if spellings.count > 1 { readings[key] = spellings }
        }
        return readings
    }()

    /// A BMP character's three UTF-8 bytes as one number; nil for anything else.
    static func readingKey(_ utf8: ArraySlice<UInt8>) -> UInt32? {
        guard utf8.count == 3, let first = utf8.first else { return nil }
        return UInt32(first) << 16 | UInt32(utf8[utf8.startIndex + 1]) << 8 | UInt32(utf8[utf8.startIndex + 2])
    }

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
            return .ideograph(String(TransformTables.simplified(v) ?? scalar), pinyin: TransformTables.pinyin(v))
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
            ? (TransformTables.latinASCII(v) ?? String(scalar))
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

    /// Readers take a snapshot (copy-on-write arrays, so no lock while folding); a miss folds the
    /// scalar once and publishes it for every thread.
    struct FoldTable {
        var bmp = [Int32](repeating: -1, count: 0x10000)
        var astral: [UInt32: Int32] = [:]
        var entries: [FoldEntry] = []
        var bytes: [UInt8] = []

        func index(_ v: UInt32) -> Int32 {
            v < 0x10000 ? bmp[Int(v)] : (astral[v] ?? -1)
        }
    }

    private static let sharedTable = Mutex(FoldTable())

    static func tableSnapshot() -> FoldTable {
        sharedTable.withLock { $0 }
    }

    /// Folds `v` and stores it in the shared table; returns its entry index.
    static func learn(_ v: UInt32) -> Int32 {
        let folded = Unicode.Scalar(v).map(foldUncached) ?? .separator
        return sharedTable.withLock { table in
            let known = table.index(v)
            if known >= 0 { return known }
            var entry = FoldEntry(kind: FoldEntry.separator, textStart: Int32(table.bytes.count),
                                  textEnd: Int32(table.bytes.count), pinyinEnd: Int32(table.bytes.count))
            switch folded {
            case .separator:
                break
            case .letters(let s):
                entry.kind = FoldEntry.letters
                table.bytes.append(contentsOf: s.utf8)
            case .ideograph(let c, let pinyin):
                entry.kind = FoldEntry.ideograph
                table.bytes.append(contentsOf: c.utf8)
                entry.textEnd = Int32(table.bytes.count)
                table.bytes.append(contentsOf: (pinyin ?? "").utf8)
            }
            if entry.kind == FoldEntry.letters { entry.textEnd = Int32(table.bytes.count) }
            entry.pinyinEnd = Int32(table.bytes.count)
            let index = Int32(table.entries.count)
            table.entries.append(entry)
            if v < 0x10000 { table.bmp[Int(v)] = index } else { table.astral[v] = index }
            return index
        }
    }
}

extension SearchText.Token {
    /// The folded text as indexed.
    package var text: String {
        switch self {
        case .word(let w): return w
        case .ideograph(let c, _): return c
        }
    }

    /// Pinyin for Han, the text itself otherwise.
    package var spelling: String {
        switch self {
        case .word(let w): return w
        case .ideograph(let c, let pinyin): return pinyin ?? c
        }
    }
}
