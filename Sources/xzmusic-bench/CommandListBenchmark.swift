import Foundation
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Long command lists, the same to MPD and to the host: the server's CPU for one list, and the worst
/// `status` round trip of another client while lists run (a list must not hold up other connections).
extension ServerBenchmark {
    struct CommandListFigures {
        /// Best of three runs.
        var cpuSeconds: Double
        /// The slowest `status` answered while the list ran, over three runs.
        var worstStatus: Double
        var statusCount: Int
    }

    /// `list` (a whole command list) sent to the server of `pid` on `port`; `cleanup` runs after each
    /// run (e.g. `clear` after adds), outside the figures.
    func commandListFigures(port: Int, pid: pid_t, list: String, cleanup: String? = nil) throws -> CommandListFigures {
        let sender = try ProtocolConnection(port: port)
        var cpu = Double.infinity
        for _ in 0..<3 {
            let before = processCPUSeconds(pid)
            try sender.request(list)
            cpu = min(cpu, processCPUSeconds(pid) - before)
            if let cleanup { try sender.request(cleanup) }
        }
        var worst = 0.0
        var count = 0
        let prober = try ProtocolConnection(port: port)
        for _ in 0..<3 {
            let done = DispatchGroup()
            let failures = FailureList()
            done.enter()
            Thread.detachNewThread {
                do { try sender.request(list) } catch { failures.add(error) }
                done.leave()
            }
            while done.wait(timeout: .now()) == .timedOut {
                let start = DispatchTime.now().uptimeNanoseconds
                try prober.request("status")
                worst = max(worst, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                count += 1
            }
            if let error = failures.first { throw error }
            if let cleanup { try sender.request(cleanup) }
        }
        return CommandListFigures(cpuSeconds: cpu, worstStatus: worst, statusCount: count)
    }

    /// The rows for 100,000 `ping`s, `add`s of every song and 10,000 `add`s of one song (the list ncmpcpp
    /// sends when a user adds a selection) in one list, MPD's beside ours.
    func commandListRows(mpd: (port: Int, pid: pid_t), ours: (port: Int, pid: pid_t), uris: [String]) throws {
        let pings = "command_list_begin\n" + String(repeating: "ping\n", count: 100_000) + "command_list_end"
        let adds = (["command_list_begin"] + uris.map { "add \(quoted($0))" } + ["command_list_end"]).joined(separator: "\n")
        let sameAdds = (["command_list_begin"] + Array(repeating: "add \(quoted(uris[0]))", count: 10_000) + ["command_list_end"])
            .joined(separator: "\n")
        let lists: [(label: String, list: String, cleanup: String?, ratio: Double)] = [
            ("list of 100,000 pings", pings, nil, 1), ("list of \(uris.count) adds", adds, "clear", 1),
            ("10,000 adds of 1 song", sameAdds, "clear", 3),
        ]
        for (label, list, cleanup, ratio) in lists {
            let figures = try [mpd, ours].map { try commandListFigures(port: $0.port, pid: $0.pid, list: list, cleanup: cleanup) }
            row("\(label): CPU, ms", figures[0].cpuSeconds * 1000, figures[1].cpuSeconds * 1000, format: "%9.1f",
                target: String(format: "<= %.2fx", ratio), met: figures[1].cpuSeconds <= figures[0].cpuSeconds * ratio)
            row("  worst status meanwhile, ms", figures[0].worstStatus * 1000, figures[1].worstStatus * 1000,
                format: "%9.2f", target: "< 20 ms", met: figures[1].worstStatus < 0.020)
        }
    }

    /// Only the command list rows of `server`: both servers on the music folder, scanned, then the lists.
    func commandListsOnly() throws {
        let music = try makeMusicFolder()
        let state = folder.appendingPathComponent("lists")
        try? FileManager.default.removeItem(at: state)
        let runtime = state.appendingPathComponent("runtime")
        let config = state.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: config.appendingPathComponent("xzmusic"), withIntermediateDirectories: true)
        try "music_directory = \(music.path)\n".write(to: config.appendingPathComponent("xzmusic/config"), atomically: true, encoding: .utf8)
        let environment = ProcessInfo.processInfo.environment.merging(
            ["XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": config.path, "XZMUSIC_DEMO": ""]) { $1 }
        let mpdPort = try freeLoopbackPort()
        let mpd = try RunningProcess(try TestProcess.which("mpd"), ["--no-daemon", try writeMPDConfig(state: state, music: music, port: mpdPort)],
                                     environment: environment)
        defer { stop(mpd) }
        _ = try waitForServer(port: mpdPort, process: mpd, log: state.appendingPathComponent("mpd/log"))
        // `checked` keeps its log there.
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("run"), withIntermediateDirectories: true)
        try checked(["mpc", "-h", "127.0.0.1", "-p", "\(mpdPort)", "update", "--wait"])
        let ourPort = try freeLoopbackPort()
        let host = try RunningProcess(xzmusic, ["serve", "--output", "null", "--port", "\(ourPort)", "--library",
                                                state.appendingPathComponent("library").path], environment: environment)
        defer { stop(host) }
        guard host.waitForOutput("xzmusic: hosting", timeout: 30) else { throw benchFailure("xzmusic serve did not start") }
        while try ProtocolConnection(port: ourPort).text("status").contains("updating_db")
                || ProtocolConnection(port: ourPort).text("stats").contains("\nsongs: 0\n") {
            Thread.sleep(forTimeInterval: 0.05)
        }
        print("                                     MPD    xzmusic    ratio   target")
        try commandListRows(mpd: (mpdPort, mpd.process.processIdentifier), ours: (ourPort, host.process.processIdentifier),
                            uris: (0..<songCount).map(relativePath))
        print("CPU: the server process's user + system time for the list, best of 3; ratio = xzmusic / MPD")
    }
}
