import Foundation
import XCTest
import XZTestSupport

/// A station's title and name as the prompt shows them: `now`, and the lines of a prompt attached to the host
/// when what is on changes. Real processes, a loopback ICY station.
final class RadioPromptTests: LibraryProcessTestCase {
    override func setUpWithError() throws {
        temp = try TemporaryFolder("radio-prompt")
        XCTAssertEqual(try xzmusic(["info", "#1"]).status, 0)
    }

    func testNowAndAnAttachedPromptShowWhatTheStationSaysIsOn() throws {
        let path = temp.path("station.mp3")
        try AudioFixtures.makeMP3(at: path, seconds: 3, lameOptions: ["-b", "128", "-t"])
        let audio = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        unlink(path)
        // The first title at once, the second after 48 KiB of audio (3 s).
        let station = try ICYStation { _, _ in
            ICYStation.Broadcast(head: "HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\nicy-name: Loopback FM", audio: audio,
                                 metaint: 4096, block: { n in
                n == 0 ? ICYStation.titleBlock("Artist One - Song A") : n == 12 ? ICYStation.titleBlock("Artist Two - Song B") : nil
            })
        }
        defer { station.stop() }
        let host = try RunningProcess(binary, ["serve", "--port", "0"], environment: environment)
        defer {
            host.signal(SIGTERM)
            _ = host.finish()
        }
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        let prompt = try RunningProcess(binary, [], environment: environment)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try xzmusic(["play", station.url()]).status, 0)
        XCTAssertTrue(eventually(timeout: 10) { (try? xzmusic(["now"]).stdout.contains("Artist One - Song A  (Loopback FM)")) ?? false },
                      "now shows the title and the station")
        XCTAssertTrue(prompt.waitForOutput("▶ Artist Two - Song B  (Loopback FM)"), "the attached prompt hears the change: \(prompt.stdout)")
        XCTAssertTrue(try xzmusic(["now"]).stdout.contains("Artist Two - Song B  (Loopback FM)"))
        prompt.send("quit")
        prompt.closeInput()
        XCTAssertEqual(prompt.finish(), 0)
    }
}
