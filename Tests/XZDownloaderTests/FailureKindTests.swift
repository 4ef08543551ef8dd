import Foundation
import XCTest
@testable import XZDownloader
import XZTestSupport

/// A failure no retry can mend fails at once with one line; a transient one is retried. Real requests:
/// a name in the reserved `.invalid` domain, a closed loopback port, a loopback server's 404 and drops.
final class FailureKindTests: XCTestCase {
    /// Downloads one song from `url`; returns its audio task as stored.
    private func download(_ url: String, _ fixture: DownloadFixture) async throws -> DownloadTaskInfo {
        try fixture.addSongs([songFields("a", url: url)])
        let tasks = try await fixture.download(["a"])
        return try XCTUnwrap(fixture.task(.audio, of: "a", in: tasks))
    }

    private func fixture(_ handler: @escaping TestHTTPServer.Handler = { request, _ in
        lyricsNotFound(request) ?? .text(404, "no")
    }) throws -> DownloadFixture {
        let fixture = try DownloadFixture("failure-kinds", handler: handler)
        // Retries that would happen are quick, and there are enough of them to tell.
        fixture.settings.retries = 3
        return fixture
    }

    func testAHostNameThatDoesNotResolveFailsAtOnce() async throws {
        let task = try await download("http://name.invalid/song.mp3", try fixture())
        XCTAssertEqual(task.state, .failed)
        let error = try XCTUnwrap(task.lastError)
        XCTAssertTrue(error.contains("cannot find the host name.invalid"), error)
        XCTAssertFalse(error.contains("gave up after"), "not retried: \(error)")
        XCTAssertFalse(error.contains("\n"))
    }

    func testARefusedLoopbackConnectionFailsAtOnce() async throws {
        // A port nothing listens on: a stopped server's.
        let closed = try TestHTTPServer { _, _ in .text(200, "") }
        let url = closed.url("/song.mp3")
        closed.stop()
        let task = try await download(url, try fixture())
        XCTAssertEqual(task.state, .failed)
        let error = try XCTUnwrap(task.lastError)
        XCTAssertTrue(error.contains("connection refused by 127.0.0.1 port \(closed.port)"), error)
        XCTAssertFalse(error.contains("gave up after"), "not retried: \(error)")
    }

    func testNotFoundIsAskedOnce() async throws {
        let fixture = try fixture()
        let task = try await download(fixture.server.url("/gone.mp3"), fixture)
        XCTAssertEqual(task.state, .failed)
        XCTAssertTrue(task.lastError?.contains("HTTP 404") == true, task.lastError ?? "")
        XCTAssertEqual(fixture.server.requests(path: "/gone.mp3").count, 1)
    }

    func testAConnectionDroppedBeforeAnyByteIsRetried() async throws {
        let fixture = try fixture { request, _ in
            if let answer = lyricsNotFound(request) { return answer }
            var response = TestHTTPServer.Response(status: 200, headers: [("Content-Type", "audio/mpeg")],
                                                   body: Data(repeating: 0, count: 4096))
            response.dropAfter = 0
            return response
        }
        let task = try await download(fixture.server.url("/drop.mp3"), fixture)
        XCTAssertEqual(task.state, .failed)
        XCTAssertTrue(task.lastError?.contains("gave up after 4 attempts") == true, task.lastError ?? "")
        XCTAssertEqual(fixture.server.requests(path: "/drop.mp3").count, 4)
    }
}
