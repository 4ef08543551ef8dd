import Foundation
import GRDB
import XCTest
@testable import XZCatalogue
import XZCatalogueTestSupport
import XZTestSupport
import XZCorpusTestSupport

/// The byte-level folder must fold exactly as the String-based one it replaced, kept here as the
/// reference, over real multi-script names and awkward characters.
final class FoldingEquivalenceTests: XCTestCase {
    private func assertSameAnalysis(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let expected = LegacyFolding.analyze(text)
        let actual = SearchText.analyze(text)
        XCTAssertEqual(actual.tokens, expected, text.debugDescription, file: file, line: line)
        let reference = SearchText.Analysis(tokens: expected)
        XCTAssertEqual(actual.key, reference.key, text, file: file, line: line)
        XCTAssertEqual(actual.pinyin, reference.pinyin, text, file: file, line: line)
        XCTAssertEqual(actual.initials, reference.initials, text, file: file, line: line)
        XCTAssertEqual(SearchText.firstLetter(actual), SearchText.firstLetter(reference), text, file: file, line: line)
        // The writer's byte forms agree with the analysis.
        var field = FoldedField()
        field.fold(text)
        XCTAssertEqual(field.keyString, reference.key, text, file: file, line: line)
        XCTAssertEqual(field.pinyinKeyString, reference.pinyin, text, file: file, line: line)
        XCTAssertEqual(field.initialsString, reference.initials, text, file: file, line: line)
        XCTAssertEqual(field.firstLetter, SearchText.firstLetter(reference), text, file: file, line: line)
    }

    func testAwkwardCharacters() {
        let samples = [
            "周杰伦", "陳奕迅", "Ｑｕｅｅｎ", "Sigur Rós", "Straße Ærø Łódź", "ﬁre ﬂy", "Ⅻ ½ ⑤", "㍻ ㊀ ㋐",
            "ｶﾀｶﾅ ﾊﾟ", "ヴァイオリン", "ㄅㄆㄇ", "가 가나", "ㄱㄴ", "कि नमस्ते", "Ελληνικά ΣΑΣ", "Группа крови",
            "a\u{301}b", " \u{301}x", "x\u{200B}y", "Beyoncé", "Beyonce\u{301}", "𠀀𪚥", "ǅemal", "İstanbul",
            "7人祭", "Milky Way 〜君の歌〜", "サマーれげぇ!レインボー", "晴\"天", "Don't Stop", "AC/DC", "",
            "   ", "!!!", "12 34", "a1b2", "ﾞﾟ", "ー", "々", "〆", "ゝゞ", "𛀁", "⺀⻳", "⼀⼁", "\u{E000}", "Ａ１ｂ２",
        ]
        for sample in samples { assertSameAnalysis(sample) }
    }

    func testListedNames() {
        for (title, singer) in MultiScriptNameList.songs {
            assertSameAnalysis(title)
            assertSameAnalysis(singer)
        }
    }

