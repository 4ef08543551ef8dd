import Foundation
import XCTest
import XZAudio
import XZTestSupport

/// `xzmusic fingerprint SONG` prints what the host's `getfingerprint` answers: a catalogue song's, a
/// file's; without a host it says so.
final class FingerprintCommandTests: LibraryProcessTestCase {
    func testFingerprintOfASongAndAFileThroughTheHost() throws {
        temp = try TemporaryFolder("fingerprint-command")
        XCTAssertEqual(try xzmusic(["info", "#1"]).status, 0)
        let alone = try xzmusic(["fingerprint", "#1"])
        XCTAssertEqual(alone.status, 1, "no host to ask: \(alone.stdout)")

        let host = try RunningProcess(binary, ["serve", "--no-tcp"], environment: environment)
        defer {
            host.signal(SIGTERM)
            XCTAssertEqual(host.finish(), 0)
        }
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        let info = try XCTUnwrap(JSONSerialization.jsonObject(with: try xzmusic(["info", "#1", "--json"]).stdoutData) as? [String: Any])
        let path = try XCTUnwrap(info["local_path"] as? String)
        let expected = try AudioFingerprint.chromaprint(path: path)
        XCTAssertTrue(expected.hasPrefix("AQA") && expected.count > 100, expected)

        let song = try xzmusic(["fingerprint", "#1"])
        XCTAssertEqual(song.status, 0, song.stderr)
        XCTAssertEqual(song.stdout, expected + "\n")
        let file = try xzmusic(["fingerprint", path])
        XCTAssertEqual(file.stdout, expected + "\n", file.stderr)
        let missing = try xzmusic(["fingerprint", temp.path("nothing.flac")])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("No such file or directory"), missing.stderr)
    }
}
