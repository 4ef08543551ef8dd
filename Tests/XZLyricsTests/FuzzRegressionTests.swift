import XCTest
@testable import XZLyrics

/// Inputs that broke an invariant checked by the fuzz harness (fuzz/LRCFuzz.swift), as raw bytes.
final class FuzzRegressionTests: XCTestCase {
    /// The harness's document checks: sorted, non-negative, trimmed text, words adding up to the text and
    /// word character ranges inside it.
    private func assertInvariants(_ doc: LRCDocument, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(doc.lines.map(\.timeMs), doc.lines.map(\.timeMs).sorted(), file: file, line: line)
        for l in doc.lines {
            XCTAssertGreaterThanOrEqual(l.timeMs, 0, file: file, line: line)
            XCTAssertEqual(l.text, LRCText.trimmed(l.text), "text not trimmed", file: file, line: line)
            guard !l.words.isEmpty else { continue }
            XCTAssertEqual(l.words.map(\.text).joined(), l.text, file: file, line: line)
            for index in l.words.indices {
                let range = l.wordCharacterRange(index)
                XCTAssertNotNil(range, file: file, line: line)
                if let range {
                    XCTAssertLessThanOrEqual(range.upperBound, l.text.count,
                                             "word \(index) of \(l.text.debugDescription)", file: file, line: line)
                }
            }
        }
    }

    /// A word tag right before a combining mark: the word border fell inside the character " \u{301}", so
    /// the word ranges ran past the end of the text (3 characters, ranges up to 4).
    func testWordTagBeforeCombiningMark() {
        // "[00:00]a <00:01>" U+0301 "b"
        let bytes: [UInt8] = [0x5B, 0x30, 0x30, 0x3A, 0x30, 0x30, 0x5D, 0x61, 0x20,
                              0x3C, 0x30, 0x30, 0x3A, 0x30, 0x31, 0x3E, 0xCC, 0x81, 0x62]
        let doc = LRCParser.parse(bytes: bytes)
        assertInvariants(doc)
        XCTAssertEqual(doc.lines, [LyricLine(timeMs: 0, text: "a \u{301}b")])
    }

    /// The same with nothing after the mark: the text ended in the whitespace character " \u{301}".
    func testWordTagBeforeTrailingCombiningMark() {
        // "[00:00]a <00:01>" U+0301
        let bytes: [UInt8] = [0x5B, 0x30, 0x30, 0x3A, 0x30, 0x30, 0x5D, 0x61, 0x20,
                              0x3C, 0x30, 0x30, 0x3A, 0x30, 0x31, 0x3E, 0xCC, 0x81]
        let doc = LRCParser.parse(bytes: bytes)
        assertInvariants(doc)
        XCTAssertEqual(doc.lines, [LyricLine(timeMs: 0, text: "a")])
    }

    /// A tag splitting a flag (two regional indicators) keeps the text and drops the timing; a tag between
    /// two flags is a real border and keeps it.
    func testWordTagInsideAndBetweenFlags() {
        let split = LRCParser.parse("[00:00]\u{1F1FA}<00:01>\u{1F1F8}")
        assertInvariants(split)
        XCTAssertEqual(split.lines, [LyricLine(timeMs: 0, text: "\u{1F1FA}\u{1F1F8}")])

        let between = LRCParser.parse("[00:00]\u{1F1FA}\u{1F1F8}<00:01>\u{1F1EC}\u{1F1E7}")
        assertInvariants(between)
        XCTAssertEqual(between.lines.first?.words.map(\.timeMs), [0, 1000])
        XCTAssertEqual(between.lines.first?.wordCharacterRange(1), 1..<2)
    }
}
