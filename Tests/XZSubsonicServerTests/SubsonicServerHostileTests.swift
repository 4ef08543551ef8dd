import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import XZSubsonicAPI
import XZSystem
@testable import XZSubsonicServer
import XZTestSupport

/// The API against clients that mean harm or cannot keep up: hostile values in every endpoint's
/// parameters, a thousand requests at once past the cap, a client that sends a byte at a time, one
/// that says nothing, and bodies past the limit. The host answers each and goes on answering.
final class SubsonicServerHostileTests: XCTestCase {
    private var fixture: SubsonicServerFixture?

    override func tearDown() async throws {
        await fixture?.stop()
        fixture = nil
    }

    /// Names of the parameters the table's endpoints read.
    private static let parameterNames = [
        "id", "username", "query", "type", "size", "offset", "count", "musicFolderId", "songId", "albumId", "artistId",
        "playlistId", "name", "comment", "current", "position", "index", "action", "gain", "submission", "time", "format",
        "maxBitRate", "timeOffset", "estimateContentLength", "fromYear", "toYear", "genre", "artist", "title", "url",
        "streamUrl", "homepageUrl", "password", "email", "rating", "converted", "public", "songIdToAdd",
        "songIndexToRemove", "artistCount", "albumCount", "songCount", "artistOffset", "albumOffset", "songOffset",
        "ifModifiedSince", "parent", "currentIndex", "adminRole", "jukeboxRole", "fullScan", "description",
    ]

    func testHostileValuesInEveryEndpointAreAnsweredWithoutLeakingPaths() async throws {
        let f = try await SubsonicServerFixture()
        fixture = f
        let song = try f.songID()
        func all(_ value: String) -> String {
            Self.parameterNames.map { "\($0)=\(value)" }.joined(separator: "&")
        }
        let sets: [(String, String)] = [
            // Long values in the parameters most endpoints read (all of them would pass the head's cap).
            ("5,000 characters", ["id", "username", "query", "name", "comment", "size", "offset", "url", "password", "type"]
                .map { "\($0)=\(String(repeating: $0 == "size" || $0 == "offset" ? "9" : "a", count: 5000))" }.joined(separator: "&")),
            ("NUL", all("a%00b")),
            ("folder id of ..", "id=\(SubsonicID.folder("../..").text)&parent=\(SubsonicID.folder("../../etc").text)&" + all("..%2F..%2Fetc%2Fpasswd")),
            ("absolute paths", "id=\(SubsonicID.folder("/etc").text)&" + all("%2Fetc%2Fpasswd")),
            ("past 64 bits", "id=\(song)&" + all("99999999999999999999999")),
            ("below 64 bits", "id=\(song)&" + all("-9223372036854775809")),
            ("past 32 bits", "id=\(song)&" + all("4294967296")),
            ("negative", "id=\(song)&" + all("-1")),
            ("unknown albums at the edges", "id=ua-9223372036854775807&" + all("ua-0")),
            ("bad escape", "id=%zz"),
            ("no UTF-8", "id=%ff%fe"),
            ("bad enc: hex", "password=enc:zz&" + all("enc:0")),
        ]
        let secret = [f.folder.url.path, f.music.path]
        // The session's own deletions last, so the owner signs in throughout.
        let names = SubsonicEndpoints.all.keys.sorted().filter { $0 != "deleteUser" } + ["deleteUser"]
        var answered = 0
        for name in names {
            for (label, query) in sets {
                let reply = try await f.request("/rest/\(name)?f=json&\(SubsonicServerFixture.owner)&\(query)")
                XCTAssertTrue([200, 206, 404, 416, 429].contains(reply.status), "\(name) with \(label): \(reply.status)")
                if reply.header("Content-Type")?.hasPrefix("application/json") == true {
                    XCTAssertNoThrow(try reply.envelope(), "\(name) with \(label)")
                }
                for path in secret {
                    XCTAssertFalse(reply.text.contains(path), "\(name) with \(label) tells a path of the machine: \(reply.text.prefix(300))")
                }
                answered += 1
            }
        }
        XCTAssertEqual(answered, names.count * sets.count)
        // A head past the cap is refused whole.
        let huge = try await f.request("/rest/ping?f=json&\(SubsonicServerFixture.owner)&" + all(String(repeating: "a", count: 5000)))
        XCTAssertEqual(huge.status, 400)
        let still = try await f.code("ping", SubsonicServerFixture.owner)
        XCTAssertNil(still)
    }

