import Foundation
import XCTest
import XZTestSupport

/// `crossfade` at the prompt and against a host, `play --crossfade N`, and the config's crossfade keys,
/// through the real binary.
final class CrossfadeCommandTests: LibraryProcessTestCase {
    override func setUpWithError() throws {
        temp = try TemporaryFolder("crossfade-cli")
        XCTAssertEqual(try xzmusic(["info", "#1"]).status, 0)
    }

    func testThePromptShowsAndSetsTheCrossfade() throws {
        let result = try xzmusic([], input: "crossfade\ncrossfade 3\ncrossfade\ncrossfade 2.5\ncrossfade 0\nquit\n")
        XCTAssertTrue(result.stdout.contains("crossfade off\ncrossfade 3 s\ncrossfade 3 s\ncrossfade off\n"), result.stdout)
        let errors = result.stderr.split(separator: "\n")
        XCTAssertEqual(errors.count, 1, result.stderr)
        XCTAssertTrue(errors.first?.contains("whole seconds") == true, result.stderr)
    }

    func testPlayCrossfadeReachesTheHost() throws {
        let host = try RunningProcess(binary, ["serve", "--port", "0"], environment: environment)
        defer {
            host.signal(SIGTERM)
            _ = host.finish()
        }
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        XCTAssertEqual(try xzmusic(["play", "--crossfade", "4", "晴天小调"]).status, 0)
        XCTAssertEqual(try xzmusic(["crossfade"]).stdout, "crossfade 4 s\n")
        let line = try XCTUnwrap(host.stdout.split(separator: "\n").first { $0.contains("hosting") })
        let port = try XCTUnwrap(line.split(separator: ":").last.map(String.init))
        XCTAssertEqual(try TestProcess.run("mpc", ["-p", port, "crossfade"]).stdout, "crossfade: 4\n")
    }

    /// Two 21 s tones played here: `--crossfade 2` overlaps them by 2 s, unless the config says to fade
    /// only on a skip.
    func testPlayHereFadesAndTheConfigKeysApply() throws {
        var files: [String] = []
        for (name, frequency) in [("a.flac", 440), ("b.flac", 1000)] {
            let path = temp.path(name)
            try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", path,
                                               "synth", "21", "sine", "\(frequency)", "vol", "0.4"])
            files.append(path)
        }
        let bytes = 2 * 21 * 44_100 * 4
        func render(_ name: String) throws -> Int {
            let out = temp.path(name)
            let result = try xzmusic(["play", "--crossfade", "2", "--output", "raw:" + out] + files)
            XCTAssertEqual(result.status, 0, result.stderr)
            return try Data(contentsOf: URL(fileURLWithPath: out)).count
        }
        XCTAssertEqual(try render("faded.raw"), bytes - 2 * 44_100 * 4, "a + b - 2 s")
        try FileManager.default.createDirectory(atPath: temp.path("config/xzmusic"), withIntermediateDirectories: true)
        try "crossfade_on_skip = yes\n".write(toFile: temp.path("config/xzmusic/config"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try render("gapless.raw"), bytes, "crossfade_on_skip: songs that end join gaplessly")
        try "crossfade_skip_albums = maybe\n".write(toFile: temp.path("config/xzmusic/config"), atomically: true, encoding: .utf8)
        let bad = try xzmusic(["play", "--crossfade", "2", "--output", "raw:" + temp.path("bad.raw")] + files)
        XCTAssertEqual(bad.status, 0, "a bad key is one note, playback goes on")
        XCTAssertTrue(bad.stderr.contains("crossfade_skip_albums must be yes or no") || bad.stdout.contains("crossfade_skip_albums must be yes or no"),
                      bad.stdout + bad.stderr)
    }
}
