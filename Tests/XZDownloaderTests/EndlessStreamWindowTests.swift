import Foundation
import XCTest
import XZAudio
@testable import XZDownloader
import XZPlaybackEngine
import XZPlaybackValues
import XZSystem
import XZTestSupport

/// A stream with no end and no length (internet radio) is held in a bounded window in memory: nothing of it
/// goes to the library's disk, the fetch waits while the player is a window behind, and playing goes on
/// past any number of windows.
final class EndlessStreamWindowTests: XCTestCase {
    private static let window = 256 << 10

    /// A server sending `body` over and over as fast as it can, with no Content-Length.
    private func radio(_ body: Data) throws -> DownloadFixture {
        let fixture = try DownloadFixture("endless") { _, _ in
            var response = TestHTTPServer.Response(status: 200, headers: [("Content-Type", "audio/mpeg")], body: body)
            response.endless = true
            response.chunk = 16384
            return response
        }
        fixture.settings.streamBuffer = Self.window
        fixture.settings.idleTimeout = 1
        fixture.settings.minRateWindow = 1
        return fixture
    }

    /// Every file under the library folder, with its size on disk.
    private func libraryBytes(_ fixture: DownloadFixture) -> Int {
        let root = fixture.library.url.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return 0 }
        return walker.compactMap { $0 as? String }.reduce(0) { total, name in
            var info = stat()
            guard stat(root + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return total }
            // The library database is no download: only what the stream could have put on disk counts.
            return name.hasPrefix("library.sqlite") ? total : total + Int(info.st_blocks) * 512
        }
    }

    /// Polls `condition` every 20 ms for up to `timeout` seconds.
    private func eventually(_ timeout: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return condition()
    }

    func testTheFetchWaitsForTheReaderAndReadsGoOnPastManyWindows() async throws {
        let body = try MP3Bodies.make(seconds: 5, frequency: 440)
        let fixture = try radio(body)
        let manager = fixture.manager()
        let stream = try manager.openStream(url: fixture.server.url("/radio.mp3"))

        var chunk = [UInt8](repeating: 0, count: 16384)
        let first = chunk.withUnsafeMutableBytes { stream.read(at: 0, into: $0) }
        XCTAssertGreaterThan(first, 0)
        let full = await eventually(20) { stream.isWindowFull }
        XCTAssertTrue(full, "the fetch stops once a window is ahead of the reader")
        // Once the socket buffers are full too, the server can send no more.
        var sent = fixture.server.bytesSent(path: "/radio.mp3")
        let settled = await eventually(20) {
            let now = fixture.server.bytesSent(path: "/radio.mp3")
            defer { sent = now }
            return now == sent
        }
        XCTAssertTrue(settled)
        XCTAssertLessThan(sent, 32 << 20, "sent while the reader stood still: \(sent) bytes")
        XCTAssertLessThanOrEqual(stream.heldRanges.heldBytes, Int64(Self.window))
        XCTAssertEqual(libraryBytes(fixture), 0, "nothing of the stream is on disk")
        // A player that stands still (paused) is no dead server: neither the idle timeout nor the minimum
        // rate ends the connection.
        try await Task.sleep(nanoseconds: 2_500_000_000)
        XCTAssertNil(stream.failureMessage)
        XCTAssertEqual(fixture.server.requests(path: "/radio.mp3").count, 1)

        // Ten windows read in order are exactly the server's bytes, over and over.
        var offset = Int64(first)
        var mismatches = 0
        while offset < Int64(10 * Self.window) {
            let n = chunk.withUnsafeMutableBytes { stream.read(at: offset, into: $0) }
            XCTAssertGreaterThan(n, 0, "read at \(offset)")
            guard n > 0 else { break }
            for i in 0 ..< n where chunk[i] != body[Int((offset + Int64(i)) % Int64(body.count))] { mismatches += 1 }
            offset += Int64(n)
            XCTAssertLessThanOrEqual(stream.heldRanges.heldBytes, Int64(Self.window))
        }
        XCTAssertEqual(mismatches, 0)
        XCTAssertEqual(chunk.withUnsafeMutableBytes { stream.read(at: 0, into: $0) }, -1, "bytes played long ago are gone")
        XCTAssertEqual(libraryBytes(fixture), 0)
        stream.release()
        await manager.shutdown()
    }

    func testARadioStreamPlaysOnWithoutTouchingTheDisk() async throws {
        let body = try MP3Bodies.make(seconds: 5, frequency: 660)
        let fixture = try radio(body)
        let manager = fixture.manager()
        let log = StreamEventLog()
        let opened = Mutex<GrowingFile?>(nil)
        let output = try TemporaryFolder("endless-out")
        let player = Player(output: RawFileOutput(path: output.path("out.raw")), streams: { item in
            let stream = try manager.openStream(url: item.path)
            opened.withLock { $0 = stream }
            return stream
        }, onEvent: { log.append($0) })
        let url = fixture.server.url("/radio.mp3")
        player.play([QueueItem(songId: nil, songKey: nil, path: url, title: "Radio", singer: "")])
        // 60 s of audio is twelve times the body and far more than the window.
        let played = await log.wait(timeout: 60) { events in
            events.contains { if case .position(let ms) = $0 { return ms >= 60_000 } else { return false } }
        }
        XCTAssertTrue(played, "errors: \(log.errors)")
        XCTAssertEqual(log.errors, [])
        let stream = try XCTUnwrap(opened.withLock { $0 })
        XCTAssertTrue(stream.isWindowed)
        XCTAssertLessThanOrEqual(stream.heldRanges.heldBytes, Int64(Self.window))
        XCTAssertGreaterThan(fixture.server.bytesSent(path: "/radio.mp3"), 10 * Self.window)
        XCTAssertEqual(libraryBytes(fixture), 0, "nothing of the stream is on disk")
        player.shutdown()
        await manager.shutdown()
    }
}
