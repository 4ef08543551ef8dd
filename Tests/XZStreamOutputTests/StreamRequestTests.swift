import Foundation
import XCTest
import XZEncoders
import XZPlaybackEngine
import XZStreamOutput
import XZTestSupport

/// What the stream answers to requests that are no listener: caps, junk, slow heads, the password.
final class StreamRequestTests: XCTestCase {
    override func setUpWithError() throws {
        guard (try? TestProcess.which("sox")) != nil else { throw XCTSkip("sox is needed for the tone files") }
    }

    private func status(_ port: Int, _ request: String) throws -> String {
        let head = try RawListener(port: port, request: request).readHead()
        return String(head.prefix { $0 != "\r\n" })
    }

    func testMaxClientsRefusesTheNextUntilOneLeaves() throws {
        let rig = try StreamRig(StreamKinds.all[0], maxClients: 1)
        rig.player.play([try Tones.item(frequency: 440, seconds: 20)])
        try rig.waitUntilStreaming()
        var first: RawListener? = try RawListener(port: rig.port, request: "GET / HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try first?.readHead().hasPrefix("HTTP/1.1 200"), true)
        XCTAssertEqual(try status(rig.port, "GET / HTTP/1.1\r\n\r\n"), "HTTP/1.1 503 Service Unavailable")
        first = nil
        let deadline = Date(timeIntervalSinceNow: 10)
        var answer = ""
        while Date() < deadline, !answer.hasSuffix("200 OK") {
            answer = try status(rig.port, "GET / HTTP/1.1\r\n\r\n")
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertEqual(answer, "HTTP/1.1 200 OK", "a listener gone frees its place")
    }

    func testHostileRequestsGetOneClearErrorAndTheStreamGoesOn() throws {
        let rig = try StreamRig(StreamKinds.all[0]) { $0.headTimeoutMs = 500 }
        rig.player.play([try Tones.item(frequency: 440, seconds: 20)])
        try rig.waitUntilStreaming()
        let port = rig.port
        // A slow head holds nothing up meanwhile, and is answered when its time is up.
        let slow = try RawListener(port: port, request: "GET / HTTP/1.1\r\nX-Slow: ")
        XCTAssertEqual(try status(port, "GET /stream.ogg HTTP/1.1\r\nHost: x\r\n\r\n"), "HTTP/1.1 200 OK")
        XCTAssertTrue(try slow.readHead().hasPrefix("HTTP/1.1 408"))
        XCTAssertTrue(slow.isClosedByServer(within: 2))

        let huge = try RawListener(port: port, request: "GET / HTTP/1.1\r\n" + String(repeating: "X-Long: aaaa\r\n", count: 1000))
        XCTAssertTrue(try huge.readHead().hasPrefix("HTTP/1.1 431"))
        XCTAssertTrue(huge.isClosedByServer(within: 2))

        XCTAssertEqual(try status(port, "\u{1}\u{2}garbage\r\n\r\n"), "HTTP/1.1 400 Bad Request")
        XCTAssertEqual(try status(port, "GET / \r\n\r\n"), "HTTP/1.1 400 Bad Request")
        XCTAssertEqual(try status(port, "GET nothing HTTP/1.1\r\n\r\n"), "HTTP/1.1 400 Bad Request")
        XCTAssertEqual(try status(port, "POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"), "HTTP/1.1 405 Method Not Allowed")
        XCTAssertEqual(try status(port, "GET /favicon.ico HTTP/1.1\r\n\r\n"), "HTTP/1.1 404 Not Found")

        // HEAD: the answer's head and nothing more.
        let head = try RawListener(port: port, request: "HEAD / HTTP/1.1\r\n\r\n")
        let answer = try head.readHead()
        XCTAssertTrue(answer.contains("Content-Type: audio/wav\r\n") || StreamKinds.all[0] != .wave, answer)
        XCTAssertTrue(answer.contains("Cache-Control: no-cache, no-store\r\n"), answer)
        XCTAssertTrue(answer.contains("Connection: close\r\n"), answer)
        XCTAssertTrue(head.readToEnd().isEmpty)

        // After all that, a listener still hears the song.
        let listener = try RawListener(port: port, request: "GET / HTTP/1.1\r\n\r\n")
        XCTAssertTrue(try listener.readHead().hasPrefix("HTTP/1.1 200"))
        XCTAssertNotNil(listener.read(exactly: 32 * 1024))
    }

    func testAnOpenAddressNeedsThePasswordOfItsListeners() throws {
        guard (try? TestProcess.which("ffmpeg")) != nil else { throw XCTSkip("ffmpeg is needed to listen to the stream") }
        let rig = try StreamRig(StreamKinds.all[0]) {
            $0.address = "0.0.0.0"
            $0.password = "s3cret"
        }
        rig.player.play([try Tones.item(frequency: 440, seconds: 20)])
        let port = rig.port
        XCTAssertEqual(try status(port, "GET / HTTP/1.1\r\n\r\n"), "HTTP/1.1 401 Unauthorized")
        let wrong = Data("me:guess".utf8).base64EncodedString()
        XCTAssertEqual(try status(port, "GET / HTTP/1.1\r\nAuthorization: Basic \(wrong)\r\n\r\n"), "HTTP/1.1 401 Unauthorized")
        let right = Data("anyone:s3cret".utf8).base64EncodedString()
        let deadline = Date(timeIntervalSinceNow: 20)
        while Date() < deadline, try status(port, "HEAD / HTTP/1.1\r\nAuthorization: Basic \(right)\r\n\r\n") != "HTTP/1.1 200 OK" {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let samples = try FFmpegListener.decode("http://listener:s3cret@127.0.0.1:\(port)/", seconds: 1)
        XCTAssertEqual(FFmpegListener.frequency(Array(samples.dropFirst(4410))), 440, accuracy: 9)
    }

    func testShutdownClosesTheListenersAndThePort() throws {
        let rig = try StreamRig(StreamKinds.all[0])
        rig.player.play([try Tones.item(frequency: 440, seconds: 20)])
        try rig.waitUntilStreaming()
        let listener = try RawListener(port: rig.port, request: "GET / HTTP/1.1\r\n\r\n")
        XCTAssertTrue(try listener.readHead().hasPrefix("HTTP/1.1 200"))
        rig.output.shutdown()
        XCTAssertTrue(listener.isClosedByServer(within: 5))
        XCTAssertThrowsError(try RawListener(port: rig.port), "nothing listens any more")
    }
}
