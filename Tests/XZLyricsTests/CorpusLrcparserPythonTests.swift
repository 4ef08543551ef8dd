import Foundation
import XCTest
@testable import XZLyrics

/// 283375/lrcparser_python fixtures. That parser reports [offset:] without applying it; this project applies
/// it, so every expected time here is shifted by the file's offset (clamped at 0).
final class CorpusLrcparserPythonTests: XCTestCase {
    let folder = "283375-lrcparser_python"

    override func setUpWithError() throws { _ = try Corpus.bytes("\(folder)/expected.json") }

    func testEveryFileWithExpectedTimes() throws {
        let expected = try Corpus.json("\(folder)/expected.json")
        var checked = 0
        for (key, value) in expected where key.hasPrefix("files/") {
            guard let spec = value as? [String: Any] else { continue }
            let doc = LRCParser.parse(bytes: try Corpus.bytes("\(folder)/\(key)"))
            guard let triples = (spec["line_start_times"] ?? spec["line_start_times_sorted"]) as? [Any] else {
                // Files with no expected values are checked by their own tests below.
                XCTAssertNotNil(spec["notes"], key)
                continue
            }
            checked += 1
            let offset = try XCTUnwrap(spec["offset_ms"] as? Int, key)
            XCTAssertEqual(doc.offsetMs, offset, key)
            XCTAssertEqual(doc.tags, try XCTUnwrap(spec["attributes"] as? [String: String]), key)
            XCTAssertEqual(doc.lines.count, spec["line_count"] as? Int, key)
            let times = triples.compactMap { ms(triple: $0) }.map { max(0, $0 - offset) }
            XCTAssertEqual(times.count, triples.count, key)
            XCTAssertEqual(doc.lines.map(\.timeMs), times, key)
        }
        XCTAssertEqual(checked, 2)
    }

    func testExampleTranslationsStaySeparateLines() throws {
        // Their "translation merge" mode folds same-time lines and ' | ' parts into one entry; this project
        // keeps each stamped line, in file order, with ' | ' as plain text.
        let spec = try XCTUnwrap(try Corpus.json("\(folder)/expected.json")["files/example.lrc"] as? [String: Any])
        let merge = try XCTUnwrap(spec["with_translation_merge"] as? [String: Any])
        let translations = try XCTUnwrap(merge["line[3].translations"] as? [String])
        let doc = LRCParser.parse(bytes: try Corpus.bytes("\(folder)/files/example.lrc"))
        XCTAssertEqual(doc.lines[3].text, "\(try XCTUnwrap(merge["line[3].text"] as? String)) | \(translations[0])")
        XCTAssertEqual(doc.lines[4].text, translations[1])
        XCTAssertEqual(doc.lines[5].text, translations[2])
        XCTAssertEqual(doc.lines[0].timeMs, 0, "20 ms - 250 ms offset clamps at 0")
        XCTAssertEqual(doc.lines[6], LyricLine(timeMs: 28 * 60_000 + 33_750 - 250, text: "Line 6"))
    }

    func testSpecFileWordTimesAndOverflowingSeconds() throws {
        let spec = try XCTUnwrap(try Corpus.json("\(folder)/expected.json")["files/example_spec.lrc"] as? [String: Any])
        let doc = LRCParser.parse(bytes: try Corpus.bytes("\(folder)/files/example_spec.lrc"))
        let offset = 75

        // "line[4] has word timestamps <02:37.50>Very <02:37.52>fast <02:37.55>speed!"
        let line4 = doc.lines[4]
        XCTAssertEqual(line4.text, "Very fast speed!")
        XCTAssertEqual(line4.words, [
            LyricWord(timeMs: 157_500 - offset, text: "Very "),
            LyricWord(timeMs: 157_520 - offset, text: "fast "),
            LyricWord(timeMs: 157_550 - offset, text: "speed!"),
        ])
        XCTAssertEqual(doc.lines[5], LyricLine(timeMs: 157_500 - offset, text: "确实"))

        // [02:83.37] is 3:23.370; its words (also past 59 s) include the ' | ' translation part.
        let merge = try XCTUnwrap(spec["with_translation_merge"] as? [String: Any])
        let translationWords = try XCTUnwrap(merge["line[3].translations_word_times"] as? [[Any]])
        let outrageous = doc.lines[6]
        XCTAssertEqual(outrageous.timeMs, 203_370 - offset)
        XCTAssertEqual(outrageous.text, "Totally outrageous line | ？？？")
        XCTAssertEqual(outrageous.words.map { trimmed($0.text) }, ["Totally", "outrageous", "line |", "？", "？", "？"])
        XCTAssertEqual(outrageous.words.map(\.timeMs), [203_375, 204_475, 205_575, 203_375, 204_475, 205_575].map { $0 - offset })
        XCTAssertEqual(Array(outrageous.words[3...]).map(\.text), translationWords.compactMap { $0.last as? String })
        XCTAssertEqual(Array(outrageous.words[3...]).map(\.timeMs),
                       translationWords.compactMap { ms(triple: $0.first) }.map { $0 - offset })
        // The {mm:ss} "expanded" block is not LRC: nothing from it (the count of 12 already says so).
        XCTAssertFalse(doc.lines.contains { $0.text.contains("{") })
    }