    func testMusicBrainzNames() throws {
        var checked = 0
        for (corpus, file) in MultiScriptNamesTests.corpusFiles {
            let url = try Corpora.require(corpus, files: [file]).appendingPathComponent(file)
            for row in CSV.rows(try String(contentsOf: url, encoding: .utf8)).dropFirst() {
                for field in row {
                    assertSameAnalysis(field)
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 1000)
    }

    /// The tables generated from ICU (scripts/make-transform-tables.sh) give what ICU gives for every
    /// character of the demo catalogue and the listed names, and of the MusicBrainz names when the
    /// public corpora are there.
    func testTransformTablesAgreeWithICUOnCorpusCharacters() throws {
        var scalars = Set<Unicode.Scalar>()
        let demo = TestPaths.repositoryRoot.appendingPathComponent("Resources/demo/catalogue.jsonl")
        scalars.formUnion(try String(contentsOf: demo, encoding: .utf8).unicodeScalars)
        for (title, singer) in MultiScriptNameList.songs { scalars.formUnion((title + singer).unicodeScalars) }
        for (corpus, file) in MultiScriptNamesTests.corpusFiles {
            guard let folder = Corpora.locate(corpus, files: [file]) else { continue }
            scalars.formUnion(try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).unicodeScalars)
        }
        var han = 0, traditional = 0, latin = 0
        for scalar in scalars.sorted(by: { $0.value < $1.value }) {
            let v = scalar.value
            let name = "U+\(String(v, radix: 16, uppercase: true)) \(scalar)"
            if (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xF900...0xFAFF).contains(v)
                || (0x20000...0x3134F).contains(v) {
                let simplified = LegacyFolding.icuSimplified(scalar)
                XCTAssertEqual(String(TransformTables.simplified(v) ?? scalar), simplified, name)
                XCTAssertEqual(TransformTables.pinyin(v) ?? "", LegacyFolding.icuPinyin(simplified), name)
                han += 1
                if simplified != String(scalar) { traditional += 1 }
            } else if (0x80...0x24F).contains(v) || (0x1E00...0x1EFF).contains(v) {
                XCTAssertEqual(TransformTables.latinASCII(v) ?? String(scalar), LegacyFolding.icuLatinASCII(scalar), name)
                latin += 1
            }
        }
        // The demo and the list alone hold Han in both forms and accented Latin; a table that read nothing
        // fails above.
        XCTAssertGreaterThan(han, 150)
        XCTAssertGreaterThan(traditional, 10)
        XCTAssertGreaterThan(latin, 25)
    }

    func testRandomScalars() {
        var random = SplitMix(seed: 11)
        let blocks: [ClosedRange<UInt32>] = [
            0x20...0x7E, 0xA0...0x24F, 0x300...0x36F, 0x370...0x52F, 0x900...0x97F, 0x1100...0x11FF,
            0x1E00...0x1EFF, 0x2000...0x206F, 0x2150...0x218F, 0x2460...0x24FF, 0x2E80...0x2FDF, 0x3000...0x30FF,
            0x3100...0x31FF, 0x3200...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7A3, 0xF900...0xFAFF,
            0xFB00...0xFB4F, 0xFF00...0xFFEF, 0x1F300...0x1F64F, 0x20000...0x2A6DF,
        ]
        for _ in 0..<3_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<(1 + random.next(8)) {
                let block = blocks[random.next(blocks.count)]
                let v = block.lowerBound + UInt32(random.next(Int(block.upperBound - block.lowerBound) + 1))
                if let s = Unicode.Scalar(v) { scalars.append(s) }
            }
            assertSameAnalysis(String(scalars))
        }
    }

    /// Documents list words, CJK characters paired with the next one, then pinyin forms.
    func testDocumentTerms() {
        XCTAssertEqual(SearchText.document(["周杰伦"]), "周杰 杰伦 伦 zhou jie lun zhoujielun jielun zjl jl")
        XCTAssertEqual(SearchText.document(["晴天", "周杰伦", "叶惠美"]),
                       "晴天 天 qing tian qingtian qt 周杰 杰伦 伦 zhou jie lun zhoujielun jielun zjl jl "
                       + "叶惠 惠美 美 ye hui mei yehuimei huimei yhm hm")
        XCTAssertEqual(SearchText.document(["Bohemian Rhapsody", "Queen", ""]), "bohemian rhapsody br queen")
        XCTAssertEqual(SearchText.document(["7人祭 ボア"]), "7 人祭 祭ぼ ぼあ あ ren ji renji rj 7rj")
        XCTAssertEqual(SearchText.document(["!!!", "x"]), "x")
        // A polyphonic character adds its other readings, alone and in the windows it is part of.
        XCTAssertEqual(SearchText.document(["音乐"]), "音乐 乐 yin le yue yinle yinyue yl yy")
    }

