import Foundation
import XCTest
import XZTestSupport

/// SIGTERM ends `xzmusic serve` within 2 s whatever still runs: here a sticker write waiting on a library
/// another process holds locked (SQLite would wait 15 s). The state file is saved and the process exits 0.
final class SignalledHostExitTests: LibraryProcessTestCase {
    private var locker: RunningProcess?
    private var stuck: RunningProcess?

    override func setUpWithError() throws {
        temp = try TemporaryFolder("signalled-exit")
        let music = temp.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        let demo = TestPaths.repositoryRoot.appendingPathComponent("Resources/demo/songs")
        for (index, name) in ["01-qingtian-xiaodiao", "02-yokaze-no-waltz"].enumerated() {
            try FileManager.default.copyItem(at: demo.appendingPathComponent("\(name).mp3"),
                                             to: music.appendingPathComponent("song\(index + 1).mp3"))
        }
        let config = temp.url.appendingPathComponent("config/xzmusic")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "music_directory = \(music.path)\n".write(to: config.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try xzmusic(["info", "#1"]).status, 0)
    }

    override func tearDown() {
        locker?.signal(SIGKILL)
        _ = locker?.finish()
        stuck?.signal(SIGKILL)
        _ = stuck?.finish()
        temp = nil
    }

    func testSIGTERMEndsTheHostWithinTwoSecondsWhileARequestIsStuck() throws {
        let host = try RunningProcess(binary, ["serve", "--port", "0"], environment: environment)
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        let line = try XCTUnwrap(host.stdout.split(separator: "\n").first { $0.contains("hosting") })
        let port = try XCTUnwrap(line.split(separator: ":").last.map(String.init))
        let mpc = try TestProcess.which("mpc")
        // Adds take what the database holds: the host's first scan of its music folder comes first.
        XCTAssertTrue(try eventually(timeout: 10) { !(try TestProcess.run(mpc, ["-p", port, "status"]).stdout).contains("Updating DB") })
        XCTAssertEqual(try TestProcess.run(mpc, ["-p", port, "add", "song1.mp3", "song2.mp3"]).status, 0)

        // Another process holds the library's write lock, so the host's sticker write waits inside SQLite.
        let script = "import sqlite3, sys, time\n"
            + "c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)\n"
            + "c.execute('BEGIN EXCLUSIVE')\nprint('locked', flush=True)\ntime.sleep(120)\n"
        locker = try RunningProcess("/usr/bin/python3", ["-c", script, temp.path("library/library.sqlite")], environment: environment)
        XCTAssertTrue(locker?.waitForOutput("locked") ?? false, locker?.stderr ?? "")
        stuck = try RunningProcess(mpc, ["-p", port, "sticker", "song1.mp3", "set", "rating", "5"], environment: environment)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertTrue(stuck?.process.isRunning ?? false, "the sticker write is waiting on the lock")

        let signalled = Date()
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(timeout: 15), 0, host.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(signalled), 2, "stopped within 2 s")
        let state = try String(contentsOfFile: temp.path("library/host.state"), encoding: .utf8)
        XCTAssertTrue(state.contains("0:song1.mp3") && state.contains("1:song2.mp3"), state)
    }
}
