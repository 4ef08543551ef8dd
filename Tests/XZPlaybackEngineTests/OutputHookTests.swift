import Foundation
import XCTest
import XZAudio
import XZPlaybackEngine
import XZPlaybackValues
import XZTestSupport

/// The player tells its output when a song's first samples go out and when it pauses (a stream output
/// shows the title and sends silence).
final class OutputHookTests: XCTestCase {
    func testTheNextSongIsToldAtTheGaplessBoundary() throws {
        let fixtures = try PlaybackFixtures.shared()
        let folder = try TemporaryFolder("output-hooks")
        let first = try fixtures.path("cbr44"), second = try fixtures.path("cbr44b")
        let alone = try Render.run([item(first)], in: folder)
        let output = HookLogOutput(paced: false)
        let player = Player(output: output)
        player.play([QueueItem(path: first, title: "One", singer: "Ann", album: "Both"), QueueItem(path: second, title: "Two")])
        XCTAssertTrue(player.waitUntilFinished(timeout: 60))
        player.shutdown()
        XCTAssertEqual(output.songs.map(\.title), ["One", "Two"])
        XCTAssertEqual(output.songs.first?.artist, "Ann")
        XCTAssertEqual(output.songs.first?.album, "Both")
        XCTAssertNil(output.songs.last?.artist, "an empty artist is none")
        XCTAssertEqual(output.songs.first?.bytesBefore, 0)
        XCTAssertEqual(output.songs.last?.bytesBefore, alone.pcm.count, "told when the first song's last byte has gone out")
    }

    func testPauseAndResumeAreTold() throws {
        let fixtures = try PlaybackFixtures.shared()
        let output = HookLogOutput(paced: true)
        let player = Player(output: output)
        player.play([item(try fixtures.path("long6"))])
        XCTAssertTrue(output.waitForBytes(1))
        player.pause()
        player.pause()
        player.resume()
        player.stop()
        XCTAssertTrue(player.waitUntilFinished(timeout: 20))
        player.shutdown()
        XCTAssertEqual(output.pauses, [true, false])
    }
}

/// An output that takes audio at once and logs the hooks with the bytes written before each.
private final class HookLogOutput: AudioOutput, @unchecked Sendable {
    struct Song { var title: String?, artist: String?, album: String?, bytesBefore: Int }
    private let condition = NSCondition()
    private var bytes = 0
    private var songList: [Song] = []
    private var pauseList: [Bool] = []
    let needsPacing: Bool

    init(paced: Bool) { needsPacing = paced }

    func open(format: AudioFormat) throws {}
    func close() {}
    var bufferedFrames: Int { 0 }
    func outputFormat(for source: AudioFormat) -> AudioFormat { source.with(sample: .s16) }

    func write(_ pcm: UnsafeRawBufferPointer) throws {
        locked { bytes += pcm.count }
    }

    func songStarted(title: String?, artist: String?, album: String?) {
        locked { songList.append(Song(title: title, artist: artist, album: album, bytesBefore: bytes)) }
    }

    func pauseChanged(_ paused: Bool) { locked { pauseList.append(paused) } }

    var songs: [Song] { locked { songList } }
    var pauses: [Bool] { locked { pauseList } }

    func waitForBytes(_ count: Int, timeout: TimeInterval = 20) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while bytes < count, condition.wait(until: deadline) {}
        return bytes >= count
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return body()
    }
}
