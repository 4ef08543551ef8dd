import Foundation
import XCTest
import XZAudio
import XZPlaybackEngine
import XZPlaybackValues
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Parsing, outputs, transport on the real audio thread.
final class PlayerTests: XCTestCase {
    private var fixtures: PlaybackFixtures!
    private var folder: TemporaryFolder!

    override func setUpWithError() throws {
        fixtures = try PlaybackFixtures.shared()
        folder = try TemporaryFolder("playback-player")
    }

    private func paused(_ events: [PlayerEvent]) -> Int {
        events.filter { if case .paused = $0 { return true } else { return false } }.count
    }

    // MARK: Parsing

    func testSeekTargetParsing() throws {
        XCTAssertEqual(try SeekTarget(parsing: "+10"), .relative(ms: 10_000))
        XCTAssertEqual(try SeekTarget(parsing: "-5"), .relative(ms: -5_000))
        XCTAssertEqual(try SeekTarget(parsing: "1:23"), .absolute(ms: 83_000))
        XCTAssertEqual(try SeekTarget(parsing: "83"), .absolute(ms: 83_000))
        XCTAssertEqual(try SeekTarget(parsing: "50%"), .percent(50))
        XCTAssertEqual(try SeekTarget(parsing: "12.5%"), .percent(12.5))
        XCTAssertEqual(try SeekTarget(parsing: "1:02:03"), .absolute(ms: 3_723_000))
        XCTAssertEqual(try SeekTarget(parsing: "83.25"), .absolute(ms: 83_250))
        XCTAssertEqual(try SeekTarget(parsing: " -1:30.5 "), .relative(ms: -90_500))
        XCTAssertEqual(try SeekTarget(parsing: "0"), .absolute(ms: 0))
        for bad in ["", "+", "abc", "1:75", "1::2", "101%", "-5%", "1:2:3:4", "12.", "٣", "99999999999"] {
            XCTAssertThrowsError(try SeekTarget(parsing: bad), bad)
        }
    }

    func testStreamURLsAreHTTPInAnyCase() {
        for url in ["http://x/a.mp3", "HTTPS://x", "Http://x"] { XCTAssertTrue(QueueItem.isStreamURL(url), url) }
        for name in ["", "h", "http:/x", "hxxp://x", "/music/http://x", "ftp://x", "https:", "其他"] {
            XCTAssertFalse(QueueItem.isStreamURL(name), name)
        }
    }

    // MARK: Outputs

