import Foundation
import GRDB
import XCTest
import XZCatalogue
@testable import XZDownloader
import XZTestSupport

/// A download killed with SIGKILL mid-way and finished by another process. The killed process is
/// this test binary itself, started again to run only `testChildDownload`.
final class KillResumeTests: XCTestCase {
    static let libraryVariable = "XZMUSIC_DOWNLOAD_CHILD_LIBRARY"
    static let lyricsVariable = "XZMUSIC_DOWNLOAD_CHILD_LYRICS"

    /// The child's part: a no-op unless started by `testKillNineThenResume`.
    func testChildDownload() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment[Self.libraryVariable], let lyrics = environment[Self.lyricsVariable] else { return }
        let library = LibraryFolder(url: URL(fileURLWithPath: path))
        let database = try library.open(seedingDemoFrom: nil)
        var settings = DownloadSettings()
        settings.lyricsServer = lyrics
        let manager = DownloadManager(database: database, library: library, settings: settings)
        let ids = try await database.pool.read { try Int64.fetchAll($0, sql: "SELECT id FROM song ORDER BY id") }
        try await manager.enqueue(songs: try database.songs(ids: ids))
        await manager.waitUntilIdle()
        await manager.shutdown()
    }

    func testKillNineThenResume() async throws {
        #if os(Linux)
        let body = try MP3Bodies.make(seconds: 100, frequency: 330, bitrate: 320)   // about 4 MB
        let fixture = try DownloadFixture("kill") { request, _ in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            var response = TestHTTPServer.file(body, request: request)
            // Throttled, with a small send buffer, so little is in flight when the child dies.
            response.chunk = 32 * 1024
            response.delay = 0.01
            response.sendBuffer = 32 * 1024
            return response
        }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"), extra: ["sha256": sha256Hex(body)])])

        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["XZDownloaderTests.KillResumeTests/testChildDownload"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.libraryVariable] = fixture.library.url.path
        environment[Self.lyricsVariable] = fixture.server.base
        child.environment = environment
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }

        try await waitFor(60) { fixture.partSize("audio-1.part") > 1_500_000 || !child.isRunning }
        XCTAssertTrue(child.isRunning, "the child finished before it could be killed")
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationReason, .uncaughtSignal)

        let kept = fixture.partSize("audio-1.part")
        XCTAssertGreaterThan(kept, 1_500_000)
        XCTAssertLessThan(kept, body.count)
        let state = try await fixture.database.pool.read { try String.fetchOne($0, sql: "SELECT state FROM download_task WHERE id = 1") }
        XCTAssertEqual(state, "running", "the dead process left its task running")

        let manager = fixture.manager()
        let resumed = try await manager.resumeInterrupted()
        XCTAssertEqual(resumed, 1)
        await manager.waitUntilIdle()
        let tasks = try await manager.tasks()
        await manager.shutdown()

        XCTAssertEqual(fixture.task(.audio, of: "a", in: tasks)?.state, .done, fixture.task(.audio, of: "a", in: tasks)?.lastError ?? "")
        XCTAssertEqual(fixture.server.requests(path: "/a.mp3").last?["range"], "bytes=\(kept)-")
        let fetchedTwice = fixture.server.bytesSent(path: "/a.mp3") - body.count
        XCTAssertLessThan(fetchedTwice, 1_000_000, "bytes sent twice")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try fixture.song("a").localPath)), body)
        #else
        throw XCTSkip("the child process is started through /proc/self/exe")
        #endif
    }
}
