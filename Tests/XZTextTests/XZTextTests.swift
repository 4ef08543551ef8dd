import XCTest
@testable import XZText

final class TerminalTextTests: XCTestCase {
    func testStripsEscapeAndControlCharacters() {
        XCTAssertEqual(TerminalText.sanitize("a\u{1B}[31mred\u{07}\u{9B}b"), "a[31mredb")
        XCTAssertEqual(TerminalText.sanitize("line\none\ttab"), "line one tab")
        XCTAssertEqual(TerminalText.sanitize("\u{202E}evil"), "evil")
        XCTAssertEqual(TerminalText.sanitize("周杰伦 Björk"), "周杰伦 Björk")
    }
}

final class DisplayWidthTests: XCTestCase {
    func testCJKTakesTwoColumns() {
        XCTAssertEqual(DisplayWidth.of("abc"), 3)
        XCTAssertEqual(DisplayWidth.of("周杰伦"), 6)
        XCTAssertEqual(DisplayWidth.of("ＢＪ"), 4)
        XCTAssertEqual(DisplayWidth.of("e\u{301}"), 1)
        XCTAssertEqual(DisplayWidth.of("아이유"), 6)
        XCTAssertEqual(DisplayWidth.of("ヒカル"), 6)
        // Combining marks of any script take no column: Thai vowel signs, Hebrew points, Devanagari.
        XCTAssertEqual(DisplayWidth.of("\u{0E2A}\u{0E27}\u{0E31}\u{0E2A}\u{0E14}\u{0E35}"), 4, "สวัสดี")
        XCTAssertEqual(DisplayWidth.of("\u{05E9}\u{05C1}\u{05B8}"), 1)
        XCTAssertEqual(DisplayWidth.of("\u{0928}\u{093F}"), 2, "a spacing vowel sign takes its column")
        XCTAssertEqual(DisplayWidth.of("a\u{200D}b\u{2028}"), 2)
    }

    func testTruncateCutsByWidthWithEllipsis() {
        XCTAssertEqual(DisplayWidth.truncate("周杰伦的歌", to: 7), "周杰伦…")
        XCTAssertEqual(DisplayWidth.truncate("short", to: 10), "short")
        XCTAssertEqual(DisplayWidth.fit("周", to: 4), "周  ")
        XCTAssertEqual(DisplayWidth.of(DisplayWidth.fit("周杰伦的歌", to: 8)), 8)
    }
}

final class LegacyEncodingTests: XCTestCase {
    func testDecodesGB18030() {
        XCTAssertEqual(LegacyEncoding.decodeGB18030([0xD6, 0xDC, 0xBD, 0xDC, 0xC2, 0xD7]), "周杰伦")
        XCTAssertNil(LegacyEncoding.decodeGB18030([0xD6]))
    }

    func testRecoversGBKStoredAsLatin1ButLeavesLatin1Alone() {
        let mangled = String(String.UnicodeScalarView([0xD6, 0xDC, 0xBD, 0xDC, 0xC2, 0xD7].map { Unicode.Scalar($0) }))
        XCTAssertEqual(LegacyEncoding.recoverGBKStoredAsLatin1(mangled), "周杰伦")
        XCTAssertEqual(LegacyEncoding.recoverGBKStoredAsLatin1("Björk"), "Björk")
        XCTAssertEqual(LegacyEncoding.recoverGBKStoredAsLatin1("Café"), "Café")
        XCTAssertEqual(LegacyEncoding.recoverGBKStoredAsLatin1("plain"), "plain")
        XCTAssertEqual(LegacyEncoding.recoverGBKStoredAsLatin1("周杰伦"), "周杰伦")
    }
}

final class DurationTextTests: XCTestCase {
    func testClock() {
        XCTAssertEqual(DurationText.clock(ms: 0), "0:00")
        XCTAssertEqual(DurationText.clock(ms: 59_999), "0:59")
        XCTAssertEqual(DurationText.clock(ms: 269_000), "4:29")
        XCTAssertEqual(DurationText.clock(ms: 3_600_000), "1:00:00")
        XCTAssertEqual(DurationText.clock(ms: 3_723_000), "1:02:03")
        XCTAssertEqual(DurationText.clock(ms: nil), "-")
        XCTAssertEqual(DurationText.clock(ms: -1), "-")
    }
}