    func testTimeParsingTable() throws {
        let timeParsing = try XCTUnwrap(try Corpus.json("\(folder)/expected.json")["time_parsing"] as? [String: Any])
        let equal = try XCTUnwrap(timeParsing["equal"] as? [String])
        // Exclusion: "0 min 3 s 750 ms" is that library's constructor, not stamp text.
        for text in equal where !text.contains(" ") {
            let stamp = text.hasPrefix("[") ? String(text.dropFirst().dropLast()) : text
            XCTAssertEqual(LRCParser.parseTimeStamp(stamp), 3750, text)
            XCTAssertEqual(LRCParser.parse("[\(stamp)]x").lines.map(\.timeMs), [3750], text)
        }
        let normalise = try XCTUnwrap(timeParsing["normalise"] as? [String: Any])
        var checked = 0
        // Exclusion: "(0, 75, 283375 ms)" is a constructor call of that library, not stamp text.
        for (text, triple) in normalise where !text.hasPrefix("(") {
            XCTAssertEqual(LRCParser.parseTimeStamp(text), ms(triple: triple), text)
            checked += 1
        }
        XCTAssertEqual(checked, 1)
    }

    func testCreditsFileWithBOMAndRepeatedTags() throws {
        let bytes = try Corpus.bytes("\(folder)/files/example_credits_ex.lrc")
        XCTAssertEqual(Array(bytes.prefix(3)), [0xEF, 0xBB, 0xBF])
        let doc = LRCParser.parse(bytes: bytes)
        XCTAssertEqual(doc.tags["ti"], "Credits EX", "the BOM must not hide the tags")
        XCTAssertEqual(doc.tags["by"], "metalluster", "a repeated tag keeps its last value")
        XCTAssertEqual(doc.offsetMs, 5020, "[OFFset:5020]: keys are case-insensitive")

        let stamped = try stampedLineCount(bytes)
        XCTAssertGreaterThan(stamped, 50)
        XCTAssertEqual(doc.lines.count, stamped)
        XCTAssertEqual(doc.lines[0], LyricLine(timeMs: 5360 - 5020,
            text: "Now for official natonal weather service forecast for Eastern Massachusetts inside of 1-495."))
        XCTAssertEqual(doc.lines[1].text, "现在由国家气象局为你播报马萨诸塞州东部的天气预报")
        XCTAssertEqual(doc.lines.map(\.timeMs), doc.lines.map(\.timeMs).sorted())
    }

    func testTranslationFileTrimsFullWidthSpacesAndKeepsEmptyLines() throws {
        let bytes = try Corpus.bytes("\(folder)/files/example_translation.lrc")
        let doc = LRCParser.parse(bytes: bytes)
        XCTAssertEqual(doc.lines.count, try stampedLineCount(bytes))
        XCTAssertEqual(Array(pairs(doc).prefix(4)), [
            Pair(0, "作词 : 葉月ゆら"), Pair(1000, "作曲 : Drop"), Pair(3240, "编曲：Drop"), Pair(3240, ""),
        ])
        XCTAssertTrue(doc.lines.contains { $0.timeMs == 9950 && $0.text == "怀中流逝着的 生命之钟" })
        XCTAssertTrue(doc.lines.contains { $0.timeMs == 48_980 && $0.text == "是浑身荆棘的傀儡人偶" })
        XCTAssertFalse(doc.lines.contains { $0.text != trimmed($0.text) })
    }

    /// Lines of the file starting with [digits:digits...] stamps, counting each stamp: an independent count.
    private func stampedLineCount(_ bytes: [UInt8]) throws -> Int {
        let text = String(decoding: bytes, as: UTF8.self)
        let regex = try NSRegularExpression(pattern: #"\[\d+:\d+(?:[.:]\d+)?\]"#)
        return text.components(separatedBy: "\n").reduce(0) { count, line in
            let ns = line as NSString
            var n = 0
            var location = 0
            while let match = regex.firstMatch(in: line, options: .anchored,
                                               range: NSRange(location: location, length: ns.length - location)) {
                n += 1
                location = match.range.location + match.range.length
            }
            return count + n
        }
    }
}
