import Foundation
import XCTest
import XZTestSupport

/// `xzmusic serve`, one-shot commands and prompts as its clients, and mpc beside them: real processes
/// on a temporary library and socket.
final class HostCommandTests: LibraryProcessTestCase {
    override func setUpWithError() throws {
        temp = try TemporaryFolder("host")
        // The library and its demo exist before processes race to open it.
        XCTAssertEqual(try xzmusic(["info", "#1"]).status, 0)
    }

    private func serve(_ extra: [String] = []) throws -> RunningProcess {
        let host = try RunningProcess(binary, ["serve", "--port", "0"] + extra, environment: environment)
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        return host
    }

    /// The TCP port the host printed.
    private func port(of host: RunningProcess) throws -> String {
        let line = try XCTUnwrap(host.stdout.split(separator: "\n").first { $0.contains("hosting") })
        return try XCTUnwrap(line.split(separator: ":").last.map(String.init))
    }

    private func waitUntil(_ what: String, timeout: TimeInterval = 10, _ condition: () throws -> Bool) rethrows {
        XCTAssertTrue(try eventually(timeout: timeout, condition), what)
    }

    /// MPD's previous always goes back; the prompt's own prev restarts a song more than 3 s in.
    func testPrevRestartsASongMoreThanThreeSecondsIn() throws {
        let host = try serve()
        defer {
            host.signal(SIGTERM)
            _ = host.finish()
        }
        let port = try port(of: host)
        XCTAssertEqual(try xzmusic(["play", "晴天小调", "#4"]).status, 0)
        XCTAssertEqual(try xzmusic(["next"]).status, 0)
        try waitUntil("next song") { try xzmusic(["now"]).stdout.contains("Café du Matin") }
        _ = try TestProcess.runChecked("mpc", ["-p", port, "seek", "5"])
        XCTAssertEqual(try xzmusic(["prev"]).status, 0)
        let status = try TestProcess.run("mpc", ["-p", port, "status"]).stdout
        XCTAssertTrue(status.contains("#2/2") && [" 0:00/", " 0:01/", " 0:02/"].contains(where: status.contains),
                      "the same song from its start: \(status)")
        XCTAssertEqual(try xzmusic(["prev"]).status, 0)
        try waitUntil("the song before") { try xzmusic(["now"]).stdout.contains("晴天小调") }
    }

    /// `add` of a playlist's URL asks the host to load it: the list's songs are queued, not the list.
    func testAddingAPlaylistURLQueuesItsSongsOnTheHost() throws {
        let server = try TestHTTPServer { request, _ in
            request.path == "/lists/mix.m3u" ? .text(200, "http://127.0.0.1:9/a.mp3\nb.ogg\n") : .text(404, "no")
        }
        defer { server.stop() }
        let host = try serve()
        defer {
            host.signal(SIGTERM)
            _ = host.finish()
        }
        XCTAssertEqual(try xzmusic(["add", server.url("/lists/mix.m3u")]).status, 0)
        let files = try TestProcess.run("mpc", ["-p", try port(of: host), "playlist", "-f", "%file%"]).stdout
        XCTAssertEqual(files, "http://127.0.0.1:9/a.mp3\n\(server.url("/lists/b.ogg"))\n")
        let gone = try xzmusic(["add", server.url("/lists/gone.m3u")])
        XCTAssertEqual(gone.status, 1)
        XCTAssertTrue(gone.stderr.contains("HTTP 404"), gone.stderr)
    }

