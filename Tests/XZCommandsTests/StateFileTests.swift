import Foundation
import XCTest
import XZTestSupport

/// `xzmusic serve` keeps its queue and player state in the library's `host.state` across restarts, as
/// MPD's `state_file`: real hosts stopped by SIGTERM and SIGKILL, driven by mpc, on copies of the demo songs.
final class StateFileTests: LibraryProcessTestCase {
    private var stateFile: String { temp.path("library/host.state") }

    override func setUpWithError() throws {
        temp = try TemporaryFolder("state-file")
        let music = temp.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        let demo = TestPaths.repositoryRoot.appendingPathComponent("Resources/demo/songs")
        for (index, name) in ["01-qingtian-xiaodiao", "02-yokaze-no-waltz", "03-bada-sanchaek", "04-cafe-du-matin"].enumerated() {
            try FileManager.default.copyItem(at: demo.appendingPathComponent("\(name).mp3"),
                                             to: music.appendingPathComponent("song\(index + 1).mp3"))
        }
        try writeConfig("")
        XCTAssertEqual(try xzmusic(["info", "#1"]).status, 0)
    }

    private func writeConfig(_ extra: String) throws {
        let config = temp.url.appendingPathComponent("config/xzmusic")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "music_directory = \(temp.path("music"))\n\(extra)".write(to: config.appendingPathComponent("config"),
                                                                     atomically: true, encoding: .utf8)
    }

