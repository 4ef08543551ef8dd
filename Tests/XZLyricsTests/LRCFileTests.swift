import Foundation
import XCTest
@testable import XZLyrics
import XZTestSupport

/// Whole LRC files written for the project (Tests/Fixtures/lyrics), read as a player reads them: what the
/// public LRC suites check at their core, without them.
final class LRCFileTests: XCTestCase {
    private func parse(_ name: String) throws -> LRCDocument {
        let url = TestPaths.repositoryRoot.appendingPathComponent("Tests/Fixtures/lyrics/\(name)")
        return LRCParser.parse(bytes: [UInt8](try Data(contentsOf: url)))
    }

    /// A UTF-8 BOM, CRLF ends, tags, [offset:250] applied, translations sharing a stamp, a line with two
    /// stamps, a 3-digit fraction, an empty line, seconds past 59.
    func testBOMTranslationsSeveralStampsAndOffset() throws {
        let doc = try parse("harbour-lights.lrc")
        XCTAssertEqual(doc.tags["ti"], "Harbour Lights")
        XCTAssertEqual(doc.tags["ar"], "The Paper Lanterns")
        XCTAssertEqual(doc.tags["al"], "XZMusic Demo")
        XCTAssertEqual(doc.offsetMs, 250)
        XCTAssertEqual(pairs(doc), [
            Pair(750, "Lights along the harbour"), Pair(750, "港口的灯光"), Pair(750, "minato no akari"),
            Pair(4250, "Sing it once again"),
            Pair(8000, "Boats are coming home"), Pair(8000, "船正归航"),
            Pair(11_750, ""),
            Pair(20_250, "Sing it once again"),
            Pair(74_850, "Past a minute, written as seconds"),
            Pair(89_750, "End"),
        ])
    }

    func testWordTimingLinesAndPlainLines() throws {
        let doc = try parse("word-by-word.lrc")
        XCTAssertEqual(doc.tags["ti"], "Word by Word")
        XCTAssertEqual(doc.lines, [
            LyricLine(timeMs: 2000, text: "One word at a time", words: [
                LyricWord(timeMs: 2000, text: "One "), LyricWord(timeMs: 2500, text: "word "),
                LyricWord(timeMs: 3000, text: "at "), LyricWord(timeMs: 3250, text: "a "),
                LyricWord(timeMs: 3500, text: "time"),
            ]),
            LyricLine(timeMs: 5000, text: "Plain line"),
            LyricLine(timeMs: 7000, text: "晴天", words: [LyricWord(timeMs: 7000, text: "晴"), LyricWord(timeMs: 7400, text: "天")]),
        ])
    }
}
