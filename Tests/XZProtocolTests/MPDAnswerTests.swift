import XCTest
import XZProtocol

/// The one reader of answers: pairs up to `OK`, an ACK back into its error, and a host's malformed lines
/// read without trapping.
final class MPDAnswerTests: XCTestCase {
    func testReadsPairsUpToOK() throws {
        var answer = MPDAnswer()
        for line in ["volume: 40", "list_OK", "Title: a: b"] { XCTAssertFalse(try answer.take(line: line)) }
        XCTAssertTrue(try answer.take(line: "OK"))
        XCTAssertEqual(answer.pairs.map { "\($0.key)=\($0.value)" }, ["volume=40", "Title=a: b"])
        XCTAssertEqual(answer.bytes, "volume: 40\nlist_OK\nTitle: a: b\nOK\n".utf8.count)
    }

    func testAnACKIsThrownAsItsError() {
        var answer = MPDAnswer()
        XCTAssertThrowsError(try answer.take(line: "ACK [2@3] {setvol} Number too large: 300")) { error in
            XCTAssertEqual(error as? MPDError, MPDError(.arg, "Number too large: 300", command: "setvol"))
        }
    }

    func testMalformedACKsAreReadWithoutTrapping() {
        for line in ["ACK", "ACK [", "ACK [}{@", "ACK [5@0}{x", "ACK [9999999999999999999@0] {x} y", "ACK [@] {} "] {
            XCTAssertNotNil(MPDError.parse(ackLine: line).message, line)
        }
        XCTAssertEqual(MPDError.parse(ackLine: "ACK [}{@").code, .unknown)
    }
}
