import Foundation
import XCTest
import XZTestSupport

/// Prompts and one-shot commands as clients of a host that comes and goes, and the words the prompt
/// takes: real `xzmusic` processes on a temporary library and socket.
final class PromptClientTests: LibraryProcessTestCase {
    override func setUpWithError() throws {
        temp = try TemporaryFolder("prompt-client")
        // The library and its demo exist before processes race to open it.
        XCTAssertEqual(try xzmusic(["info", "#1"]).status, 0)
    }

    private func serve() throws -> RunningProcess {
        let host = try RunningProcess(binary, ["serve", "--no-tcp"], environment: environment)
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        return host
    }

    private func stop(_ host: RunningProcess) {
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
    }

    /// An MP3 of about 0.3 s: the first 5 KB of a 128 kbps file.
    private func cutShortMP3() throws -> String {
        let whole = try AudioFixtures.makeMP3(at: temp.path("whole.mp3"), seconds: 3, lameOptions: ["-b", "128"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole)).prefix(5000)
        let path = temp.path("cut-short.mp3")
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    func testAClientShowsOnlyWhatHappensWhileItIsAttached() throws {
        let host = try serve()
        XCTAssertEqual(try xzmusic(["play", try cutShortMP3()]).status, 0)
        // Asked without 'now', which would tell the error.
        XCTAssertTrue(try eventually(timeout: 20) { try xzmusic(["history", "--json"]).stdout.contains("error") },
                      "the host failed the track")

        let piped = try xzmusic([], input: "search 晴天\nquit\n")
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertTrue(piped.stdout.contains("晴天小调"), piped.stdout)
        XCTAssertFalse((piped.stdout + piped.stderr).contains("cut-short"), "no error from before: \(piped.stdout) \(piped.stderr)")

        let now = try xzmusic(["now"])
        XCTAssertTrue(now.stdout.contains("last error: ") && now.stdout.contains("cut-short.mp3"), now.stdout)
        XCTAssertFalse(try xzmusic(["now"]).stdout.contains("last error"), "told once")
        stop(host)
    }

    func testASecondPromptOutlivesItsHost() throws {
        var host = try serve()
        let prompt = try RunningProcess(binary, [], environment: environment)
        defer { prompt.signal(SIGKILL); _ = prompt.finish() }
        prompt.send("volume 30")
        XCTAssertTrue(prompt.waitForOutput("volume 30"), prompt.stderr)
        stop(host)
        XCTAssertTrue(prompt.waitForOutput("the xzmusic host has stopped"), prompt.stdout)

        // A new host: the prompt attaches to it.
        host = try serve()
        prompt.send("volume 40")
        XCTAssertTrue(prompt.waitForOutput("attached to the xzmusic host now running"), prompt.stdout + prompt.stderr)
        XCTAssertTrue(prompt.waitForOutput("volume 40"), prompt.stdout + prompt.stderr)
        XCTAssertEqual(try xzmusic(["volume"]).stdout, "volume 40\n", "the command reached the new host")
        stop(host)
        XCTAssertTrue(prompt.waitForOutput("the xzmusic host has stopped; the next command"), prompt.stdout)

        // No host: the prompt hosts the player itself, and one-shot commands reach it.
        prompt.send("play 晴天小调")
        XCTAssertTrue(prompt.waitForOutput("this prompt hosts the player now"), prompt.stdout + prompt.stderr)
        XCTAssertTrue(try eventually(timeout: 10) { try xzmusic(["now"]).stdout.contains("晴天小调") })
        XCTAssertFalse(prompt.stderr.contains("lost the connection"), prompt.stderr)
        prompt.send("quit")
        prompt.closeInput()
        XCTAssertEqual(prompt.finish(), 0)
    }

    func testServeInsideAHostingPromptSaysWhatIsTrue() throws {
        let result = try xzmusic([], input: "serve\nquit\n")
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("this prompt already hosts this library"), result.stderr)
        XCTAssertFalse(result.stderr.contains("another xzmusic"), result.stderr)
    }

    func testACutShortFileOnRepeatAllStopsAndIsNoPlay() throws {
        let prompt = try RunningProcess(binary, [], environment: environment)
        defer { prompt.signal(SIGKILL); _ = prompt.finish() }
        prompt.send("repeat all")
        prompt.send("play \(try cutShortMP3())")
        XCTAssertTrue(prompt.waitForOutput("■ stopped: no song in the queue could be played"), prompt.stdout + prompt.stderr)
        prompt.send("quit")
        prompt.closeInput()
        XCTAssertEqual(prompt.finish(), 0)
        XCTAssertEqual(prompt.stdout.components(separatedBy: "▶ cut-short").count - 1, 1, "played once: \(prompt.stdout)")
        let history = try xzmusic(["history", "--json"]).stdout
        let sessions = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(history.utf8)) as? [[String: Any]])
        XCTAssertLessThanOrEqual(sessions.count, 1, history)
        for session in sessions {
            XCTAssertEqual(session["end_reason"] as? String, "error", history)
            XCTAssertEqual(session["counted"] as? Bool, false, history)
            XCTAssertEqual(session["skip"] as? Bool, false, history)
        }
        let stats = try xzmusic(["stats"]).stdout
        XCTAssertTrue(stats.hasPrefix("No plays yet") || stats.hasPrefix("0 plays"), stats)
    }

    func testSignedValuesAreChangesAndBareOnesAreSettings() throws {
        let result = try xzmusic([], input: """
            play 晴天小调
            lyrics offset +200
            lyrics offset +200
            lyrics offset =150
            lyrics offset -50
            lyrics offset 0
            volume 50
            volume -500
            volume +500
            volume =20
            seek =2
            stop
            quit
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        let offsets = result.stdout.split(separator: "\n").filter { $0.hasPrefix("lyrics offset for") }
        XCTAssertEqual(offsets.map { $0.split(separator: ":").last.map(String.init) ?? "" },
                       [" +200 ms (sooner)", " +400 ms (sooner)", " +150 ms (sooner)", " +100 ms (sooner)", " 0 ms"])
        XCTAssertTrue(result.stdout.contains("volume 50\nvolume 20\n"), result.stdout)
        let errors = result.stderr.split(separator: "\n")
        XCTAssertEqual(errors.count, 2, result.stderr)
        XCTAssertTrue(errors.allSatisfy { $0.contains("a volume change must be between -100 and +100") }, result.stderr)
        XCTAssertTrue(result.stdout.hasSuffix("stopped\n"), "stop confirms: \(result.stdout)")
    }

    func testHelpInsideThePromptIsThePromptsUsage() throws {
        let result = try xzmusic([], input: "help play\nhelp queue remove\nstop --help\nhelp nosuch\nquit\n")
        XCTAssertTrue(result.stdout.contains("USAGE: play [<song> ...]"), result.stdout)
        XCTAssertTrue(result.stdout.contains("USAGE: queue remove <n>"), result.stdout)
        XCTAssertTrue(result.stdout.contains("USAGE: stop"), result.stdout)
        for word in ["xzmusic play", "--library", "--version"] {
            XCTAssertFalse(result.stdout.contains(word), "\(word) in: \(result.stdout)")
        }
        XCTAssertTrue(result.stderr.contains("no command 'nosuch'"), result.stderr)
        // The command line's own help still names the program and its options.
        let cli = try xzmusic(["play", "--help"])
        XCTAssertTrue(cli.stdout.contains("USAGE: xzmusic play [--library <dir>]"), cli.stdout)
    }
}
