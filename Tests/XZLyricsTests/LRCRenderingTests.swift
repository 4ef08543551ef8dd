import Foundation
import XCTest
@testable import XZLyrics

final class LRCRenderingTests: XCTestCase {
    let doc = LRCParser.parse("""
        [ar:周杰伦]
        [ti:晴天]
        [offset:100]
        [00:01.10]<00:01.10>故事的 <00:01.60>小黄花
        [00:03.00]
        [01:02.34]plain "quoted" \\ text
        """)

    func testJSONObjectShape() throws {
        let data = try JSONSerialization.data(withJSONObject: doc.jsonObject(), options: [.sortedKeys])
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertEqual(text, #"{"lines":[{"text":"故事的 小黄花","time_ms":1000,"words":[{"text":"故事的 ","time_ms":1000},"#
            + #"{"text":"小黄花","time_ms":1500}]},{"text":"","time_ms":2900},"#
            + #"{"text":"plain \"quoted\" \\ text","time_ms":62240}],"tags":{"ar":"周杰伦","offset":"100","ti":"晴天"}}"#)
    }

    func testEncodableGivesTheSameJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let encoded = try JSONSerialization.jsonObject(with: try encoder.encode(doc)) as? NSDictionary
        let object = try JSONSerialization.jsonObject(with: try JSONSerialization.data(withJSONObject: doc.jsonObject()))
            as? NSDictionary
        XCTAssertNotNil(encoded)
        XCTAssertEqual(encoded, object)
        // `words` only where there are timed words.
        let lines = try XCTUnwrap(encoded?["lines"] as? [[String: Any]])
        XCTAssertEqual(lines.map { $0["words"] != nil }, [true, false, false])
    }

    func testPlainText() {
        XCTAssertEqual(doc.plainText(), """
            [00:01.000] 故事的 小黄花
            [00:02.900]
            [01:02.240] plain "quoted" \\ text
            """)
        // Terminal-unsafe characters never reach the output.
        let hostile = LRCParser.parse("[00:01]red\u{1B}[31m\u{202E}x\u{07}")
        XCTAssertEqual(hostile.plainText(), "[00:01.000] red[31mx")
        XCTAssertEqual(LRCDocument().plainText(), "")
    }

    func testStampFormatting() {
        let table: [(Int, Int, String)] = [
            (0, 3, "[00:00.000]"), (62_345, 3, "[01:02.345]"), (5999, 2, "[00:06.00]"), (5994, 2, "[00:05.99]"),
            (59_999, 2, "[01:00.00]"), (18_310, 2, "[00:18.31]"), (5950, 1, "[00:06.0]"), (-5, 3, "[00:00.000]"),
            (6_000_000, 3, "[100:00.000]"), (1234, 7, "[00:01.234]"), (1234, 0, "[00:01.2]"),
        ]
        for (ms, digits, want) in table {
            XCTAssertEqual(LRCFormat.stamp(ms, fractionDigits: digits), want, "\(ms) ms, \(digits) digits")
        }
        XCTAssertFalse(LRCFormat.stamp(Int.max).isEmpty)
    }

    func testPlainTextRoundTrips() {
        // What plainText prints parses back to the same lines (offset already applied).
        let again = LRCParser.parse(doc.plainText())
        XCTAssertEqual(again.lines.map(\.timeMs), doc.lines.map(\.timeMs))
        XCTAssertEqual(again.lines.map(\.text), doc.lines.map(\.text))
    }
}
