import Foundation
import XCTest
import XZTestSupport

/// Every player command of the prompt says the same whether the prompt hosts the player or is attached to
/// `serve`: both go through the same door to the same command table.
final class PlayerCommandParityTests: LibraryProcessTestCase {
    override func setUpWithError() throws {
        temp = try TemporaryFolder("player-parity")
        XCTAssertEqual(try xzmusic(["info", "#1"]).status, 0)
    }

    /// Each line with what it prints (stdout, then stderr after "!"); run in this order.
    private let table: [(line: String, says: String)] = [
        ("play 晴天小调 #4", ""),
        ("pause", "paused"),
        ("queue", "▶   1  晴天小调 — 林晓舟  [0:50]\n    2  Café du Matin — Zoë Lefèvre  [0:45]"),
        ("volume 30", "volume 30"),
        ("volume +5", "volume 35"),
        ("volume -10", "volume 25"),
        ("volume", "volume 25"),
        ("repeat all", "repeat all"),
        ("repeat one", "repeat one"),
        ("repeat off", "repeat off"),
        ("shuffle on", "shuffle on"),
        ("shuffle off", "shuffle off"),
        ("crossfade 2", "crossfade 2 s"),
        ("crossfade 0", "crossfade off"),
        ("lyrics offset +200", "lyrics offset for 晴天小调: +200 ms (sooner)"),
        ("lyrics offset 0", "lyrics offset for 晴天小调: 0 ms"),
        ("seek 0:10", "seek to 0:10 of 0:50"),
        ("add #1", "added 1 to the queue (3 in all)"),
        ("queue remove 3", ""),
        ("queue remove 9", "!error: no entry 9 in the queue (1-2)"),
        ("stop", "stopped"),
        ("now", "Stopped (2 in the queue)."),
        ("next", "!error: nothing is playing: 'play' starts the queue"),
        ("prev", "!error: nothing is playing: 'play' starts the queue"),
        ("playlist save parity --replace", "saved 2 songs as parity"),
        ("queue clear", "queue cleared"),
        ("pause", "!error: the queue is empty: play SONG..."),
        ("playlist load parity", "loaded 2 songs from parity"),
        ("queue", "    1  晴天小调 — 林晓舟  [0:50]\n    2  Café du Matin — Zoë Lefèvre  [0:45]"),
        ("stop", "stopped"),
    ]

    /// What the prompt printed, running the whole table: stdout's lines, then stderr's marked "!". The
    /// player's own announcements (track changes, lyric lines) come when they come, and are left out.
    private func run(_ label: String) throws -> [String] {
        let prompt = try xzmusic([], input: table.map { $0.line + "\n" }.joined() + "quit\n")
        XCTAssertEqual(prompt.status, 0, "\(label): \(prompt.stderr)")
        // A queue line's mark is followed by spaces, a track change's by its title.
        let announcements = ["♪ ", "■ ", "… ", "note: ", "error: /"]
        func kept(_ text: String) -> [String] {
            text.split(separator: "\n").map(String.init).filter { line in
                !announcements.contains { line.hasPrefix($0) } && !(line.hasPrefix("▶ ") && !line.hasPrefix("▶  "))
            }
        }
        return kept(prompt.stdout) + kept(prompt.stderr).map { "!" + $0 }
    }

    func testEveryPlayerCommandSaysTheSameHostingAndAttachedToServe() throws {
        let hosting = try run("hosting prompt")
        let host = try RunningProcess(binary, ["serve", "--no-tcp"], environment: environment)
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        let attached = try run("prompt attached to serve")
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
        let says = table.flatMap { $0.says.split(separator: "\n").map(String.init) }
        let expected = says.filter { !$0.hasPrefix("!") } + says.filter { $0.hasPrefix("!") }
        XCTAssertEqual(hosting, expected, "hosting")
        XCTAssertEqual(attached, expected, "attached to serve")
    }
}
