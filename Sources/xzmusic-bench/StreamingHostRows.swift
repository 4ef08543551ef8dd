import Foundation
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What a host costs while it plays to every device at once: MPRIS on a session bus of its own and an
/// HTTP stream with one listener, beside MPD playing the same songs to its `httpd` output with one
/// listener (MPD has no MPRIS of its own), in the same run.
extension ServerBenchmark {
    struct StreamingFigures {
        var rss: (mpd: Double, ours: Double)
        /// CPU milliseconds per minute of playing.
        var cpu: (mpd: Double, ours: Double)
        /// Bytes each listener received, so a row never stands for a stream that did not flow.
        var received: (mpd: Int, ours: Int)
        var encoder: String
    }

    static let streamingSeconds = 20.0

    func streamingHostFigures(encoder: String = "vorbis") throws -> StreamingFigures {
        var small = ServerBenchmark(folder: folder.appendingPathComponent("small"), xzmusic: xzmusic)
        small.songCount = 10
        let music = try small.makeMusicFolder()
        let state = small.folder.appendingPathComponent("streaming")
        try? FileManager.default.removeItem(at: state)
        defer { try? FileManager.default.removeItem(at: state) }
        let runtime = state.appendingPathComponent("runtime"), config = state.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: config.appendingPathComponent("xzmusic"), withIntermediateDirectories: true)

        let bus = try RunningProcess(try TestProcess.which("dbus-daemon"), ["--session", "--nofork", "--print-address=1"],
                                     environment: ProcessInfo.processInfo.environment)
        defer { small.stop(bus) }
        guard bus.waitForOutput("unix:", timeout: 10), let address = bus.stdout.split(separator: "\n").first else {
            throw benchFailure("dbus-daemon did not start: \(bus.stderr.prefix(300))")
        }
        let environment = ProcessInfo.processInfo.environment.merging(
            ["XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": config.path, "XZMUSIC_DEMO": "",
             "DBUS_SESSION_BUS_ADDRESS": String(address)]) { $1 }

        let mpdPort = try freeLoopbackPort(), mpdStream = try freeLoopbackPort()
        let ourPort = try freeLoopbackPort(), ourStream = try freeLoopbackPort()
        let streamBlock = { (port: Int) in
            """
            audio_output {
                type     "httpd"
                name     "stream"
                encoder  "\(encoder)"
                port     "\(port)"
                bind_to_address "127.0.0.1"
                quality  "5.0"
            }
            """
        }
        let mpdConfig = try small.writeMPDConfig(state: state, music: music, port: mpdPort)
        try (String(contentsOfFile: mpdConfig, encoding: .utf8) + streamBlock(mpdStream) + "\n")
            .write(toFile: mpdConfig, atomically: true, encoding: .utf8)
        try """
            music_directory = \(music.path)
            audio_output {
                type "null"
                name "null"
            }
            \(streamBlock(ourStream))

            """.write(to: config.appendingPathComponent("xzmusic/config"), atomically: true, encoding: .utf8)

        let mpd = try RunningProcess(try TestProcess.which("mpd"), ["--no-daemon", mpdConfig], environment: environment)
        defer { small.stop(mpd) }
        _ = try small.waitForServer(port: mpdPort, process: mpd, log: state.appendingPathComponent("mpd/log"))
        try small.checked(["mpc", "-h", "127.0.0.1", "-p", "\(mpdPort)", "update", "--wait"])

        let host = try RunningProcess(xzmusic, ["serve", "--port", "\(ourPort)", "--library", state.appendingPathComponent("library").path],
                                      environment: environment)
        defer { small.stop(host) }
        guard host.waitForOutput("xzmusic: hosting", timeout: 30) else {
            throw benchFailure("xzmusic serve did not start: \(host.stderr.prefix(500))")
        }
        while try ProtocolConnection(port: ourPort).text("stats").contains("\nsongs: 0\n") {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let names = try TestProcess.runChecked("dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/",
                                                             "org.freedesktop.DBus.ListNames"], environment: environment).stdout
        guard names.contains("org.mpris.MediaPlayer2.xzmusic") else {
            throw benchFailure("the host is not on the session bus: \(host.stderr.suffix(300))")
        }

        let queue = (["command_list_begin"] + (0..<10).map { "add \(quoted(small.relativePath(song: $0)))" }
                     + ["repeat 1", "play", "command_list_end"]).joined(separator: "\n")
        for port in [mpdPort, ourPort] { try ProtocolConnection(port: port).request(queue) }
        Thread.sleep(forTimeInterval: 0.5)
        // One listener each, for the whole measurement and a little over.
        let listen = { (port: Int) in
            try RunningProcess(try TestProcess.which("curl"),
                               ["-s", "-o", "/dev/null", "--max-time", "\(Int(Self.streamingSeconds) + 3)",
                                "-w", "%{size_download}", "http://127.0.0.1:\(port)/"],
                               environment: environment)
        }
        let listeners = try [listen(mpdStream), listen(ourStream)]
        Thread.sleep(forTimeInterval: 1)
        let pids = [mpd.process.processIdentifier, host.process.processIdentifier]
        let before = pids.map(Self.cpuTicks)
        Thread.sleep(forTimeInterval: Self.streamingSeconds)
        let after = pids.map(Self.cpuTicks)
        let rss = (mpd: memoryMB(mpd), ours: memoryMB(host))
        let received = listeners.map { listener -> Int in
            _ = listener.finish(timeout: 10)
            return Int(listener.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        let perMinute = { (index: Int) in
            Double(after[index] - before[index]) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK))) * 60 / Self.streamingSeconds
        }
        return StreamingFigures(rss: rss, cpu: (perMinute(0), perMinute(1)), received: (received[0], received[1]), encoder: encoder)
    }

    func printStreamingRows(_ figures: StreamingFigures) {
        print("playing with MPRIS and one \(figures.encoder) stream listener (MPD: its httpd output, one listener):")
        row("host RSS, MB", figures.rss.mpd, figures.rss.ours, format: "%9.1f", target: "<= 1.20x",
            met: figures.rss.ours <= figures.rss.mpd * 1.2)
        row("CPU ms per minute playing", figures.cpu.mpd, figures.cpu.ours, format: "%9.0f", target: "<= 1.00x",
            met: figures.cpu.ours <= figures.cpu.mpd)
        print(String(format: "  stream bytes received in %.0f s: MPD %d, xzmusic %d",
                     Self.streamingSeconds + 3, figures.received.mpd, figures.received.ours))
    }
}
