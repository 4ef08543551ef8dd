import Foundation
import XCTest
import XZAudio
@testable import XZPlaybackEngine
import XZPlaybackValues
import XZTestSupport

/// The `buffering` state: playing, waiting for a stream's bytes, with the clock standing still.
final class BufferingStateTests: XCTestCase {
    private let items = (0..<2).map { QueueItem(path: "http://host/\($0).mp3", title: "Song \($0)") }

    func testBufferingIsPartOfPlayingAndEndsWithTheTrack() {
        var machine = PlayerStateMachine(seed: 1)
        _ = machine.play(items)
        XCTAssertTrue(machine.setBuffering(true, generation: 1))
        XCTAssertTrue(machine.isBuffering)
        XCTAssertEqual(machine.state, .playing, "MPD's state stays play")
        XCTAssertEqual(machine.stateText, "buffering")
        XCTAssertFalse(machine.setBuffering(true, generation: 1), "no change, nothing to report")

        // Paused while waiting: paused is what shows; back to playing, still waiting.
        _ = machine.togglePause()
        XCTAssertFalse(machine.isBuffering)
        XCTAssertEqual(machine.stateText, "paused")
        _ = machine.togglePause()
        XCTAssertEqual(machine.stateText, "buffering")

        XCTAssertTrue(machine.setBuffering(false, generation: 1))
        XCTAssertEqual(machine.stateText, "playing")

        // A report for a track the user has left changes nothing; a new track starts not waiting.
        _ = machine.setBuffering(true, generation: 1)
        _ = machine.next()
        XCTAssertFalse(machine.isBuffering)
        XCTAssertFalse(machine.setBuffering(true, generation: 1), "stale generation")
        XCTAssertFalse(machine.isBuffering)
        XCTAssertTrue(machine.setBuffering(true, generation: 2))
        _ = machine.stop()
        XCTAssertFalse(machine.isBuffering)
        XCTAssertEqual(machine.stateText, "stopped")
    }
}

/// A real player reading a growing file fed by a test writer.
final class StreamPlaybackTests: XCTestCase {
    /// The writer stops half-way for a while: the player reports buffering, its position and the
    /// listening clock stand still, then it goes on by itself; the output is still the whole song, exact.
    func testCatchingUpWithTheDownloadBuffersAndResumes() throws {
        let fixtures = try PlaybackFixtures.shared()
        let path = try fixtures.path("long6")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let folder = try TemporaryFolder("stream-play")
        let partPath = folder.path("song.part")
        XCTAssertTrue(FileManager.default.createFile(atPath: partPath, contents: nil))
        let source = GrowingFile(path: partPath)
        source.setTotal(Int64(bytes.count))
        let feeder = PausingFeeder(bytes: bytes, path: partPath, source: source, stopAt: bytes.count / 2)
        let out = folder.path("out.raw")
        let log = EventLog()
        let released = Locked(false)
        source.onRelease { released.update { $0 = true } }
        let player = Player(output: RawFileOutput(path: out), streams: { _ in source }, onEvent: { log.append($0) })
        player.prebufferSeconds = 0.5
        feeder.start()
        player.play([QueueItem(path: "http://127.0.0.1/song.mp3", title: "Streamed")])

        XCTAssertTrue(log.wait(timeout: 20) { $0.contains { if case .buffering = $0 { return true } else { return false } } },
                      "buffering is reported when playback catches up")
        XCTAssertEqual(player.snapshot().stateText, "buffering")
        XCTAssertTrue(player.snapshot().isBuffering)
        XCTAssertEqual(player.snapshot().state, .playing)
        let held = player.snapshot().positionMs
        let positionsBefore = log.events.filter { if case .position = $0 { return true } else { return false } }.count
        Thread.sleep(forTimeInterval: 0.6)
        XCTAssertEqual(player.snapshot().positionMs, held, "the clock stands still while buffering")
        XCTAssertEqual(log.events.filter { if case .position = $0 { return true } else { return false } }.count, positionsBefore,
                       "no position (so no listening time) while buffering")
        feeder.resume()
        XCTAssertTrue(player.waitUntilFinished(timeout: 30))
        player.shutdown()

        let events = log.events
        XCTAssertEqual(events.filter { if case .error = $0 { return true } else { return false } }.count, 0, "\(events)")
        let buffered = events.firstIndex { if case .buffered = $0 { return true } else { return false } }
        let buffering = events.firstIndex { if case .buffering = $0 { return true } else { return false } }
        XCTAssertNotNil(buffered)
        XCTAssertLessThan(try XCTUnwrap(buffering), try XCTUnwrap(buffered))
        XCTAssertTrue(events.contains { if case .ended(_, .completed, _) = $0 { return true } else { return false } })
        Reference.assertSame(try Data(contentsOf: URL(fileURLWithPath: out)), try Reference.mpg123(path), "streamed output")
        XCTAssertTrue(released.value, "the player let go of the stream")
    }

