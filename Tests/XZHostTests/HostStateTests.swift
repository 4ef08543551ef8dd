import Foundation
import XCTest
import XZCatalogue
import XZFolderScan
@testable import XZHost
import XZPlaybackTerms
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
        let state = try HostState(parsing: Self.mpdText)
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

    func testAFileCutShortOrWithBadValuesIsDamaged() {
        let lines = Self.mpdText.split(separator: "\n").map(String.init)
        for cut in [0, 3, 13, 15, lines.count - 1] {
            let text = lines.prefix(cut).joined(separator: "\n")
            XCTAssertThrowsError(try HostState(parsing: text), "cut after \(cut) lines")
        }
        XCTAssertThrowsError(try HostState(parsing: String(Self.mpdText.dropLast(5))), "cut inside the last line")
        XCTAssertThrowsError(try HostState(parsing: "\u{7F}ELF\u{01}\u{00}garbage\nplaylist_end\n\u{00}"))
        for (good, bad) in [("sw_volume: 40", "sw_volume: 400"), ("state: pause", "state: dancing"),
                            ("1:s2.mp3", "s2.mp3"), ("Prio: 5", "Prio: 999"), ("time: 2.007000", "time: nan")] {
            XCTAssertThrowsError(try HostState(parsing: Self.mpdText.replacingOccurrences(of: good, with: bad)), bad)
        }
    }

    func testRestoringLeavesOutVanishedSongsAndComesBackPausedAtItsPlace() throws {
        try FileManager.default.removeItem(atPath: folder.path("music/s2.mp3"))
        host.restore(try HostState(parsing: Self.mpdText), paused: true)
        XCTAssertTrue(eventually(timeout: 10) { host.player.snapshot().positionMs >= 1900 }, "seeked to the saved place")
        let snapshot = host.player.snapshot()
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
        var state = try HostState(parsing: Self.mpdText)
        state.queue.removeLast()
        state.queue[2].priority = 200
        state.single = .oneshot
        state.consume = true
        state.replayGainMode = .album
        state.playState = .play
        host.restore(state, paused: false)
        let snapshot = host.player.snapshot()
        XCTAssertEqual(snapshot.entries.map(\.priority), [0, 5, 200])
        XCTAssertEqual(snapshot.single, .oneshot)
        XCTAssertTrue(snapshot.consume)
        XCTAssertEqual(snapshot.replayGainMode, .album)
        XCTAssertEqual(snapshot.state, .playing, "restore_paused = no plays on")
    }

    func testANameWithALineBreakIsNotWrittenIntoTheFile() throws {
        let odd = folder.path("music/two\nlines.mp3")
        try FileManager.default.copyItem(atPath: folder.path("music/s1.mp3"), toPath: odd)
        host.player.add(QueueItem.items([.file(odd), .file(folder.path("music/s3.mp3"))], database: host.database))
        XCTAssertTrue(host.player.playItem(at: 1))
        let state = host.currentState()
        XCTAssertEqual(state.queue, [.init(uri: "s3.mp3")])
        XCTAssertEqual(state.current, 0)
        XCTAssertEqual(try HostState(parsing: state.text), state)
    }

    func testTheKeeperSavesAChangeAndAgainAtShutdown() throws {
        let path = folder.path("library/host.state")
        host.keepState(at: path)
        host.player.add(QueueItem.items([.file(folder.path("music/s1.mp3"))], database: host.database))
        host.player.setVolume(33)
        XCTAssertTrue(eventually(timeout: 10) {
            (try? String(contentsOfFile: path, encoding: .utf8))?.contains("sw_volume: 33") ?? false
        }, "saved a second after the change")
        XCTAssertTrue(try String(contentsOfFile: path, encoding: .utf8).contains("0:s1.mp3\nplaylist_end\n"))
        host.player.setVolume(34)
        host.shutdown()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains("sw_volume: 34"), "saved at shutdown: \(text)")
        XCTAssertEqual(try HostState(parsing: text).volume, 34)
    }
}

/// What the host reported, from any thread.
private final class Lines: Sendable {
    let lines = Mutex<[String]>([])
}
