import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest
import XZSubsonicAPI
@testable import XZSubsonicServer
import XZSystem
import XZTestSupport

/// Produced bodies over HTTP: a producer blocked on a slow client is stopped when the client goes, a
/// length announced ahead is kept to, HEAD never starts a producer, and a real transcode arrives whole.
final class SubsonicStreamTests: XCTestCase {
    private var fixture: SubsonicServerFixture?

    override func tearDown() async throws {
        await fixture?.stop()
        fixture = nil
    }

    /// What the test endpoints' producers did.
    private final class Production: Sendable {
        let state = Monitor((started: 0, writes: 0, stoppedByClient: false))

        func waitUntilStopped() -> Bool {
            state.wait(until: .now() + 60) { $0.stoppedByClient ? true : nil } ?? false
        }
    }

    private static func endpoints(_ production: Production) -> [String: SubsonicEndpoint] {
        let endless = SubsonicEndpoint("endless") { _ in
            .stream(StreamReply(contentType: "application/octet-stream") { sink in
                production.state.change { $0.started += 1 }
                let chunk = [UInt8](repeating: 7, count: 64 << 10)
                do {
                    while true {
                        try sink.write(chunk)
                        production.state.change { $0.writes += 1 }
                    }
                } catch {
                    production.state.change { $0.stoppedByClient = true }
                    throw error
                }
            })
        }
        let counted = { (name: String, produced: Int, announced: Int64) in
            SubsonicEndpoint(name) { _ in
                .stream(StreamReply(contentType: "audio/mpeg", estimatedLength: announced) { sink in
                    try sink.write([UInt8](repeating: 1, count: produced))
                })
            }
        }
        return Dictionary(([endless, counted("short", 1000, 5000), counted("long", 9000, 5000)]
            + Array(SubsonicEndpoints.all.values)).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func testAProducerStopsWhenItsClientGoes() async throws {
        let production = Production()
        let f = try await SubsonicServerFixture(withSong: false, endpoints: Self.endpoints(production))
        fixture = f
        let client = try RawConnection(port: f.port)
        client.send(Array("GET /rest/endless?\(SubsonicServerFixture.bob) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        let first = client.receiveUntilClosedOr(bytes: 256 << 10, containing: nil)
        XCTAssertTrue(String(decoding: first.prefix(20), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        client.close()
        XCTAssertTrue(production.waitUntilStopped(), "the producer writes on after its client went")
        // Bounded: the hand-off holds a few chunks, the socket's buffers some more, never the endless body.
        XCTAssertLessThan(production.state.withLock { $0.writes }, 1000)
    }

    func testAClientThatStopsReadingIsCutOff() async throws {
        let production = Production()
        var limits = SubsonicServerLimits()
        limits.stalledWriteTimeout = .seconds(1)
        let f = try await SubsonicServerFixture(limits: limits, withSong: false, endpoints: Self.endpoints(production))
        fixture = f
        let client = try RawConnection(port: f.port)
        client.send(Array("GET /rest/endless?\(SubsonicServerFixture.bob) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        // Never read: the socket's buffers fill, the server waits for room, then gives up on the client.
        XCTAssertTrue(production.waitUntilStopped(), "a client that reads nothing holds its producer forever")
        client.close()
    }

    func testAnAnnouncedLengthIsKept() async throws {
        let f = try await SubsonicServerFixture(withSong: false, endpoints: Self.endpoints(Production()))
        fixture = f
        let short = try await f.request("/rest/short?\(SubsonicServerFixture.bob)")
        XCTAssertEqual(short.body.count, 5000)
        XCTAssertEqual(short.body.prefix(1000), Data(repeating: 1, count: 1000))
        XCTAssertEqual(short.body.suffix(4000), Data(repeating: 0, count: 4000))
        let long = try await f.request("/rest/long?\(SubsonicServerFixture.bob)")
        XCTAssertEqual(long.body, Data(repeating: 1, count: 5000))
        XCTAssertEqual(long.header("Content-Length"), "5000")
    }

    func testHeadStartsNoProducer() async throws {
        let production = Production()
        let f = try await SubsonicServerFixture(withSong: false, endpoints: Self.endpoints(production))
        fixture = f
        let head = try await f.request("/rest/endless?\(SubsonicServerFixture.bob)", method: "HEAD")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Type"), "application/octet-stream")
        XCTAssertEqual(head.body.count, 0)
        XCTAssertEqual(production.state.withLock { $0.started }, 0)
    }

    func testATranscodedStreamDecodesWhole() async throws {
        guard SubsonicEndpoints.all["stream"] != nil else { throw XCTSkip("stream is not in the table yet") }
        let f = try await SubsonicServerFixture()
        fixture = f
        let reply = try await f.request("/rest/stream?id=\(try f.songID())&format=opus&\(SubsonicServerFixture.bob)")
        XCTAssertEqual(reply.status, 200, reply.text)
        let file = f.folder.url.appendingPathComponent("stream.opus")
        try reply.body.write(to: file)
        let probe = try TestProcess.runChecked("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file.path])
        let seconds = Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        XCTAssertEqual(seconds, 2, accuracy: 0.2)
    }
}
