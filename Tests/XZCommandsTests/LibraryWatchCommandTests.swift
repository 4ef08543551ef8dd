import Foundation
import XCTest
import XZTestSupport

/// `xzmusic serve` watching its music folder: an album copied in reaches MPD clients (`idle database`,
/// `listall`) without an `update`, and `auto_update = no` in the config turns that off.
final class LibraryWatchCommandTests: LibraryProcessTestCase {
    private var music: URL { temp.url.appendingPathComponent("music") }
    private var staging: URL { temp.url.appendingPathComponent("staging") }

    override func setUpWithError() throws {
        temp = try TemporaryFolder("watch-cli")
        for url in [music, staging] {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        let album = staging.appendingPathComponent("Copied Album")
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        for track in 1...2 {
            try AudioFixtures.makeMP3(at: album.appendingPathComponent("\(track).mp3").path, seconds: 1,
                                      tags: .init(title: "Copied \(track)", artist: "Watcher", album: "Copied Album"))
        }
    }

    private func writeConfig(_ extra: String = "") throws {
        let config = temp.url.appendingPathComponent("config/xzmusic")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "music_directory = \"\(music.path)\"\n\(extra)".write(to: config.appendingPathComponent("config"),
                                                                 atomically: true, encoding: .utf8)
    }

    private func serve() throws -> (RunningProcess, String) {
        let host = try RunningProcess(binary, ["serve", "--port", "0"], environment: environment)
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        let line = try XCTUnwrap(host.stdout.split(separator: "\n").first { $0.contains("hosting") })
        let port = try XCTUnwrap(line.split(separator: ":").last.map(String.init))
        // A host scans a music folder it never scanned as it starts: what the tests copy in comes after.
        XCTAssertTrue(try eventually(timeout: 10) {
            !(try TestProcess.runChecked("mpc", ["-p", port, "status"]).stdout).contains("Updating DB")
        })
        return (host, port)
    }

    /// The music folder's songs the host lists (not the library folder's demo songs, nor its online ones).
    private func listall(_ port: String) throws -> String {
        try TestProcess.runChecked("mpc", ["-p", port, "listall"]).stdout.split(separator: "\n")
            .filter { !$0.hasPrefix("xzmusic/") && !$0.contains("://") }.map { $0 + "\n" }.joined()
    }

    func testACopiedAlbumReachesIdleClients() throws {
        try writeConfig()
        let (host, port) = try serve()
        defer {
            host.signal(SIGTERM)
            _ = host.finish()
        }
        XCTAssertEqual(try listall(port), "")
        let idle = try RunningProcess(try TestProcess.which("mpc"), ["-p", port, "idle", "database"],
                                      environment: ProcessInfo.processInfo.environment)
        Thread.sleep(forTimeInterval: 0.5)
        try FileManager.default.copyItem(at: staging.appendingPathComponent("Copied Album"),
                                         to: music.appendingPathComponent("Copied Album"))
        XCTAssertEqual(idle.finish(timeout: 10), 0)
        XCTAssertEqual(idle.stdout, "database\n")
        XCTAssertTrue(try eventually(timeout: 10) { try listall(port) == "Copied Album/1.mp3\nCopied Album/2.mp3\n" },
                      (try? listall(port)) ?? "")
        let found = try TestProcess.runChecked("mpc", ["-p", port, "find", "title", "Copied 2"]).stdout
        XCTAssertEqual(found, "Copied Album/2.mp3\n")

        // Renamed and removed files reach clients as well.
        try FileManager.default.moveItem(at: music.appendingPathComponent("Copied Album/1.mp3"),
                                         to: music.appendingPathComponent("Copied Album/One.mp3"))
        try FileManager.default.removeItem(at: music.appendingPathComponent("Copied Album/2.mp3"))
        XCTAssertTrue(try eventually(timeout: 10) { try listall(port) == "Copied Album/One.mp3\n" },
                      (try? listall(port)) ?? "")
        XCTAssertEqual(host.stderr, "")
    }

    func testAutoUpdateNoLeavesTheCatalogueAlone() throws {
        try writeConfig("auto_update = no\n")
        let (host, port) = try serve()
        defer {
            host.signal(SIGTERM)
            _ = host.finish()
        }
        try FileManager.default.copyItem(at: staging.appendingPathComponent("Copied Album"),
                                         to: music.appendingPathComponent("Copied Album"))
        Thread.sleep(forTimeInterval: 3)
        XCTAssertEqual(try listall(port), "")
        // `update` still brings it in.
        _ = try TestProcess.runChecked("mpc", ["-p", port, "update", "--wait"])
        XCTAssertEqual(try listall(port), "Copied Album/1.mp3\nCopied Album/2.mp3\n")
    }

    func testAPromptThatHostsWatchesToo() throws {
        try writeConfig()
        let prompt = try RunningProcess(binary, [], environment: environment)
        defer {
            prompt.send("quit")
            prompt.closeInput()
            _ = prompt.finish()
        }
        // The prompt hosts once one-shot commands reach its player.
        XCTAssertTrue(try eventually(timeout: 10) { try xzmusic(["volume", "50"]).status == 0 }, prompt.stderr)
        try FileManager.default.copyItem(at: staging.appendingPathComponent("Copied Album"),
                                         to: music.appendingPathComponent("Copied Album"))
        XCTAssertTrue(try eventually(timeout: 10) { try xzmusic(["search", "Copied 2"]).stdout.contains("Copied 2") },
                      prompt.stderr)
    }

    func testABadAutoUpdateValueStopsServeWithOneLine() throws {
        try writeConfig("auto_update = maybe\n")
        let host = try RunningProcess(binary, ["serve", "--port", "0"], environment: environment)
        XCTAssertEqual(host.finish(), 1)
        XCTAssertTrue(host.stderr.contains("line 2: auto_update must be yes or no"), host.stderr)
        XCTAssertEqual(host.stderr.split(separator: "\n").count, 1, host.stderr)
    }
}
