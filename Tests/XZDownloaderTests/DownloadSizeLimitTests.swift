import Foundation
import XCTest
@testable import XZDownloader
import XZTestSupport

/// A download stops as soon as it passes the size the catalogue or the server promised, with `.tooLarge`
/// and one line, and leaves nothing of itself behind (no `.part`, nothing under songs/).
final class DownloadSizeLimitTests: XCTestCase {
    private static let promised = 200_000
    /// What a lying server would send: far more than promised, far less than a test can wait for.
    private static let sent = 64 << 20

    private func fixture(declaring length: Int?) throws -> DownloadFixture {
        let body = Data(repeating: 0x55, count: Self.sent)
        let fixture = try DownloadFixture("size-limit") { request, _ in
            if let answer = lyricsNotFound(request) { return answer }
            var response = TestHTTPServer.Response(status: 200, headers: [("Content-Type", "audio/mpeg")], body: body)
            if let length { response.declaredLength = length } else { response.omitContentLength = true }
            return response
        }
        fixture.settings.retries = 3
        return fixture
    }

    private func assertStoppedEarly(_ task: DownloadTaskInfo?, _ fixture: DownloadFixture, says: String,
                                    file: StaticString = #filePath, line: UInt = #line) throws {
        let task = try XCTUnwrap(task, file: file, line: line)
        XCTAssertEqual(task.state, .failed, file: file, line: line)
        let error = try XCTUnwrap(task.lastError, file: file, line: line)
        XCTAssertTrue(error.contains(says), error, file: file, line: line)
        XCTAssertFalse(error.contains("\n"), file: file, line: line)
        XCTAssertFalse(error.contains("gave up after"), "not retried: \(error)", file: file, line: line)
        XCTAssertEqual(fixture.partFiles(), [], "no half download is kept", file: file, line: line)
        XCTAssertEqual(fixture.songFiles(), [], file: file, line: line)
        XCTAssertEqual(fixture.server.requests(path: "/song.mp3").count, 1, file: file, line: line)
    }

    /// The feed says 200 KB; the server sends 64 MB with no length: the download stops past 200 KB.
    func testABodyPastTheCatalogueSizeStopsThere() async throws {
        let fixture = try fixture(declaring: nil)
        try fixture.addSongs([songFields("a", url: fixture.server.url("/song.mp3"), extra: ["size": Self.promised])])
        let tasks = try await fixture.download(["a"])
        try assertStoppedEarly(fixture.task(.audio, of: "a", in: tasks), fixture, says: "the catalogue says \(Self.promised) bytes")
        // What the server got out before the client stopped reading: socket buffers, never the whole body.
        XCTAssertLessThan(fixture.server.bytesSent(path: "/song.mp3"), Self.sent / 2)
    }

    /// The feed says 200 KB; the server announces 64 MB: refused before the body is read.
    func testALengthPastTheCatalogueSizeIsRefusedAtTheHead() async throws {
        let fixture = try fixture(declaring: Self.sent)
        try fixture.addSongs([songFields("a", url: fixture.server.url("/song.mp3"), extra: ["size": Self.promised])])
        let tasks = try await fixture.download(["a"])
        try assertStoppedEarly(fixture.task(.audio, of: "a", in: tasks), fixture,
                               says: "announces \(Self.sent) bytes, but the catalogue says \(Self.promised) bytes")
        XCTAssertLessThan(fixture.server.bytesSent(path: "/song.mp3"), Self.sent / 2)
    }

    /// No size anywhere: `max_download_size` is the limit.
    func testABodyOfNoKnownSizeStopsAtTheLargestDownloadAllowed() async throws {
        let fixture = try fixture(declaring: nil)
        fixture.settings.maxDownloadSize = 1 << 20
        try fixture.addSongs([songFields("a", url: fixture.server.url("/song.mp3"))])
        let tasks = try await fixture.download(["a"])
        try assertStoppedEarly(fixture.task(.audio, of: "a", in: tasks), fixture, says: "max_download_size is \(1 << 20) bytes")
    }

    /// The kind is one callers can match, for a URL kept with `play --keep` as for a catalogue song.
    func testAKeptURLPastTheLargestDownloadIsRefusedAndRemoved() async throws {
        let fixture = try fixture(declaring: nil)
        fixture.settings.maxDownloadSize = 1 << 20
        let manager = fixture.manager()
        let stream = try manager.openStream(url: fixture.server.url("/song.mp3"), keep: true)
        await manager.finishKeptStreams()
        XCTAssertTrue(stream.failureMessage?.contains("max_download_size") == true, stream.failureMessage ?? "no failure")
        XCTAssertEqual(fixture.partFiles(), [])
        XCTAssertEqual(fixture.songFiles(), [])
        await manager.shutdown()
    }

    func testTheErrorKindIsTooLarge() {
        XCTAssertEqual(DownloadError.tooLarge("x"), .tooLarge)
        XCTAssertNotEqual(DownloadError.tooLarge("x"), .verification)
    }
}
