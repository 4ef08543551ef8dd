import Foundation
import XCTest
@testable import XZDownloader
import XZTestSupport

/// A server that sends a byte every so often never trips the idle timeout; the minimum rate ends it.
final class TrickleTests: XCTestCase {
    private func trickling() throws -> DownloadFixture {
        let body = Data(repeating: 0x55, count: 100_000)
        let fixture = try DownloadFixture("trickle") { request, _ in
            if let answer = lyricsNotFound(request) { return answer }
            var response = TestHTTPServer.Response(status: 200, headers: [("Content-Type", "audio/mpeg"), ("ETag", "\"v1\"")],
                                                   body: body)
            response.chunk = 1
            response.delay = 0.2
            return response
        }
        // A byte every 0.2 s is well inside the idle timeout, and far under the minimum rate.
        fixture.settings.idleTimeout = 30
        fixture.settings.minRate = 1024
        fixture.settings.minRateWindow = 1
        fixture.settings.retries = 1
        return fixture
    }

    func testATrickleEndsAtTheMinimumRate() async throws {
        let fixture = try trickling()
        try fixture.addSongs([songFields("a", url: fixture.server.url("/song.mp3"))])
        let tasks = try await fixture.download(["a"])
        let task = try XCTUnwrap(fixture.task(.audio, of: "a", in: tasks))
        XCTAssertEqual(task.state, .failed)
        let error = try XCTUnwrap(task.lastError)
        XCTAssertTrue(error.contains("sent less than 1024 bytes a second for 1 s"), error)
        XCTAssertTrue(error.contains("gave up after 2 attempts"), error)
        XCTAssertLessThan(fixture.server.bytesSent(path: "/song.mp3"), 1000)
    }

    func testAStreamedURLThatTricklesFailsTheTrack() async throws {
        let fixture = try trickling()
        let manager = fixture.manager()
        let stream = try manager.openStream(url: fixture.server.url("/song.mp3"))
        var byte = [UInt8](repeating: 0, count: 1)
        // Reads wait for the bytes until the fetch gives up.
        var offset: Int64 = 0
        while byte.withUnsafeMutableBytes({ stream.read(at: offset, into: $0) }) > 0 { offset += 1 }
        XCTAssertTrue(stream.failureMessage?.contains("bytes a second") == true, stream.failureMessage ?? "no failure")
        stream.release()
        await manager.shutdown()
    }

    func testTheSettingsAreConfigKeys() throws {
        let settings = try DownloadSettings.parse("min_rate = 2048\nmin_rate_window = 10\nmax_download_size = 1048576\nstream_buffer = 65536\n")
        XCTAssertEqual(settings.minRate, 2048)
        XCTAssertEqual(settings.minRateWindow, 10)
        XCTAssertEqual(settings.maxDownloadSize, 1 << 20)
        XCTAssertEqual(settings.streamBuffer, 65536)
        XCTAssertThrowsError(try DownloadSettings.parse("stream_buffer = 10\n"))
        XCTAssertThrowsError(try DownloadSettings.parse("min_rate_window = 0\n"))
    }
}
