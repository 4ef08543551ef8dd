import Foundation
import XCTest
import XZPlaybackEngine
import XZPlaybackValues
import XZTestSupport

/// MP3s made once per test run with sox and lame (via AudioFixtures), in a TemporaryFolder (gone at exit).
final class PlaybackFixtures: @unchecked Sendable {
    private static let made: Result<PlaybackFixtures, Error> = Result { try PlaybackFixtures() }

    static func shared() throws -> PlaybackFixtures { try made.get() }

    private let folder: TemporaryFolder
    var dir: URL { folder.url }
    /// name -> path
    private(set) var files: [String: String] = [:]

    private init() throws {
        folder = try TemporaryFolder("playback-fixtures")
        // Short files keep the suite quick on shared cores.
        try make("cbr44", seconds: 2.5, frequency: 440, lame: ["-b", "128"])
        try make("cbr44b", seconds: 1.5, frequency: 660, lame: ["-b", "128"])
        try make("vbr44", seconds: 2.5, frequency: 523, lame: ["-V", "2"])  // Xing/LAME header, gapless info
        try make("mono22", seconds: 2, frequency: 330, rate: 22_050, channels: 1, lame: ["-b", "64"])
        try make("stereo48", seconds: 2, frequency: 880, rate: 48_000, lame: ["-V", "4"])
        try make("mpeg25_8k", seconds: 2, frequency: 300, rate: 8_000, channels: 1, lame: ["-b", "8", "--resample", "8"])
        try make("cjk", seconds: 1.5, frequency: 700, lame: ["-b", "96"],
                 tags: AudioFixtures.Tags(title: "晴天", artist: "周杰伦", album: "叶惠美", track: 3, year: 2003))
        // A 300 KB cover in front of the audio.
        let cover = dir.appendingPathComponent("cover.jpg")
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0]
        var seed: UInt32 = 7
        for _ in 0..<300_000 {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            bytes.append(UInt8(truncatingIfNeeded: seed >> 24))
        }
        try Data(bytes).write(to: cover)
        try make("picture", seconds: 1.5, frequency: 550, lame: ["-b", "128", "--ti", cover.path],
                 tags: AudioFixtures.Tags(title: "With cover"))
        try make("long6", seconds: 6, frequency: 440, lame: ["-b", "128"])  // 128 kbps keeps 44.1 kHz (lame resamples lower rates)
    }

    private func make(_ name: String, seconds: Double, frequency: Int, rate: Int = 44_100, channels: Int = 2,
                      lame: [String], tags: AudioFixtures.Tags? = nil) throws {
        let path = dir.appendingPathComponent(name + ".mp3").path
        try AudioFixtures.makeMP3(at: path, seconds: seconds, frequency: frequency, rate: rate, channels: channels,
                                  tags: tags, lameOptions: lame)
        files[name] = path
    }

    func path(_ name: String) throws -> String {
        guard let path = files[name] else { throw XCTSkip("no fixture \(name)") }
        return path
    }

    /// Writes `bytes` as a new file in the fixture folder.
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: try path(name))))
    }
}

/// Collects events from the audio thread.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [PlayerEvent] = []

    func append(_ event: PlayerEvent) {
        lock.lock()
        list.append(event)
        lock.unlock()
    }

    var events: [PlayerEvent] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }

    /// Polls until `predicate` holds for the events so far; false after `timeout` seconds.
    func wait(timeout: TimeInterval = 20, until predicate: ([PlayerEvent]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if predicate(events) { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return predicate(events)
    }
}

enum Reference {
    /// What `mpg123 -q -s FILE` writes: the reference decode.
    static func mpg123(_ path: String) throws -> Data {
        let result = try TestProcess.run("mpg123", ["-q", "-s", path])
        guard result.status == 0 else { throw XCTSkip("mpg123 failed on \(path): \(result.stderr)") }
        return result.stdoutData
    }

    static func int16s(_ data: Data) -> [Int16] {
        data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// Byte equality with a short message instead of a megabyte dump.
    static func assertSame(_ got: Data, _ expected: Data, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        if got == expected { return }
        let common = min(got.count, expected.count)
        let firstDiff = (0..<common).first { got[got.startIndex + $0] != expected[expected.startIndex + $0] } ?? common
        XCTFail("\(what): \(got.count) bytes vs \(expected.count) expected, first difference at byte \(firstDiff)", file: file, line: line)
    }
}

/// Plays items to a raw file without pacing and returns the bytes and every event.
struct Render {
    let pcm: Data
    let events: [PlayerEvent]
    let failed: Int

    /// The last event of the audio thread's own: a change notice (`.changed`) is said on the thread that
    /// made the change, and may come after the events its effects caused.
    var lastReport: PlayerEvent? {
        events.last { if case .changed = $0 { return false } else { return true } }
    }

    var errors: [(file: String, message: String)] {
        events.compactMap { if case .error(let file, let message) = $0 { return (file, message) } else { return nil } }
    }

    var endings: [(path: String, reason: EndReason)] {
        events.compactMap { if case .ended(let item, let reason, _) = $0 { return (item.path, reason) } else { return nil } }
    }

    var notices: [String] {
        events.compactMap { if case .notice(let text) = $0 { return text } else { return nil } }
    }

    /// The events of the audio itself, without the reports of what changed.
    var audioEvents: [PlayerEvent] { events.filter { $0.reportedChanges == nil } }

    /// The reports of what changed, in order.
    var changes: [PlayerChanges] { events.compactMap(\.reportedChanges) }

    static func run(_ items: [QueueItem], volume: Int = 100, in folder: TemporaryFolder,
                    file: StaticString = #filePath, line: UInt = #line,
                    during: (Player, EventLog) -> Void = { _, _ in },
                    before: (Player) -> Void = { _ in }) throws -> Render {
        let out = folder.path("render-\(UUID().uuidString).raw")
        let log = EventLog()
        let player = Player(output: RawFileOutput(path: out), onEvent: { log.append($0) })
        player.setVolume(volume)
        before(player)
        player.play(items)
        during(player, log)
        XCTAssertTrue(player.waitUntilFinished(timeout: 120), "render did not finish", file: file, line: line)
        let failed = player.failedTrackCount
        player.shutdown()
        let pcm = (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data()
        return Render(pcm: pcm, events: log.events, failed: failed)
    }
}

extension PlayerEvent {
    /// What a `.changed` event reports; nil for the others.
    var reportedChanges: PlayerChanges? {
        if case .changed(let changes) = self { return changes }
        return nil
    }
}

func item(_ path: String, lyrics: String? = nil, adjustmentMs: Int = 0) -> QueueItem {
    QueueItem(path: path, title: URL(fileURLWithPath: path).lastPathComponent, lyricsPath: lyrics, lyricsAdjustmentMs: adjustmentMs)
}

/// A value shared with the audio thread's event handler.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func update(_ body: (inout Value) -> Void) {
        lock.lock()
        body(&stored)
        lock.unlock()
    }
}