    /// A stream whose download fails before any byte: one error line with the download's reason, and the
    /// queue goes on to the next item.
    func testAFailedStreamIsOneErrorAndTheQueueGoesOn() throws {
        let fixtures = try PlaybackFixtures.shared()
        let folder = try TemporaryFolder("stream-fail")
        let log = EventLog()
        let player = Player(output: RawFileOutput(path: folder.path("out.raw")), streams: { item in
            let source = GrowingFile(path: folder.path("x.part"))
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
                source.fail("HTTP 404 Not Found from \(item.path)")
            }
            return source
        }, onEvent: { log.append($0) })
        player.play([QueueItem(path: "http://127.0.0.1:9/missing.mp3"), QueueItem(path: try fixtures.path("cbr44b"))])
        XCTAssertTrue(player.waitUntilFinished(timeout: 20))
        player.shutdown()
        let errors = log.events.compactMap { if case .error(let file, let message) = $0 { return "\(file): \(message)" } else { return nil } }
        XCTAssertEqual(errors, ["http://127.0.0.1:9/missing.mp3: HTTP 404 Not Found from http://127.0.0.1:9/missing.mp3"])
        XCTAssertTrue(log.events.contains { if case .ended(let item, .completed, _) = $0 { return item.path.hasSuffix("cbr44b.mp3") } else { return false } },
                      "the next item played")
    }

    /// Without a stream opener a URL fails with one line, like a missing file.
    func testAPlayerWithoutDownloaderRefusesURLs() throws {
        let folder = try TemporaryFolder("stream-none")
        let log = EventLog()
        let player = Player(output: RawFileOutput(path: folder.path("out.raw")), onEvent: { log.append($0) })
        player.play([QueueItem(path: "https://example.org/a.mp3")])
        XCTAssertTrue(player.waitUntilFinished(timeout: 10))
        player.shutdown()
        XCTAssertEqual(player.failedTrackCount, 1)
    }
}

/// Copies a file into a growing file, stopping at `stopAt` until `resume()`.
final class PausingFeeder: @unchecked Sendable {
    let bytes: Data
    let path: String
    let source: GrowingFile
    let stopAt: Int
    private let gate = DispatchSemaphore(value: 0)

    init(bytes: Data, path: String, source: GrowingFile, stopAt: Int) {
        self.bytes = bytes
        self.path = path
        self.source = source
        self.stopAt = stopAt
    }

    func start() {
        Thread { [self] in
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            var offset = 0
            while offset < bytes.count {
                if offset == stopAt { gate.wait() }
                let end = min(bytes.count, offset + 8192, offset < stopAt ? stopAt : Int.max)
                handle.write(bytes.subdata(in: offset ..< end))
                source.didWrite(at: Int64(offset), count: end - offset)
                offset = end
            }
            try? handle.close()
            source.finish()
        }.start()
    }

    func resume() { gate.signal() }
}