    /// The check search runs on stored documents agrees with FTS5 MATCH.
    func testDocumentCheckAgreesWithMatch() throws {
        let library = try TestLibrary()
        let names = ["周杰伦", "晴天", "七里香", "Bohemian Rhapsody", "Queen", "ヒカル", "宇多田ヒカル", "좋은 날",
                     "Jazz Odyssey", "Café del Mar", "晴 天", "天晴", "Queenie", "Queen of Hearts", "7人祭"]
        var lines: [String] = []
        for (i, name) in names.enumerated() {
            lines.append(TestLibrary.line(["source_id": "\(i)", "title": name, "singer": names[(i + 3) % names.count],
                                           "album": names[(i + 7) % names.count]]))
        }
        try library.importFeed(lines)
        let queries = ["周", "杰伦", "晴天", "天", "qing", "qingtian", "zjl", "queen", "queen o", "que", "ひか", "ヒカル",
                       "宇多田", "多田ひ", "좋은", "은 날", "jazz", "caf", "7人", "人祭", "周杰伦 七里", "晴 天", "rhapsody q",
                       "br", "天晴", "晴天周"]
        for query in queries {
            guard let terms = QueryTerms(query) else { continue }
            let matched = try library.database.pool.read { db in
                try Set(Int64.fetchAll(db, sql: "SELECT rowid FROM song_search WHERE song_search MATCH ?",
                                       arguments: [terms.expression(lastAsPrefix: true)]))
            }
            let checked = try library.database.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT rowid, terms FROM song_search").filter { row in
                    let terms: String = row["terms"]
                    var copy = terms
                    return copy.withUTF8 { QueryTerms(query)!.matches(document: $0) }
                }.map { $0["rowid"] as Int64 }
            }
            XCTAssertEqual(Set(checked), matched, query)
        }
    }
}

/// The folding code as it was, on Strings and Foundation transforms.
enum LegacyFolding {
    static func analyze(_ text: String) -> [SearchText.Token] {
        // Halfwidth kana and separate voiced-sound marks compose first, as the folder does.
        let kana = text.unicodeScalars.contains { (0xFF65...0xFF9F).contains($0.value) || $0.value == 0x3099 || $0.value == 0x309A }
        let text = kana ? text.precomposedStringWithCompatibilityMapping.precomposedStringWithCanonicalMapping : text
        var tokens: [SearchText.Token] = []
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
        return tokens
    }

    enum Folded {
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
        if (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xF900...0xFAFF).contains(v)
            || (0x20000...0x3134F).contains(v) {
            let simplified = icuSimplified(scalar)
            let pinyin = icuPinyin(simplified)
            return .ideograph(simplified, pinyin: pinyin.isEmpty ? nil : pinyin)
        }
        if (0x30A1...0x30F6).contains(v), let hiragana = Unicode.Scalar(v - 0x60) {
            return .ideograph(String(hiragana), pinyin: nil)
        }
        if (0x3041...0x30FF).contains(v) || (0x31F0...0x31FF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0x1100...0x11FF).contains(v) || (0x3130...0x318F).contains(v) {
            return scalar.properties.isAlphabetic ? .ideograph(String(scalar), pinyin: nil) : .separator
        }
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
            ? icuLatinASCII(scalar)
            : String(String.UnicodeScalarView(String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
                .filter { $0.properties.generalCategory != .nonspacingMark }))
        let lowered = ascii.lowercased().unicodeScalars.filter {
            $0.properties.isAlphabetic || $0.properties.numericType != nil
        }
        return lowered.isEmpty ? .separator : .letters(String(String.UnicodeScalarView(lowered)))
    }

    static func icuSimplified(_ scalar: Unicode.Scalar) -> String {
        String(scalar).applyingTransform(StringTransform("Hant-Hans"), reverse: false) ?? String(scalar)
    }

    static func icuPinyin(_ simplified: String) -> String {
        let latin = simplified.applyingTransform(StringTransform("Han-Latin"), reverse: false) ?? ""
        return String(String.UnicodeScalarView((latin.applyingTransform(.stripDiacritics, reverse: false) ?? latin)
            .lowercased().unicodeScalars.filter { $0.value >= 0x61 && $0.value <= 0x7A }))
    }

    static func icuLatinASCII(_ scalar: Unicode.Scalar) -> String {
        String(scalar).applyingTransform(StringTransform("Latin-ASCII"), reverse: false) ?? String(scalar)
    }
}