    func testOneShotCommandsDriveTheHost() throws {
        let host = try serve()
        XCTAssertEqual(try xzmusic(["play", "晴天小调", "#4"]).status, 0)
        try waitUntil("the host plays") { try xzmusic(["now"]).stdout.contains("晴天小调") }
        XCTAssertTrue(try xzmusic(["queue"]).stdout.contains("Café du Matin"))
        XCTAssertEqual(try xzmusic(["next"]).status, 0)
        try waitUntil("next song") { try xzmusic(["now"]).stdout.contains("Café du Matin") }
        XCTAssertTrue(try xzmusic(["pause"]).stdout.contains("paused"))
        XCTAssertEqual(try xzmusic(["volume", "35"]).stdout, "volume 35\n")
        XCTAssertEqual(try xzmusic(["repeat", "one"]).stdout, "repeat one\n")
        let mpc = try TestProcess.run("mpc", ["-p", try port(of: host), "status"]).stdout
        XCTAssertTrue(mpc.contains("[paused]"), mpc)
        XCTAssertTrue(mpc.contains("volume: 35%"), mpc)
        XCTAssertTrue(mpc.contains("repeat: on") && mpc.contains("single: on"), mpc)
        XCTAssertEqual(try xzmusic(["like"]).status, 0, "like names the host's song")
        XCTAssertTrue(try xzmusic(["liked"]).stdout.contains("Café du Matin"))
        XCTAssertEqual(try xzmusic(["queue", "remove", "1"]).status, 0)
        XCTAssertEqual(try xzmusic(["queue"]).stdout.split(separator: "\n").count, 1)

        let second = try RunningProcess(binary, ["serve", "--port", "0"], environment: environment)
        XCTAssertEqual(second.finish(), 1)
        XCTAssertTrue(second.stderr.contains("already hosts this library"), second.stderr)

        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
        XCTAssertTrue(try xzmusic(["history", "--json"]).stdout.contains("晴天小调"), "the host saved its play sessions")
        let alone = try xzmusic(["next"])
        XCTAssertEqual(alone.status, 1)
        XCTAssertTrue(alone.stderr.contains("no xzmusic host runs"), alone.stderr)
    }

    func testAPromptAttachesAndQuittingLeavesTheMusicPlaying() throws {
        let host = try serve()
        let prompt = try xzmusic([], input: "play 晴天小调\nnow\nquit\n")
        XCTAssertEqual(prompt.status, 0, prompt.stderr)
        try waitUntil("still playing after the prompt left") { try xzmusic(["now"]).stdout.contains("playing") }
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
    }

    func testTwoPromptsOnOneHostBothSeeEveryChange() throws {
        let host = try serve()
        let first = try RunningProcess(binary, [], environment: environment)
        let second = try RunningProcess(binary, [], environment: environment)
        Thread.sleep(forTimeInterval: 1)
        second.send("play 晴天小调 #4")
        XCTAssertTrue(first.waitForOutput("▶ 晴天小调"), "the other prompt hears the track change: \(first.stdout) \(first.stderr)")
        XCTAssertTrue(second.waitForOutput("▶ 晴天小调"), second.stdout)
        XCTAssertEqual(try xzmusic(["next"]).status, 0, "a one-shot command beside them")
        XCTAssertTrue(first.waitForOutput("▶ Café du Matin"), first.stdout)
        XCTAssertTrue(second.waitForOutput("▶ Café du Matin"), second.stdout)
        for prompt in [first, second] {
            prompt.send("quit")
            prompt.closeInput()
            XCTAssertEqual(prompt.finish(), 0)
        }
        XCTAssertTrue(try xzmusic(["now"]).stdout.contains("playing"), "attached prompts leave the music playing")
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
    }

    func testThePromptHostsWhenNoHostRuns() throws {
        let prompt = try RunningProcess(binary, [], environment: environment)
        prompt.send("play 晴天小调")
        try waitUntil("one-shot commands reach the prompt's player") { try xzmusic(["now"]).stdout.contains("晴天小调") }
        XCTAssertEqual(try xzmusic(["stop"]).status, 0)
        prompt.send("quit")
        prompt.closeInput()
        XCTAssertEqual(prompt.finish(), 0)
        XCTAssertEqual(try xzmusic(["now"]).status, 1, "the music left with its host")
    }

    func testThePromptPlaysWhenItCannotServe() throws {
        // A runtime folder that is a file: no socket can be made under it.
        _ = FileManager.default.createFile(atPath: temp.path("run"), contents: Data())
        let prompt = try xzmusic([], input: "play 晴天小调\nnow\nquit\n")
        XCTAssertEqual(prompt.status, 0, prompt.stderr)
        XCTAssertTrue(prompt.stderr.contains("serves no other program"), prompt.stderr)
        XCTAssertTrue(prompt.stdout.contains("晴天小调"), prompt.stdout)
    }

    func testAKilledHostsSocketIsReplaced() throws {
        let first = try serve()
        first.signal(SIGKILL)
        _ = first.finish()
        XCTAssertEqual(try xzmusic(["now"]).status, 1, "a dead host's socket answers nobody")
        let second = try serve()
        XCTAssertEqual(try xzmusic(["play", "#1"]).status, 0)
        second.signal(SIGHUP)
        XCTAssertEqual(second.finish(), 0)
    }
}