    /// With no sound card: one notice, audio goes to null (paced), and nothing at all on fd 2.
    func testDefaultFallsBackToNullQuietly() throws {
        let capture = folder.path("stderr.txt")
        let sink = open(capture, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let saved = dup(2)
        XCTAssertGreaterThanOrEqual(sink, 0)
        XCTAssertGreaterThanOrEqual(saved, 0)
        _ = dup2(sink, 2)
        let log = EventLog()
        let player = Player(output: LibaoOutput(.systemDefault), onEvent: { log.append($0) })
        let began = Date()
        // Two formats, so the output is opened twice.
        player.play([item(try fixtures.path("mpeg25_8k")), item(try fixtures.path("cbr44b"))])
        let finished = player.waitUntilFinished(timeout: 30)
        let elapsed = Date().timeIntervalSince(began)
        player.shutdown()
        fflush(nil)
        _ = dup2(saved, 2)
        _ = close(saved)
        _ = close(sink)

        XCTAssertTrue(finished)
        let noise = try String(contentsOfFile: capture, encoding: .utf8)
        XCTAssertEqual(noise, "", "nothing may reach stderr")
        let notices = log.events.compactMap { if case .notice(let text) = $0 { return text } else { return nil } }
        guard !notices.isEmpty else { throw XCTSkip("a sound device opened on this machine; no fallback to check") }
        XCTAssertEqual(notices.count, 1, "\(notices)")
        XCTAssertTrue(notices[0].contains("null"), notices[0])
        let endings = log.events.compactMap { if case .ended(_, let reason, _) = $0 { return reason } else { return nil } }
        XCTAssertEqual(endings, [.completed, .completed])
        // Paced to real time: 2 s + 1.5 s of audio cannot finish much sooner.
        XCTAssertGreaterThan(elapsed, 3.2)
    }

    func testPauseOnNullStopsThePosition() throws {
        let log = EventLog()
        let player = Player(output: LibaoOutput(.null), onEvent: { log.append($0) })
        player.play([item(try fixtures.path("cbr44"))])
        XCTAssertTrue(log.wait { $0.contains(.position(ms: 500)) })
        player.pause()
        XCTAssertTrue(log.wait { self.paused($0) == 1 })
        let before = player.snapshot()
        Thread.sleep(forTimeInterval: 0.4)
        let after = player.snapshot()
        XCTAssertEqual(before.state, .paused)
        XCTAssertEqual(before.positionMs, after.positionMs, "no progress while paused")
        XCTAssertGreaterThanOrEqual(before.positionMs, 500)
        XCTAssertTrue(log.events.contains(.paused(ms: before.positionMs)))
        let positionsWhilePaused = log.events.drop { $0 != .paused(ms: before.positionMs) }
            .filter { if case .position = $0 { return true } else { return false } }
        XCTAssertTrue(positionsWhilePaused.isEmpty)
        player.resume()
        XCTAssertTrue(player.waitUntilFinished(timeout: 20))
        player.shutdown()
        XCTAssertTrue(log.events.contains(.resumed(ms: before.positionMs)))
        let positions = log.events.compactMap { if case .position(let ms) = $0 { return ms } else { return nil } }
        XCTAssertEqual(positions, positions.sorted())
        XCTAssertTrue(positions.allSatisfy { $0 % 250 == 0 })
    }

    /// A sound card gets ~40 ms periods so a command acts soon; a file being rendered gets whole buffers.
    func testChunkSizeFollowsTheOutput() throws {
        for live in [true, false] {
            let output = WriteSizeOutput(isLive: live)
            let player = Player(output: output)
            player.play([item(try fixtures.path("cbr44"))])
            XCTAssertTrue(player.waitUntilFinished(timeout: 20))
            player.shutdown()
            let largest = output.largestWriteFrames
            if live {
                XCTAssertLessThanOrEqual(largest, 44_100 / 25, "at most 40 ms per write to a sound card")
            } else {
                XCTAssertEqual(largest, 4096, "a full buffer per write when rendering")
            }
        }
    }

    func testUnwritableOutputFailsOnceAndStops() throws {
        let outputs: [AudioOutput] = [RawFileOutput(path: folder.path("no/such/dir/x.raw")),
                                      LibaoOutput(.file(driver: "wav", path: folder.path("no/such/dir/x.wav")))]
        for output in outputs {
            let spec = output is RawFileOutput ? "raw" : "wav"
            let log = EventLog()
            let player = Player(output: output, onEvent: { log.append($0) })
            let first = try fixtures.path("cbr44b")
            player.play([item(first), item(try fixtures.path("cbr44"))])
            XCTAssertTrue(player.waitUntilFinished(timeout: 20))
            player.shutdown()
            let errors = log.events.compactMap { if case .error(let file, let message) = $0 { return (file, message) } else { return nil } }
            XCTAssertEqual(errors.map(\.0), [first], "\(spec)")
            XCTAssertTrue(errors.first?.1.contains("no/such/dir") ?? false, "\(errors)")
            XCTAssertEqual(log.events.last, .queueFinished)
            XCTAssertEqual(player.failedTrackCount, 1)
        }
    }

    // MARK: Transport on the audio thread

    func testPreviousGoesBackWhereverTheTrackIs() throws {
        let first = try fixtures.path("cbr44b"), second = try fixtures.path("long6")
        let log = EventLog()
        let player = Player(output: RawFileOutput(path: folder.path("prev.raw")), onEvent: { log.append($0) })
        player.play([item(first), item(second)], startingAt: 1)
        player.pause()
        XCTAssertTrue(log.wait { self.paused($0) == 1 })
        player.seek(.absolute(ms: 4_000))
        XCTAssertTrue(log.wait { $0.contains(.seeked(ms: 4_000)) })
        player.previous()  // 4 s in: still the song before, as MPD
        XCTAssertEqual(player.snapshot().currentIndex, 0)
        XCTAssertTrue(log.wait { $0.contains { if case .started(let item, _) = $0 { return item.path == first } else { return false } } })
        player.stop()
        player.shutdown()
        let starts = log.events.compactMap { if case .started(let item, _) = $0 { return item.path } else { return nil } }
        XCTAssertEqual(Array(starts.prefix(2)), [second, first])
        let endings = log.events.compactMap { if case .ended(let item, let reason, let ms) = $0 { return (item.path, reason, ms) } else { return nil } }
        XCTAssertEqual(endings.first?.0, second)
        XCTAssertEqual(endings.first?.1, .skipped)
        XCTAssertEqual(endings.first?.2, 4_000)
    }

    func testStopRemoveAndSnapshot() throws {
        let paths = [try fixtures.path("long6"), try fixtures.path("cbr44b"), try fixtures.path("mono22")]
        let log = EventLog()
        let player = Player(output: LibaoOutput(.null), onEvent: { log.append($0) })
        player.setVolume(140)
        player.setRepeat(.all)
        player.setShuffle(false)
        player.play(paths.map { item($0) })
        player.add([item(try fixtures.path("cbr44"))])
        var snapshot = player.snapshot()
        XCTAssertEqual(snapshot.state, .playing)
        XCTAssertEqual(snapshot.currentIndex, 0)
        XCTAssertEqual(snapshot.current?.path, paths[0])
        XCTAssertEqual(snapshot.queue.count, 4)
        XCTAssertEqual(snapshot.volume, 100, "clamped")
        XCTAssertEqual(snapshot.repeatMode, .all)
        XCTAssertTrue(log.wait { $0.contains { if case .started = $0 { return true } else { return false } } })
        let frames = try Reference.mpg123(paths[0]).count / 4
        XCTAssertEqual(player.snapshot().durationMs, frames * 1000 / 44_100, "exact length from the decoder")
        // Removing the playing item goes on with the one after it.
        XCTAssertTrue(player.removeFromQueue(at: 0))
        XCTAssertFalse(player.removeFromQueue(at: 10))
        snapshot = player.snapshot()
        XCTAssertEqual(snapshot.current?.path, paths[1])
        XCTAssertEqual(snapshot.currentIndex, 0)
        XCTAssertTrue(log.wait { $0.filter { if case .started = $0 { return true } else { return false } }.count == 2 })
        player.stop()
        XCTAssertTrue(player.waitUntilFinished(timeout: 10))
        snapshot = player.snapshot()
        XCTAssertEqual(snapshot.state, .stopped)
        XCTAssertEqual(snapshot.positionMs, 0)
        player.clearQueue()
        XCTAssertEqual(player.snapshot().state, .idle)
        player.shutdown()
        let endings = log.events.compactMap { if case .ended(let item, let reason, _) = $0 { return (item.path, reason) } else { return nil } }
        XCTAssertEqual(endings.map(\.0), [paths[0], paths[1]])
        XCTAssertEqual(endings.map(\.1), [.skipped, .stopped])
        XCTAssertFalse(log.events.contains(.queueFinished))
    }

    /// Leaving the program ends a playing track as `.shutdown`; a stop asked for just before still reads `.stopped`,
    /// whether or not the audio thread got to it before the shutdown.
    func testShutdownNamesHowTheTrackEnded() throws {
        for stopFirst in [false, true] {
            let log = EventLog()
            let player = Player(output: LibaoOutput(.null), onEvent: { log.append($0) })
            player.play([item(try fixtures.path("long6"))])
            XCTAssertTrue(log.wait { $0.contains { if case .started = $0 { return true } else { return false } } })
            if stopFirst { player.stop() }
            player.shutdown()
            let endings = log.events.compactMap { if case .ended(_, let reason, _) = $0 { return reason } else { return nil } }
            XCTAssertEqual(endings, [stopFirst ? .stopped : .shutdown])
        }
    }

    func testAsyncEventStreamAndFinished() async throws {
        let path = try fixtures.path("cbr44b")
        let log = EventLog()
        let player = Player(output: RawFileOutput(path: folder.path("async.raw")), onEvent: { log.append($0) })
        let events = player.events  // read before play: the stream holds events from then on
        player.play([item(path)])
        await player.finished()
        player.shutdown()
        var streamed: [PlayerEvent] = []
        for await event in events { streamed.append(event) }
        XCTAssertEqual(streamed, log.events)
        XCTAssertEqual(streamed.last, .queueFinished)
    }

    func testCommandsAfterShutdownAreIgnored() async throws {
        let player = Player(output: LibaoOutput(.null))
        player.shutdown()
        for await event in player.events { XCTFail("no events after shutdown: \(event)") }
        player.play([item(try fixtures.path("cbr44b"))])
        XCTAssertEqual(player.snapshot().state, .idle)
        XCTAssertTrue(player.waitUntilFinished(timeout: 1))
    }
}

/// Takes audio at once and remembers the largest write, in stereo frames.
private final class WriteSizeOutput: AudioOutput, @unchecked Sendable {
    let isLive: Bool
    private let lock = NSLock()
    private var largest = 0

    init(isLive: Bool) { self.isLive = isLive }

    func open(format: AudioFormat) throws {}
    func close() {}
    var needsPacing: Bool { false }
    var bufferedFrames: Int { 0 }

    func write(_ pcm: UnsafeRawBufferPointer) throws {
        lock.lock()
        largest = max(largest, pcm.count / 4)
        lock.unlock()
    }

    var largestWriteFrames: Int {
        lock.lock()
        defer { lock.unlock() }
        return largest
    }
}
