import XCTest
@testable import XZCommands
import XZText

/// Lines above the prompt are wrapped to the terminal, never cut.
final class WrapTests: XCTestCase {
    func testALongErrorKeepsEveryWordWithinTheWidth() {
        let error = "error: http://name.invalid/songs/a-very-long-file-name.mp3: cannot find the host name.invalid: "
            + "the name resolves to no address"
        let lines = Format.wrap(error, width: 40)
        XCTAssertGreaterThan(lines.count, 1)
        XCTAssertTrue(lines.allSatisfy { DisplayWidth.of($0) <= 40 }, "\(lines)")
        XCTAssertTrue(lines.dropFirst().allSatisfy { $0.hasPrefix("  ") }, "\(lines)")
        let words = lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        XCTAssertEqual(words.replacingOccurrences(of: " ", with: ""), error.replacingOccurrences(of: " ", with: ""),
                       "nothing lost")
        XCTAssertTrue(lines.last?.hasSuffix("no address") == true, "\(lines)")
    }

    func testWideCharactersCountTwoColumns() {
        let lines = Format.wrap("♪ " + String(repeating: "晴天", count: 20), width: 21)
        XCTAssertTrue(lines.allSatisfy { DisplayWidth.of($0) <= 21 }, "\(lines)")
        XCTAssertEqual(lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(), "♪ " + String(repeating: "晴天", count: 20))
    }

    func testAShortLineIsLeftAlone() {
        XCTAssertEqual(Format.wrap("▶ 晴天小调 — 林晓舟 [0:44]", width: 80), ["▶ 晴天小调 — 林晓舟 [0:44]"])
        XCTAssertEqual(Format.wrap("", width: 80), [""])
    }
}
