import Foundation
import XZTestSupport

/// What a host costs before it does anything: its memory on a small library, beside MPD's in the same
/// run, and the size of the program on disk beside MPD's.
extension ServerBenchmark {
    /// RSS (MB) of MPD and of a host each started on a 10-song folder, scanned, then idle for a second.
    func smallLibraryRSS() throws -> (mpd: Double, ours: Double) {
        var small = ServerBenchmark(folder: folder.appendingPathComponent("small"), xzmusic: xzmusic)
        small.songCount = 10
        let music = try small.makeMusicFolder()
        let state = small.folder.appendingPathComponent("run")
        try? FileManager.default.removeItem(at: state)
        let runtime = state.appendingPathComponent("runtime"), config = state.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: config.appendingPathComponent("xzmusic"), withIntermediateDirectories: true)
        try "music_directory = \(music.path)\n".write(to: config.appendingPathComponent("xzmusic/config"),
                                                       atomically: true, encoding: .utf8)
        let environment = ProcessInfo.processInfo.environment.merging(
            ["XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": config.path, "XZMUSIC_DEMO": ""]) { $1 }

        let mpdPort = try freeLoopbackPort()
        let mpd = try RunningProcess(try TestProcess.which("mpd"),
                                     ["--no-daemon", try small.writeMPDConfig(state: state, music: music, port: mpdPort)],
                                     environment: environment)
        defer { small.stop(mpd) }
        _ = try small.waitForServer(port: mpdPort, process: mpd, log: state.appendingPathComponent("mpd/log"))
        try small.checked(["mpc", "-h", "127.0.0.1", "-p", "\(mpdPort)", "update", "--wait"])

        let ourPort = try freeLoopbackPort()
        let host = try RunningProcess(xzmusic, ["serve", "--output", "null", "--port", "\(ourPort)",
                                                "--library", state.appendingPathComponent("library").path],
                                      environment: environment)
        defer { small.stop(host) }
        guard host.waitForOutput("xzmusic: hosting", timeout: 30) else {
            throw benchFailure("xzmusic serve did not start: \(host.stderr.prefix(500))")
        }
        while try ProtocolConnection(port: ourPort).text("status").contains("updating_db")
                || ProtocolConnection(port: ourPort).text("stats").contains("\nsongs: 0\n") {
            Thread.sleep(forTimeInterval: 0.05)
        }
        Thread.sleep(forTimeInterval: 1)
        return (small.memoryMB(mpd), small.memoryMB(host))
    }

    /// The program's size on disk: stripped (as `make install` installs it) beside MPD's, and as built.
    func binarySizeRows() throws {
        let size = { (path: String) -> Double in
            Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / 1_048_576
        }
        let stripped = folder.appendingPathComponent("xzmusic.stripped").path
        defer { try? FileManager.default.removeItem(atPath: stripped) }
        try checked(["objcopy", "--strip-all", xzmusic, stripped])
        let mpd = size(try TestProcess.which("mpd")), ours = size(stripped)
        row("binary stripped, MB", mpd, ours, format: "%9.1f", target: "< 40 MB", met: ours < 40)
        print("  as built (debug info): ".padding(toLength: 30, withPad: " ", startingAt: 0)
              + String(repeating: " ", count: 9) + String(format: "  %9.1f", size(xzmusic)))
    }
}
