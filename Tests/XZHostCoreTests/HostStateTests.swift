import Foundation
import XCTest
import XZCatalogue
import XZFolderScan
@testable import XZHostCore
import XZPlaybackValues
import XZSystem
import XZTestSupport

/// The state file: MPD's text read and written, a host's state restored from it, and kept in it.
final class HostStateTests: XCTestCase {
    private var folder: TemporaryFolder!
    private var host: PlayerHost!
    private let reports = Lines()

    /// As Debian's MPD 0.23 wrote it: song 3 of four paused at 2 s, volume 40, repeat on, song 2 at
    /// priority 5, a stream outside its database.
    private static let mpdText = """
        sw_volume: 40
        audio_device_state:1:null
        state: pause
        current: 2
        time: 2.007000
        random: 0
        repeat: 1
        single: 0
        consume: 0
        crossfade: 0
        mixrampdb: 0.000000
        mixrampdelay: -1.000000
        playlist_begin
        0:s1.mp3
        Prio: 5
        1:s2.mp3
        2:s3.mp3
        song_begin: http://radio.example.invalid/live.mp3
        song_end
        playlist_end

        """

    override func setUpWithError() throws {
        folder = try TemporaryFolder("host-state")
        let music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        for index in 1...3 {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("s\(index).mp3").path, seconds: 4,
                                      tags: .init(title: "Song \(index)", artist: "State Band", album: "Kept", track: index))
        }
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let database = try library.open(seedingDemoFrom: nil)
        try database.importFolder(at: music)
        host = PlayerHost(folder: library, database: database, output: .null, musicDirectory: music) { [reports] line in
            reports.lines.withLock { $0.append(line) }
        }
    }

    override func tearDown() {
        host?.shutdown()
        host = nil
        folder = nil
    }

    func testMPDsFileIsReadAndWrittenBackLineForLine() throws {
        let state = HostState(parsing: Self.mpdText)
        XCTAssertEqual(state.volume, 40)
        XCTAssertEqual(state.playState, .pause)
        XCTAssertEqual(state.current, 2)
        XCTAssertEqual(state.elapsedSeconds, 2.007, accuracy: 0.0001)
        XCTAssertTrue(state.repeats)
        XCTAssertEqual(state.outputs, [.init(name: "null", enabled: true)])
        XCTAssertEqual(state.queue, [.init(uri: "s1.mp3"), .init(uri: "s2.mp3", priority: 5), .init(uri: "s3.mp3"),
                                     .init(uri: "http://radio.example.invalid/live.mp3")])
        XCTAssertNil(state.replayGainMode, "MPD's file leaves the config's mode")
        XCTAssertEqual(state.text, Self.mpdText)
    }

    /// One bad value in each of MPD's lines (and ours) drops that line alone, named by its number and key:
    /// every other setting and the queue are kept, as MPD keeps them.
    func testABadValueDropsItsLineAndKeepsTheRest() throws {
        let good = HostState(parsing: Self.mpdText)
        func parsed(_ text: String) -> HostState.Parser.Result {
            var parser = HostState.Parser()
            HostState.lines(of: text).forEach { parser.read($0) }
            return parser.finish()
        }
        XCTAssertEqual(parsed(Self.mpdText).droppedCount, 0)
        let cases: [(good: String, bad: String, key: String, line: Int, kept: (inout HostState) -> Void)] = [
            ("sw_volume: 40", "sw_volume: 400", "sw_volume", 1, { $0.volume = 100 }),
            ("sw_volume: 40", "sw_volume: -1", "sw_volume", 1, { $0.volume = 100 }),
            ("audio_device_state:1:null", "audio_device_state:2:null", "audio_device_state", 2, { $0.outputs = [] }),
            ("audio_device_state:1:null", "audio_device_state:yes", "audio_device_state", 2, { $0.outputs = [] }),
            ("state: pause", "state: dancing", "state", 3, { $0.playState = .stop }),
            ("current: 2", "current: -5", "current", 4, { $0.current = nil }),
            ("current: 2", "current: 99999999999999999999999", "current", 4, { $0.current = nil }),
            ("time: 2.007000", "time: -5", "time", 5, { $0.elapsedSeconds = 0 }),
            ("time: 2.007000", "time: nan", "time", 5, { $0.elapsedSeconds = 0 }),
            ("time: 2.007000", "time: inf", "time", 5, { $0.elapsedSeconds = 0 }),
            ("random: 0", "random: 2", "random", 6, { _ in }),
            ("repeat: 1", "repeat: yes", "repeat", 7, { $0.repeats = false }),
            ("single: 0", "single: 7", "single", 8, { _ in }),
            ("consume: 0", "consume: -1", "consume", 9, { _ in }),
            ("crossfade: 0", "crossfade: 1e308", "crossfade", 10, { _ in }),
            ("crossfade: 0", "crossfade: -3", "crossfade", 10, { _ in }),
            ("mixrampdb: 0.000000", "mixrampdb: inf", "mixrampdb", 11, { _ in }),
            ("mixrampdb: 0.000000", "mixrampdb: loud", "mixrampdb", 11, { _ in }),
            ("mixrampdelay: -1.000000", "mixrampdelay: -inf", "mixrampdelay", 12, { _ in }),
            ("mixrampdelay: -1.000000", "mixrampdelay: -1.000000\nreplay_gain_mode: loudest", "replay_gain_mode", 13, { _ in }),
            ("Prio: 5", "Prio: 999", "Prio", 15, { $0.queue[1].priority = 0 }),
            ("Prio: 5", "Prio: -1", "Prio", 15, { $0.queue[1].priority = 0 }),
            ("1:s2.mp3", "s2.mp3", "playlist", 16, { $0.queue.remove(at: 1) }),
            ("1:s2.mp3", "-1:s2.mp3", "playlist", 16, { $0.queue.remove(at: 1) }),
            ("1:s2.mp3", "1:", "playlist", 16, { $0.queue.remove(at: 1) }),
            ("song_end\n", "", "song_begin", 18, { $0.queue.removeLast() }),
            ("playlist_end\n", "", "playlist_begin", 19, { _ in }),
        ]
        for (goodLine, badLine, key, line, kept) in cases {
            let text = Self.mpdText.replacingOccurrences(of: goodLine, with: badLine)
            XCTAssertNotEqual(text, Self.mpdText)
            let result = parsed(text)
            var expected = good
            kept(&expected)
            XCTAssertEqual(result.state, expected, badLine)
            XCTAssertEqual(result.droppedCount, 1, badLine)
            XCTAssertEqual(result.dropped.first?.line, line, badLine)
            XCTAssertEqual(result.dropped.first?.key, key, badLine)
        }
        // MPD writes `nan` for a MixRamp delay turned off: that is off, not damage.
        let off = parsed(Self.mpdText.replacingOccurrences(of: "mixrampdelay: -1.000000", with: "mixrampdelay: nan"))
        XCTAssertEqual(off.droppedCount, 0)
        XCTAssertEqual(off.state, good)
        // Garbage is dropped, MPD's other blocks (`mount_begin`) skipped; ten dropped lines are named, the rest counted.
        let garbage = parsed("\u{7F}ELF\u{01}\u{00}garbage\nmount_begin\nuri: nfs://x\nmount_end\n"
            + String(repeating: "random: 2\n", count: 25) + Self.mpdText)
        XCTAssertEqual(garbage.state, good)
        XCTAssertEqual(garbage.droppedCount, 26)
        XCTAssertEqual(garbage.dropped.first, .init(line: 1, key: "line", value: "ELFgarbage"))
        XCTAssertEqual(garbage.dropped.count, HostState.Parser.droppedLimit)
    }

    /// A damaged file restores every good line, says which it dropped, and is kept beside the new one as it
    /// was, the first time only.
    func testADamagedFileIsRestoredAndKeptBesideTheNewOne() throws {
        let path = folder.path("library/host.state")
        try Self.mpdText.write(toFile: path, atomically: true, encoding: .utf8)
        host.restoreState(from: path, paused: true)
        XCTAssertEqual(reports.lines.withLock { $0 }.count, 1, "only the stream is gone: \(reports.lines.withLock { $0 })")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".damaged"), "a good file is not copied")
        host.clearQueue()

        let damaged = Self.mpdText.replacingOccurrences(of: "random: 0", with: "random: 2")
            .replacingOccurrences(of: "crossfade: 0", with: "crossfade: 1e308")
        try damaged.write(toFile: path, atomically: true, encoding: .utf8)
        reports.lines.withLock { $0 = [] }
        host.restoreState(from: path, paused: true)
        let snapshot = host.snapshot()
        XCTAssertEqual(snapshot.queue.map(\.title), ["Song 1", "Song 2", "Song 3"])
        XCTAssertEqual(snapshot.current?.title, "Song 3")
        XCTAssertEqual(snapshot.volume, 40)
        XCTAssertTrue(snapshot.repeats)
        XCTAssertEqual(snapshot.entries.map(\.priority), [0, 5, 0])
        let lines = reports.lines.withLock { $0 }
        XCTAssertTrue(lines.contains { $0.contains(path) && $0.contains("line 6") && $0.contains("random") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.contains(path) && $0.contains("line 10") && $0.contains("crossfade") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.contains(path + ".damaged") }, "\(lines)")
        XCTAssertEqual(try String(contentsOfFile: path + ".damaged", encoding: .utf8), damaged)

        // A later damage does not replace the copy; the next save replaces the file, and the copy stays as it was.
        try Self.mpdText.replacingOccurrences(of: "repeat: 1", with: "repeat: 9").write(toFile: path, atomically: true, encoding: .utf8)
        host.clearQueue()
        host.restoreState(from: path, paused: true)
        XCTAssertEqual(host.snapshot().queue.count, 3)
        XCTAssertEqual(try String(contentsOfFile: path + ".damaged", encoding: .utf8), damaged)
        host.keepState(at: path)
        host.setVolume(41)
        host.shutdown()
        XCTAssertTrue(try String(contentsOfFile: path, encoding: .utf8).contains("sw_volume: 41"))
        XCTAssertEqual(try String(contentsOfFile: path + ".damaged", encoding: .utf8), damaged)
    }

    /// A file far past what the queue's cap needs is read to the cap, a chunk at a time: one line says it
    /// was cut, the songs before the cut are restored, and memory stays far below the file's size.
    func testAHugeFileIsCutWithOneLineInBoundedMemory() throws {
        host.maxQueueLength = 1000
        let path = folder.path("library/host.state")
        let limit = HostState.maxFileBytes(maxQueueLength: 1000)
        // Song blocks whose tag lines (skipped, as MPD's own) make each song 40 kB: 64 MB in all.
        let tag = "Title: " + String(repeating: "x", count: 4000) + "\n"
        let block = Data(("song_begin: s1.mp3\n" + String(repeating: tag, count: 10) + "song_end\n").utf8)
        FileManager.default.createFile(atPath: path, contents: Data("sw_volume: 40\nstate: stop\nplaylist_begin\n".utf8))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        var chunk = Data()
        for _ in 0..<100 { chunk.append(block) }
        for _ in 0..<16 { handle.write(chunk) }
        handle.write(Data("playlist_end\n".utf8))
        handle.closeFile()
        chunk = Data()
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        XCTAssertGreaterThan(size, 15 * limit)

        let before = try Self.memoryKilobytes("VmRSS")
        // The peak from here on (Linux: 5 resets the process's high-water mark).
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        host.restoreState(from: path, paused: true)
        let peak = try Self.memoryKilobytes("VmHWM")
        let grown = peak - before
        XCTAssertLessThan(grown, 24 * 1024, "the file is \(size / 1_048_576) MB; memory grew \(grown / 1024) MB")

        let lines = reports.lines.withLock { $0 }
        XCTAssertEqual(lines.filter { $0.contains("longer than") }.count, 1, "\(lines)")
        XCTAssertEqual(lines.count, 2, "the cut, and the copy kept: \(lines)")
        let queued = host.snapshot().queue.count
        XCTAssertTrue((limit / block.count - 1...limit / block.count).contains(queued), "\(queued) songs before the cut")
        XCTAssertEqual(host.snapshot().volume, 40)
    }

    private static func memoryKilobytes(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    func testRestoringLeavesOutVanishedSongsAndComesBackPausedAtItsPlace() throws {
        try FileManager.default.removeItem(atPath: folder.path("music/s2.mp3"))
        host.restore(HostState(parsing: Self.mpdText), paused: true)
        XCTAssertTrue(eventually(timeout: 10) { host.snapshot().positionMs >= 1900 }, "seeked to the saved place")
        let snapshot = host.snapshot()
        XCTAssertEqual(snapshot.queue.map(\.title), ["Song 1", "Song 3"], "no host streams here: the stream is gone too")
        XCTAssertEqual(snapshot.state, .paused)
        XCTAssertEqual(snapshot.current?.title, "Song 3")
        XCTAssertEqual(snapshot.volume, 40)
        XCTAssertTrue(snapshot.repeats)
        XCTAssertEqual(reports.lines.withLock { $0 }.count, 2, "one line per song left out: \(reports.lines.withLock { $0 })")
        XCTAssertTrue(reports.lines.withLock { $0 }.first?.contains("s2.mp3") ?? false)

        let saved = host.currentState()
        XCTAssertEqual(saved.queue, [.init(uri: "s1.mp3"), .init(uri: "s3.mp3")])
        XCTAssertEqual(saved.current, 1)
        XCTAssertEqual(saved.playState, .pause)
        XCTAssertEqual(saved.elapsedSeconds, 2.007, accuracy: 0.3)
    }

    func testPrioritiesAndOptionsComeBack() throws {
        var state = HostState(parsing: Self.mpdText)
        state.queue.removeLast()
        state.queue[2].priority = 200
        state.single = .oneshot
        state.consume = true
        state.replayGainMode = .album
        state.playState = .play
        host.restore(state, paused: false)
        let snapshot = host.snapshot()
        XCTAssertEqual(snapshot.entries.map(\.priority), [0, 5, 200])
        XCTAssertEqual(snapshot.single, .oneshot)
        XCTAssertTrue(snapshot.consume)
        XCTAssertEqual(snapshot.replayGainMode, .album)
        XCTAssertEqual(snapshot.state, .playing, "restore_paused = no plays on")
    }

    func testANameWithALineBreakIsNotWrittenIntoTheFile() throws {
        let odd = folder.path("music/two\nlines.mp3")
        try FileManager.default.copyItem(atPath: folder.path("music/s1.mp3"), toPath: odd)
        host.add(QueueItem.items([.file(odd), .file(folder.path("music/s3.mp3"))], database: host.database))
        XCTAssertTrue(host.playItem(at: 1))
        let state = host.currentState()
        XCTAssertEqual(state.queue, [.init(uri: "s3.mp3")])
        XCTAssertEqual(state.current, 0)
        XCTAssertEqual(HostState(parsing: state.text), state)
    }

    func testTheKeeperSavesAChangeAndAgainAtShutdown() throws {
        let path = folder.path("library/host.state")
        host.keepState(at: path)
        host.add(QueueItem.items([.file(folder.path("music/s1.mp3"))], database: host.database))
        host.setVolume(33)
        XCTAssertTrue(eventually(timeout: 10) {
            (try? String(contentsOfFile: path, encoding: .utf8))?.contains("sw_volume: 33") ?? false
        }, "saved a second after the change")
        XCTAssertTrue(try String(contentsOfFile: path, encoding: .utf8).contains("0:s1.mp3\nplaylist_end\n"))
        host.setVolume(34)
        host.shutdown()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains("sw_volume: 34"), "saved at shutdown: \(text)")
        XCTAssertEqual(HostState(parsing: text).volume, 34)
    }
}

/// What the host reported, from any thread.
private final class Lines: Sendable {
    let lines = Mutex<[String]>([])
}
