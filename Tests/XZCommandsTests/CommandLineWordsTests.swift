import XCTest
@testable import XZCommands

/// How a prompt line becomes words for the command table.
final class CommandLineWordsTests: XCTestCase {
    func testQuotesEscapesAndApostrophes() throws {
        XCTAssertEqual(try CommandLineWords.split(#"search "Lantern Parade"  晴天"#), ["search", "Lantern Parade", "晴天"])
        XCTAssertEqual(try CommandLineWords.split("search 'a b' c\\ d"), ["search", "a b", "c d"])
        XCTAssertEqual(try CommandLineWords.split("search don't stop"), ["search", "don't", "stop"])
        XCTAssertEqual(try CommandLineWords.split(#"search "rock'n'roll""#), ["search", "rock'n'roll"])
        XCTAssertEqual(try CommandLineWords.split("search ''"), ["search", ""])
        XCTAssertThrowsError(try CommandLineWords.split(#"search "open"#))
        XCTAssertThrowsError(try CommandLineWords.split("search 'open"))
        XCTAssertThrowsError(try CommandLineWords.split("search trailing\\"))
    }

    func testNegativeNumbersAreValues() {
        let mark = CommandLineWords.markingNegativeNumbers
        XCTAssertEqual(mark(["seek", "-5"]), ["seek", "--", "-5"])
        XCTAssertEqual(mark(["lyrics", "offset", "-150"]), ["lyrics", "offset", "--", "-150"])
        XCTAssertEqual(mark(["seek", "-1:30"]), ["seek", "--", "-1:30"])
        XCTAssertEqual(mark(["seek", "+10"]), ["seek", "+10"])
        XCTAssertEqual(mark(["search", "-queen"]), ["search", "-queen"], "not a number")
        XCTAssertEqual(mark(["history", "-3", "--json"]), ["history", "-3", "--json"], "an option follows: left to the parser")
        XCTAssertEqual(mark(["seek", "--", "-5"]), ["seek", "--", "-5"])
    }
}
