import Foundation
import XCTest
import XZMPDCommands
import XZProtocol
@testable import XZServer
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Another protocol sent to the host's port runs nothing: an HTTP request is closed at its request line
/// (so a web page's POST cannot smuggle commands in its body), and a peer whose first lines are no
/// commands at all is dropped, as MPD drops both.
final class CrossProtocolTests: MusicFolderHostTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try host.database.importFolder(at: music)
    }

    private func queueAndVolume() throws -> (String?, String?) {
        let status = try client().run("status")
        return (value(status, "playlistlength"), value(status, "volume"))
    }

    func testAnHTTPRequestIsClosedWithoutRunningItsBody() throws {
        let setup = try client()
        try setup.run("add", "album/1.mp3")
        try setup.run("setvol", "40")
        let before = try queueAndVolume()
        let body = "delete 0\nsetvol 90\nadd album/2.mp3\n"
        for method in ["POST", "PUT", "GET"] {
            let fd = try rawConnection()
            defer { close(fd) }
            write("\(method) / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: text/plain\r\n"
                  + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)", to: fd)
            let answer = try XCTUnwrap(readUntilClosed(fd), "\(method): the host closes the connection")
            XCTAssertEqual(answer, ClientSession.greeting, "\(method): nothing but the greeting is answered")
        }
        let after = try queueAndVolume()
        XCTAssertEqual(after.0, before.0, "the queue is unchanged")
        XCTAssertEqual(after.1, before.1, "the volume is unchanged")
    }

    func testAnHTTPRequestLineLaterInAConnectionClosesItToo() throws {
        let fd = try rawConnection()
        defer { close(fd) }
        write("ping\nsetvol 30\nPOST /x?y=1 HTTP/1.0\r\nsetvol 70\n", to: fd)
        XCTAssertEqual(readUntilClosed(fd), ClientSession.greeting + "OK\nOK\n")
        XCTAssertEqual(try queueAndVolume().1, "30", "the line after the request line did not run")
    }

    /// Any case of method and version, tabs or several spaces between the words: still a request line.
    func testARequestLineInAnyCaseOrWithTabsClosesTooAndRunsNothingAfterIt() throws {
        try client().run("setvol", "40")
        for line in ["get / http/1.1", "POST\t/\tHTTP/1.1", "Get  /x?y=1  Http/1.0"] {
            let fd = try rawConnection()
            defer { close(fd) }
            write("\(line)\r\nsetvol 7\n", to: fd)
            XCTAssertEqual(readUntilClosed(fd), ClientSession.greeting, "\(line.debugDescription): closed with nothing run")
            XCTAssertTrue(ClientSession.isHTTPRequestLine(Array(line.utf8)), line.debugDescription)
        }
        XCTAssertEqual(try queueAndVolume().1, "40", "the volume is unchanged")
    }

    func testALineThatOnlyEndsLikeHTTPIsAnOrdinaryCommand() throws {
        let client = try client()
        // A quoted argument that happens to end in " HTTP/1.1": the method would be lowercase.
        XCTAssertEqual(try client.run("find", "title", "x HTTP/1.1").count, 0, "answered: no such title")
        XCTAssertNoThrow(try client.run("ping"))
        XCTAssertFalse(ClientSession.isHTTPRequestLine(Array("find title \"x HTTP/1.1\"".utf8)))
        XCTAssertTrue(ClientSession.isHTTPRequestLine(Array("GET / HTTP/1.1\r".utf8)))
        XCTAssertTrue(ClientSession.isHTTPRequestLine(Array("PRI * HTTP/2.0".utf8)))
        XCTAssertFalse(ClientSession.isHTTPRequestLine(Array(" HTTP/1.1".utf8)))
        // An old-style find of the text "http/1.1": its second word is no request target.
        XCTAssertFalse(ClientSession.isHTTPRequestLine(Array("find any http/1.1".utf8)))
        XCTAssertFalse(ClientSession.isHTTPRequestLine(Array("find title \"/x\" HTTP/1.1".utf8)))
    }

    func testARunOfUnknownLinesBeforeAnyCommandCloses() throws {
        let limit = SessionLimits().unknownLinesBeforeCommand
        let fd = try rawConnection()
        defer { close(fd) }
        // Header-like lines, then commands that must not run.
        write("EHLO mail.example\nFrom: x\nnonsense\n\nsetvol 11\n", to: fd)
        let answer = try XCTUnwrap(readUntilClosed(fd))
        XCTAssertEqual(answer.split(separator: "\n").filter { $0.hasPrefix("ACK [5@0]") }.count, limit - 1,
                       "each line before the last is answered with an ACK: \(answer)")
        XCTAssertNotEqual(try queueAndVolume().1, "11")
    }

    func testUnknownCommandsAfterAKnownOneAreOnlyAnswered() throws {
        let client = try client()
        // A client probing newer commands first, then one it knows, then more unknown ones.
        for _ in 1..<SessionLimits().unknownLinesBeforeCommand {
            XCTAssertThrowsError(try client.run("newercommand")) { XCTAssertEqual(($0 as? MPDError)?.code, .unknown) }
        }
        try client.run("ping")
        for _ in 0..<20 {
            XCTAssertThrowsError(try client.run("newercommand")) { XCTAssertEqual(($0 as? MPDError)?.code, .unknown) }
        }
        XCTAssertNoThrow(try client.run("setvol", "25"))
    }
}