    func testAThousandConcurrentRequestsAreAllAnsweredWithinTheCaps() async throws {
        var limits = SubsonicServerLimits()
        limits.maxRequestsInFlight = 16
        limits.maxConnections = 128
        // Clients keep their connections for the next request: a short idle time frees their places.
        limits.idleTimeout = .seconds(1)
        let f = try await SubsonicServerFixture(limits: limits, withSong: false)
        fixture = f
        let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for index in 0..<1000 {
                group.addTask {
                    let endpoint = index % 2 == 0 ? "ping" : "getLicense"
                    let reply = try await f.json(endpoint, SubsonicServerFixture.bob)
                    switch reply.status {
                    case 200: XCTAssertNil(try reply.errorCode())
                    case 503:
                        XCTAssertEqual(reply.header("Retry-After"), "1")
                        XCTAssertTrue(reply.text.contains("busy"), reply.text)
                    default: XCTFail("status \(reply.status): \(reply.text)")
                    }
                    return (reply.status, nil)
                }
            }
            var statuses: [Int] = []
            for try await (status, _) in group { statuses.append(status) }
            return statuses
        }
        XCTAssertEqual(statuses.count, 1000)
        XCTAssertGreaterThan(statuses.filter { $0 == 200 }.count, 0)
        let after = try await f.code("ping", SubsonicServerFixture.bob)
        XCTAssertNil(after)
    }

    func testPastTheCapARequestIsToldToComeBack() async throws {
        var limits = SubsonicServerLimits()
        limits.maxRequestsInFlight = 0
        let f = try await SubsonicServerFixture(limits: limits, withSong: false)
        fixture = f
        let reply = try await f.json("ping", SubsonicServerFixture.bob)
        XCTAssertEqual(reply.status, 503)
        XCTAssertEqual(reply.header("Retry-After"), "1")
        XCTAssertEqual(try reply.errorCode(), 0)
    }

    func testAClientSendingAByteAtATimeHoldsUpNobody() async throws {
        let f = try await SubsonicServerFixture(withSong: false)
        fixture = f
        let request = Array("GET /rest/ping?f=json&\(SubsonicServerFixture.bob) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        let slow = try RawConnection(port: f.port)
        let sentAll = Mutex(false)
        let sender = Task.detached {
            for byte in request {
                slow.send([byte])
                try await Task.sleep(for: .milliseconds(40))
            }
            sentAll.withLock { $0 = true }
        }
        // Others are answered while the slow request is still arriving.
        for _ in 0..<20 {
            let code = try await f.code("ping", SubsonicServerFixture.bob)
            XCTAssertNil(code)
        }
        XCTAssertFalse(sentAll.withLock { $0 }, "the others should have been answered before the slow request was complete")
        try await sender.value
        let answer = String(decoding: slow.receiveUntilClosedOr(bytes: 4096, containing: "\"status\":\"ok\""), as: UTF8.self)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), answer)
        XCTAssertTrue(answer.contains("\"status\":\"ok\""), answer)
        slow.close()
    }

    func testAClientThatSaysNothingIsClosed() async throws {
        var limits = SubsonicServerLimits()
        limits.idleTimeout = .seconds(1)
        let f = try await SubsonicServerFixture(limits: limits, withSong: false)
        fixture = f
        let silent = try RawConnection(port: f.port)
        silent.send(Array("GET /rest/ping?f=json HTTP/1.1\r\nHost: 1".utf8))
        // Closed by the server: reading ends with nothing (no answer to half a request).
        XCTAssertEqual(silent.receiveUntilClosedOr(bytes: 4096, containing: nil).count, 0)
        silent.close()
        let code = try await f.code("ping", SubsonicServerFixture.bob)
        XCTAssertNil(code)
    }

    func testAnOversizedFormBodyIsRefused() async throws {
        let f = try await SubsonicServerFixture(withSong: false)
        fixture = f
        let body = Data(("f=json&\(SubsonicServerFixture.bob)&" + String(repeating: "id=so-1&", count: 10_000)).utf8)
        XCTAssertGreaterThan(body.count, SubsonicServerLimits().maxBodyBytes)
        let reply = try await f.request("/rest/ping", method: "POST", body: body, contentType: "application/x-www-form-urlencoded")
        XCTAssertEqual(reply.status, 413)
        let within = Data(("f=json&\(SubsonicServerFixture.bob)&" + String(repeating: "id=so-1&", count: 1000)).utf8)
        let fine = try await f.request("/rest/ping", method: "POST", body: within, contentType: "application/x-www-form-urlencoded")
        XCTAssertNil(try fine.errorCode())
    }
}

/// A TCP connection driven byte by byte, as no HTTP client library lets a test do.
final class RawConnection: Sendable {
    private let socket: Int32

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("cannot connect to port \(port)") }
        // A read never waits more than a minute, so a test cannot hang here.
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Bytes read until the peer closes, `bytes` arrived, or the text read holds `marker`.
    func receiveUntilClosedOr(bytes limit: Int, containing marker: String?) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < limit {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer[0..<count]
            if let marker, String(decoding: received, as: UTF8.self).contains(marker) { break }
        }
        return received
    }

    func close() { Glibc.close(socket) }
}
