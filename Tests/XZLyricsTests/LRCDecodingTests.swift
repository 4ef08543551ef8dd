import XCTest
@testable import XZLyrics

/// Encodings are produced at test time: UTF-16 by Swift's own encoder, GBK by the system iconv.
final class LRCDecodingTests: XCTestCase {
    let sample = "[ti:晴天]\n[ar:周杰伦]\n[00:01.00]故事的小黄花\n[00:05.50]从出生那年就飘着 Björk ♪"

    var expected: LRCDocument {
        LRCDocument(tags: ["ti": "晴天", "ar": "周杰伦"], offsetMs: 0, lines: [
            LyricLine(timeMs: 1000, text: "故事的小黄花"),
            LyricLine(timeMs: 5500, text: "从出生那年就飘着 Björk ♪"),
        ])
    }

    func utf16(_ text: String, bigEndian: Bool) -> [UInt8] {
        let bom: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        return bom + text.utf16.flatMap { unit -> [UInt8] in
            let high = UInt8(unit >> 8), low = UInt8(unit & 0xFF)
            return bigEndian ? [high, low] : [low, high]
        }
    }

    func testUTF8WithAndWithoutBOM() {
        XCTAssertEqual(LRCParser.parse(bytes: Array(sample.utf8)), expected)
        XCTAssertEqual(LRCParser.parse(bytes: [0xEF, 0xBB, 0xBF] + Array(sample.utf8)), expected)
        XCTAssertEqual(LRCDecoding.decodeDetecting([0xEF, 0xBB, 0xBF] + Array("x".utf8)).encoding, .utf8BOM)
        XCTAssertEqual(LRCDecoding.decode([0xEF, 0xBB, 0xBF] + Array("x".utf8)), "x")
    }

    func testUTF16WithBOM() {
        for bigEndian in [false, true] {
            let bytes = utf16(sample, bigEndian: bigEndian)
            XCTAssertEqual(LRCDecoding.decode(bytes), sample)
            XCTAssertEqual(LRCDecoding.decodeDetecting(bytes).encoding, bigEndian ? .utf16BE : .utf16LE)
            XCTAssertEqual(LRCParser.parse(bytes: bytes), expected)
        }
        // A character outside the BMP (a surrogate pair) and CRLF line ends.
        let emoji = "[00:01]🎵 la\r\n[00:02]b"
        XCTAssertEqual(pairs(LRCParser.parse(bytes: utf16(emoji, bigEndian: false))), [Pair(1000, "🎵 la"), Pair(2000, "b")])
    }

    func testBrokenUTF16IsRepairedNotFatal() {
        // An odd trailing byte is dropped; a lone surrogate becomes U+FFFD.
        let bytes: [UInt8] = [0xFF, 0xFE] + Array("[00:01]a".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
            + [0x00, 0xD8, 0x62, 0x00, 0x41]
        XCTAssertEqual(LRCDecoding.decode(bytes), "[00:01]a\u{FFFD}b")
        XCTAssertEqual(LRCDecoding.decode([0xFF, 0xFE]), "")
        XCTAssertEqual(LRCDecoding.decode([0xFE, 0xFF, 0x00]), "")
    }

    func testGBKFromIconv() throws {
        let gbk = try iconv(sample.replacingOccurrences(of: " Björk ♪", with: "，。"), to: "GBK")
        XCTAssertNil(String(validating: gbk, as: UTF8.self), "GBK Chinese is not valid UTF-8")
        XCTAssertEqual(LRCDecoding.decodeDetecting(gbk).encoding, .gb18030)
        let doc = LRCParser.parse(bytes: gbk)
        XCTAssertEqual(doc.tags, ["ti": "晴天", "ar": "周杰伦"])
        XCTAssertEqual(pairs(doc), [Pair(1000, "故事的小黄花"), Pair(5500, "从出生那年就飘着，。")])

        // Old files mostly had CRLF.
        let crlf = try iconv("[ti:七里香]\r\n[00:02.00]窗外的麻雀\r\n", to: "GBK")
        XCTAssertEqual(LRCParser.parse(bytes: crlf), LRCDocument(tags: ["ti": "七里香"], lines: [LyricLine(timeMs: 2000, text: "窗外的麻雀")]))
    }

    func testValidUTF8IsNeverReadAsGBK() {
        // These bytes are valid as both; UTF-8 wins.
        let decoded = LRCDecoding.decodeDetecting(Array("周".utf8))
        XCTAssertEqual(decoded.text, "周")
        XCTAssertEqual(decoded.encoding, .utf8)
    }

    func testLineEndsInBytes() {
        let want = [Pair(1000, "a"), Pair(2000, "b")]
        for ending in ["\n", "\r\n", "\r"] {
            let text = "[00:01]a" + ending + "[00:02]b"
            XCTAssertEqual(pairs(LRCParser.parse(bytes: Array(text.utf8))), want, ending.debugDescription)
            XCTAssertEqual(pairs(LRCParser.parse(bytes: Array((text + ending).utf8))), want, ending.debugDescription)
            XCTAssertEqual(pairs(LRCParser.parse(bytes: [0xEF, 0xBB, 0xBF] + Array(text.utf8))), want)
        }
    }

    func testBinaryBytesDecodeWithoutFailing() {
        // Neither UTF-8 nor GB18030 (0xFF is never a GB18030 byte): lossy UTF-8.
        let bytes: [UInt8] = [0x5B, 0x30, 0x30, 0x3A, 0x30, 0x31, 0x5D, 0x61, 0xFF, 0x00, 0x80]
        XCTAssertEqual(LRCDecoding.decodeDetecting(bytes).encoding, .lossyUTF8)
        let doc = LRCParser.parse(bytes: bytes)
        XCTAssertEqual(doc.lines.count, 1)
        XCTAssertEqual(doc.lines.first?.timeMs, 1000)
        XCTAssertEqual(LRCDecoding.decode([]), "")
        XCTAssertEqual(LRCParser.parse(bytes: []), LRCDocument())
    }
}
