import Foundation
import XCTest
@testable import XZProtocol

final class RequestTests: XCTestCase {
    func testUnquotedAndQuotedArguments() throws {
        XCTAssertEqual(try MPDRequest.parse("status"), MPDRequest(name: "status"))
        XCTAssertEqual(try MPDRequest.parse("  seek 1   20.5\r"), MPDRequest(name: "seek", arguments: ["1", "20.5"]))
        XCTAssertEqual(try MPDRequest.parse(#"add "a dir/周杰伦 \"晴天\".mp3""#),
                       MPDRequest(name: "add", arguments: [#"a dir/周杰伦 "晴天".mp3"#]))
        XCTAssertEqual(try MPDRequest.parse(#"find "(Artist == 'a\\b')" "" x"#),
                       MPDRequest(name: "find", arguments: [#"(Artist == 'a\b')"#, "", "x"]))
    }

    func testQuotingRoundTrips() throws {
        let request = MPDRequest(name: "playlistadd", arguments: [#"we\ird "name""#, "x y", ""])
        XCTAssertEqual(try MPDRequest.parse(request.line), request)
    }

    func testMalformedLinesAreErrorsNotCrashes() {
        for line in ["", "   ", "9lives", "sta-tus", #"add "open"#, #"add "a"b"#, "add it's", "add a\u{1}b"] {
            XCTAssertThrowsError(try MPDRequest.parse(line), line)
        }
        XCTAssertEqual((try? MPDRequest.parse("add \"a\0b\"")), nil)
    }

    func testErrorsBecomeOneACKLine() {
        let error = MPDError(.noExist, "No such song\nOK", command: "playid")
        XCTAssertEqual(error.ackLine(index: 3), "ACK [50@3] {playid} No such song OK")
    }

    func testValuesCannotAddProtocolLines() {
        var response = MPDResponse()
        response.add("Title", "first\nOK\r\nACK [1@0] {} x")
        XCTAssertEqual(String(decoding: response.bytes, as: UTF8.self), "Title: first OK ACK [1@0] {} x\n")
    }

    func testTimesAreWrittenAsMPDWritesThem() {
        XCTAssertEqual(MPDResponse.timestamp(Date(timeIntervalSince1970: 1_714_564_800.9)), "2024-05-01T12:00:00Z")
        XCTAssertEqual(MPDResponse.timestamp(Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00Z")
        XCTAssertEqual(MPDResponse.timestamp(Date(timeIntervalSince1970: 1_230_768_000 - 1)), "2008-12-31T23:59:59Z")
        // Years of other lengths are written as strftime's %Y writes them.
        XCTAssertEqual(MPDResponse.timestamp(Date(timeIntervalSince1970: -31_000_000_000)), "987-08-25T16:53:20Z")
        XCTAssertEqual(MPDResponse.seconds(0), "0.000")
        XCTAssertEqual(MPDResponse.seconds(61_005), "61.005")
        XCTAssertEqual(MPDResponse.seconds(1_230), "1.230")
    }
}

final class ResponseTests: XCTestCase {
    private func text(_ build: (inout MPDResponse) -> Void) -> String {
        var response = MPDResponse()
        build(&response)
        return String(decoding: response.bytes, as: UTF8.self)
    }

    func testNumbersAreWrittenInDecimal() {
        for value in [0, 7, 10, 99, 100, 4096, -1, -250, Int.max, Int.min] {
            XCTAssertEqual(text { $0.add("n", value) }, "n: \(value)\n")
        }
    }

    func testLineBreaksInValuesBecomeSpaces() {
        XCTAssertEqual(text { $0.add("Title", "one\ntwo\r\nthree\rfour\0five") }, "Title: one two three four five\n")
        XCTAssertEqual(text { $0.add("Title", "周杰伦 晴天") }, "Title: 周杰伦 晴天\n")
        XCTAssertEqual(text {
            $0.add("a", "x\ny")
            $0.add("b", 3)
            $0.appendLine("OK")
        }, "a: x y\nb: 3\nOK\n")
    }
}