    /// mpc's `[paused]  #3/4   0:10/0:47 (21%)` as (state, position, length, elapsed seconds, rounded).
    private func player(_ port: String) throws -> (state: String, song: Int, of: Int, elapsed: Int)? {
        let status = try mpc(port, "status")
        let pattern = try NSRegularExpression(pattern: #"\[(\w+)\]\s+#(\d+)/(\d+)\s+(\d+):(\d+)/"#)
        guard let match = pattern.firstMatch(in: status, range: NSRange(status.startIndex..., in: status)) else { return nil }
        func group(_ index: Int) -> String { String(status[Range(match.range(at: index), in: status)!]) }
        return (group(1), Int(group(2))!, Int(group(3))!, Int(group(4))! * 60 + Int(group(5))!)
    }

    private func savedTime() -> Double? {
        guard let text = try? String(contentsOfFile: stateFile, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("time: ") }.flatMap { Double($0.dropFirst(6)) }
    }

    func testAfterSIGTERMTheHostComesBackPausedOnTheSameSongAndPlace() throws {
        var (host, port) = try serveOnFreePort()
        try mpc(port, "add", "song1.mp3", "song2.mp3", "song3.mp3", "song4.mp3")
        try mpc(port, "play", "3")
        try mpc(port, "seek", "10")
        try mpc(port, "volume", "40")
        try mpc(port, "repeat", "on")
        try mpc(port, "prio", "7", "2")
        try mpc(port, "crossfade", "3")
        XCTAssertTrue(try eventually(timeout: 10) { try player(port)?.elapsed ?? 0 >= 11 })
        let playlist = try mpc(port, "playlist")
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
        let text = try String(contentsOfFile: stateFile, encoding: .utf8)
        for line in ["sw_volume: 40", "state: play", "current: 2", "repeat: 1", "crossfade: 3", "Prio: 7\n1:song2.mp3", "3:song4.mp3\nplaylist_end"] {
            XCTAssertTrue(text.contains(line), "\(line) in\n\(text)")
        }
        let saved = try XCTUnwrap(savedTime())

        (host, port) = try serveOnFreePort()
        XCTAssertTrue(try eventually(timeout: 10) { try player(port).map { abs(Double($0.elapsed) - saved) <= 1 } ?? false }, "at \(saved) s: \((try? mpc(port, "status")) ?? "")")
        let restored = try XCTUnwrap(try player(port))
        XCTAssertEqual(restored.state, "paused", "restore_paused is on unless the config says no")
        XCTAssertEqual(restored.song, 3)
        XCTAssertEqual(restored.of, 4)
        let status = try mpc(port, "status")
        XCTAssertTrue(status.contains("volume: 40%") && status.contains("repeat: on"), status)
        XCTAssertEqual(try mpc(port, "playlist"), playlist)
        XCTAssertTrue(try mpc(port, "-f", "%prio%", "playlist").hasPrefix("0\n7\n0\n0"))
        XCTAssertEqual(try mpc(port, "crossfade"), "crossfade: 3\n")
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
    }

    func testAfterSIGKILLTheLastSaveWhilePlayingComesBack() throws {
        var (host, port) = try serveOnFreePort()
        try mpc(port, "add", "song1.mp3", "song2.mp3", "song3.mp3")
        try mpc(port, "volume", "55")
        try mpc(port, "random", "on")
        try mpc(port, "play", "2")
        // The last change (play) was saved near 0 s: a later place comes from the saves while playing.
        XCTAssertTrue(eventually(timeout: 20) { savedTime() ?? 0 >= 5 }, "saved while playing")
        let song = try XCTUnwrap(try player(port)).song
        host.signal(SIGKILL)
        _ = host.finish()
        let saved = try XCTUnwrap(savedTime())

        (host, port) = try serveOnFreePort()
        XCTAssertTrue(try eventually(timeout: 10) { try player(port).map { abs(Double($0.elapsed) - saved) <= 1 } ?? false }, "at \(saved) s: \((try? mpc(port, "status")) ?? "")")
        let restored = try XCTUnwrap(try player(port))
        XCTAssertEqual(restored.state, "paused")
        XCTAssertEqual(restored.song, song)
        let status = try mpc(port, "status")
        XCTAssertTrue(status.contains("volume: 55%") && status.contains("random: on"), status)
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
    }

    func testASongThatVanishedIsLeftOutWithOneLine() throws {
        var (host, port) = try serveOnFreePort()
        try mpc(port, "add", "song1.mp3", "song2.mp3", "song3.mp3")
        try mpc(port, "play", "3")
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
        try FileManager.default.removeItem(atPath: temp.path("music/song2.mp3"))

        (host, port) = try serveOnFreePort()
        XCTAssertEqual(try mpc(port, "-f", "%file%", "playlist"), "song1.mp3\nsong3.mp3\n")
        XCTAssertEqual(try XCTUnwrap(try player(port)).song, 2, "still on the same song, now second")
        let lines = host.stdout.split(separator: "\n").filter { $0.contains("song2.mp3") }
        XCTAssertEqual(lines.count, 1, host.stdout)
        XCTAssertTrue(lines.first?.contains("gone") ?? false, host.stdout)
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
    }

    func testACorruptStateFileIsNamedKeptAsItWasAndWrittenAfresh() throws {
        let garbage = Data([0x7F, 0x45, 0x4C, 0x46, 0x00, 0xFF, 0x0A, 0x73, 0x77])
        try garbage.write(to: URL(fileURLWithPath: stateFile))
        let (host, port) = try serveOnFreePort()
        XCTAssertEqual(try mpc(port, "playlist"), "")
        let lines = host.stdout.split(separator: "\n").filter { $0.contains(stateFile) }
        XCTAssertEqual(lines.filter { $0.contains("line 1: bad line") }.count, 1, host.stdout)
        XCTAssertEqual(lines.filter { $0.contains("kept as it was") }.count, 1, host.stdout)
        try mpc(port, "add", "song1.mp3")
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
        XCTAssertTrue(try String(contentsOfFile: stateFile, encoding: .utf8).contains("0:song1.mp3"), "written afresh")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: stateFile + ".damaged")), garbage)
    }

    func testATruncatedStateFileKeepsWhatItHolds() throws {
        var (host, port) = try serveOnFreePort()
        try mpc(port, "add", "song1.mp3", "song2.mp3", "song3.mp3")
        try mpc(port, "volume", "20")
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
        let whole = try Data(contentsOf: URL(fileURLWithPath: stateFile))
        // Cut inside the last song's line: "2:son".
        try whole.prefix(whole.count - 20).write(to: URL(fileURLWithPath: stateFile))

        (host, port) = try serveOnFreePort()
        XCTAssertEqual(try mpc(port, "-f", "%file%", "playlist"), "song1.mp3\nsong2.mp3\n")
        XCTAssertTrue(try mpc(port, "status").contains("volume: 20%"))
        XCTAssertEqual(host.stdout.split(separator: "\n").filter { $0.contains("no playlist_end") }.count, 1, host.stdout)
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
    }

    func testAHostingPromptSavesWhenItQuits() throws {
        let prompt = try RunningProcess(binary, [], environment: environment)
        XCTAssertTrue(eventually(timeout: 20) { (try? xzmusic(["volume", "35"]).status) == 0 }, "one-shot commands reach the prompt")
        prompt.send("quit")
        prompt.closeInput()
        XCTAssertEqual(prompt.finish(), 0)
        XCTAssertTrue(try String(contentsOfFile: stateFile, encoding: .utf8).contains("sw_volume: 35\n"))
    }

    func testStateFileNoneKeepsNothingAndRestorePausedNoPlaysOn() throws {
        try writeConfig("state_file = none\n")
        var (host, port) = try serveOnFreePort()
        try mpc(port, "add", "song1.mp3")
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stateFile))

        let elsewhere = temp.path("elsewhere.state")
        try writeConfig("state_file = \(elsewhere)\nrestore_paused = no\n")
        (host, port) = try serveOnFreePort()
        try mpc(port, "add", "song1.mp3", "song2.mp3")
        try mpc(port, "play", "2")
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: elsewhere))
        (host, port) = try serveOnFreePort()
        XCTAssertEqual(try XCTUnwrap(try player(port)).state, "playing")
        XCTAssertEqual(try XCTUnwrap(try player(port)).song, 2)
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
    }
}
