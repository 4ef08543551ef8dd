import Foundation
import XCTest
import XZTestSupport

/// A new user's first minute on the demo library, at the prompt as a script drives it: what an entry
/// without audio says, which songs a search lists first, lyric lines, and the notes at start.
final class FirstMinuteTests: LibraryProcessTestCase {
    override func setUpWithError() throws {
        temp = try TemporaryFolder("first-minute")
    }

    /// No session bus anywhere: no MPRIS for any host here.
    override var environment: [String: String] {
        var env = super.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = nil
        env["XDG_RUNTIME_DIR"] = nil
        return env
    }

    func testAnEntryWithoutAudioSaysSoAndHowToFindTheSongsThatPlay() throws {
        let result = try xzmusic([], input: "search zjl\nplay 1\nadd 2\nnow\nquit\n")
        let errors = result.stderr.split(separator: "\n")
        XCTAssertEqual(errors.count, 2, result.stderr)
        XCTAssertTrue(errors.allSatisfy { $0.contains("is a demo entry with no audio") && $0.contains("'search xzmusic demo'") },
                      result.stderr)
        XCTAssertFalse((result.stdout + result.stderr).contains("example.invalid"), result.stdout)
        XCTAssertFalse(result.stdout.contains("▶"), "nothing was queued: \(result.stdout)")
    }

    func testASearchListsTheSongsThatPlayHereFirst() throws {
        // 晴天 finds the demo's 晴天小调 (a file here) and the catalogue's 晴天 (online only), which ranks first;
        // a field term lists them in the catalogue's order, 晴天 first too.
        for query in ["晴天", "title:晴天"] {
            let result = try xzmusic([], input: "search \(query)\nplay 1\nnow\nquit\n")
            let rows = result.stdout.split(separator: "\n").filter { $0.hasSuffix("✓") || $0.hasSuffix("online") }
            let local = rows.filter { $0.hasSuffix("✓") }
            XCTAssertFalse(local.isEmpty, result.stdout)
            XCTAssertTrue(rows.contains { $0.hasSuffix("online") }, result.stdout)
            XCTAssertEqual(Array(rows.prefix(local.count)), local, "songs here before online ones: \(result.stdout)")
            XCTAssertTrue(result.stdout.contains("▶ 晴天小调 — 林晓舟"), result.stdout)
            XCTAssertEqual(result.stderr, "", query)
        }
    }

    /// Café du Matin's lyrics have blank lines (instrumental breaks at 0:10 and 0:32): they end the line
    /// before and print nothing, where a lone ♪ used to stand.
    func testABlankLyricLinePrintsNothing() throws {
        let result = try xzmusic([], input: "lyrics on\nplay \"Café du Matin\"\nseek 11\nseek 15\nseek 33\nquit\n")
        XCTAssertTrue(result.stdout.contains("♪ Un sourire, deux mots doux"), result.stdout)
        let lyricLines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).filter { $0.hasPrefix("♪") }
        XCTAssertFalse(lyricLines.isEmpty)
        XCTAssertFalse(lyricLines.contains { $0.dropFirst().allSatisfy(\.isWhitespace) }, result.stdout)
    }

    /// Without a session bus the prompt starts without a word of MPRIS; `serve`, whose log is read, says it once.
    func testOnlyServeSaysThereIsNoSessionBus() throws {
        let prompt = try xzmusic([], input: "quit\n")
        XCTAssertFalse((prompt.stdout + prompt.stderr).contains("session bus"), prompt.stdout + prompt.stderr)
        let host = try RunningProcess(binary, ["serve", "--port", "0"], environment: environment)
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        host.signal(SIGTERM)
        _ = host.finish()
        let log = host.stdout + host.stderr
        XCTAssertEqual(log.components(separatedBy: "no session bus").count - 1, 1, log)
    }
}
