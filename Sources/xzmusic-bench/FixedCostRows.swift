import Foundation
import XZTestSupport

/// What a host costs before it does anything: its memory on a small library, beside MPD's in the same
/// run, and the size of the program on disk beside MPD's.
extension ServerBenchmark {
    /// RSS (MB) of MPD and of a host on a folder of one song in every format the host plays, at start
    /// (scanned, idle a second) and after each song has played, in the same run.
    struct MixedLibraryRSS {
        var mpd: (start: Double, played: Double)
        var ours: (start: Double, played: Double)
        /// The same for an MPD whose configuration is only what it needs to play here: a check of the bench's.
        var plainMPD: (start: Double, played: Double)
    }

    /// Formats of the mixed folder, one song each, encoded from one sox tone: what each is made with.
    static let mixedFormats: [(suffix: String, encode: @Sendable (_ wav: String, _ out: String) -> [String])] = [
        ("mp3", { ["lame", "--quiet", "-b", "128", $0, $1] }),
        ("flac", { ["flac", "-s", "-f", "-o", $1, $0] }),
        ("ogg", { ["oggenc", "-Q", "-q", "4", "-o", $1, $0] }),
        ("opus", { ["opusenc", "--quiet", $0, $1] }),
        ("m4a", { ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", $0, "-c:a", "aac", "-b:a", "128k", $1] }),
        ("wav", { ["sox", $0, "-b", "24", $1] }),
        ("aiff", { ["sox", $0, $1] }),
    ]

    func mixedLibraryRSS() throws -> MixedLibraryRSS {
        let small = folder.appendingPathComponent("mixed")
        let music = small.appendingPathComponent("music")
        let songs = Self.mixedFormats.map { "song.\($0.suffix)" }
        let done = small.appendingPathComponent("music.done")
        if !FileManager.default.fileExists(atPath: done.path) {
            try? FileManager.default.removeItem(at: music)
            try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
            let wav = small.appendingPathComponent("source.wav").path
            defer { try? FileManager.default.removeItem(atPath: wav) }
            try checked(["sox", "-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "4", "sine", "440", "sine", "660", "vol", "0.5"])
            for format in Self.mixedFormats {
                try checked(format.encode(wav, music.appendingPathComponent("song.\(format.suffix)").path))
            }
            try Data().write(to: done)
        }
        let state = small.appendingPathComponent("run")
        try? FileManager.default.removeItem(at: state)
        let runtime = state.appendingPathComponent("runtime"), config = state.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: config.appendingPathComponent("xzmusic"), withIntermediateDirectories: true)
        try "music_directory = \(music.path)\n".write(to: config.appendingPathComponent("xzmusic/config"),
                                                       atomically: true, encoding: .utf8)
        let environment = ProcessInfo.processInfo.environment.merging(
            ["XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": config.path, "XZMUSIC_DEMO": ""]) { $1 }

        let mpd = try mpdRSS(config: try writeMPDConfig(state: state, music: music, port: try freeLoopbackPort()),
                             log: state.appendingPathComponent("mpd/log"), songs: songs, environment: environment)
        let plain = state.appendingPathComponent("plain")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        let plainConfig = plain.appendingPathComponent("mpd.conf")
        try """
            music_directory \(quoted(music.path))
            db_file         \(quoted(plain.appendingPathComponent("database").path))
            bind_to_address "127.0.0.1"
            port            "\(try freeLoopbackPort())"
            audio_output {
                type "null"
                name "null"
            }

            """.write(to: plainConfig, atomically: true, encoding: .utf8)
        let plainMPD = try mpdRSS(config: plainConfig.path, log: nil, songs: songs, environment: environment)

        let ourPort = try freeLoopbackPort()
        let host = try RunningProcess(xzmusic, ["serve", "--output", "null", "--port", "\(ourPort)",
                                                "--library", state.appendingPathComponent("library").path],
                                      environment: environment)
        defer { stop(host) }
        guard host.waitForOutput("xzmusic: hosting", timeout: 30) else {
            throw benchFailure("xzmusic serve did not start: \(host.stderr.prefix(500))")
        }
        while try ProtocolConnection(port: ourPort).text("status").contains("updating_db")
                || !ProtocolConnection(port: ourPort).text("stats").contains("\nsongs: \(songs.count)\n") {
            guard host.process.isRunning else { throw benchFailure("xzmusic serve left: \(host.stderr.suffix(500))") }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let ours = try playedRSS(host, port: ourPort, songs: songs)
        return MixedLibraryRSS(mpd: mpd, ours: ours, plainMPD: plainMPD)
    }

    /// An MPD started with `config` (its port inside), its folder scanned: its RSS at start and after playing.
    private func mpdRSS(config: String, log: URL?, songs: [String], environment: [String: String]) throws -> (start: Double, played: Double) {
        let text = try String(contentsOfFile: config, encoding: .utf8)
        guard let portLine = text.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("port") }),
              let port = Int(portLine.filter(\.isNumber)) else { throw benchFailure("no port in \(config)") }
        let mpd = try RunningProcess(try TestProcess.which("mpd"), ["--no-daemon", config], environment: environment)
        defer { stop(mpd) }
        _ = try waitForServer(port: port, process: mpd, log: log)
        try checked(["mpc", "-h", "127.0.0.1", "-p", "\(port)", "update", "--wait"])
        return try playedRSS(mpd, port: port, songs: songs)
    }

    /// RSS a second after the server is ready, and again after each of `songs` has played half a second.
    private func playedRSS(_ server: RunningProcess, port: Int, songs: [String]) throws -> (start: Double, played: Double) {
        Thread.sleep(forTimeInterval: 1)
        let start = memoryMB(server)
        let connection = try ProtocolConnection(port: port)
        for song in songs {
            try connection.request("command_list_begin\nclear\nadd \(quoted(song))\nplay\ncommand_list_end")
            let deadline = Date(timeIntervalSinceNow: 10)
            while true {
                let status = try connection.text("status")
                let elapsed = status.split(separator: "\n").first { $0.hasPrefix("elapsed: ") }.flatMap { Double($0.dropFirst(9)) } ?? 0
                if status.contains("state: play"), elapsed >= 0.5 { break }
                guard Date() < deadline else { throw benchFailure("\(song) did not play on port \(port): \(status)") }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        try connection.request("stop")
        Thread.sleep(forTimeInterval: 1)
        return (start, memoryMB(server))
    }

    /// The mixed-folder rows alone (`xzmusic-bench server rss`).
    func mixedLibraryRSSOnly() throws {
        printMixedLibraryRows(try mixedLibraryRSS())
    }

    func printMixedLibraryRows(_ figures: MixedLibraryRSS) {
        let formats = Self.mixedFormats.map(\.suffix).joined(separator: ", ")
        row("host RSS start, 7 formats, MB", figures.mpd.start, figures.ours.start, format: "%9.1f", target: "<= 1.50x",
            met: figures.ours.start <= figures.mpd.start * 1.5)
        row("  after playing each, MB", figures.mpd.played, figures.ours.played, format: "%9.1f", target: "<= 1.50x",
            met: figures.ours.played <= figures.mpd.played * 1.5)
        // The bench's MPD is the baseline only if its configuration costs no more than MPD's bare one.
        let configCost = figures.mpd.played / figures.plainMPD.played
        print(String(format: "  (one song each: %@; MPD of a minimal config: %.1f MB at start, %.1f MB after playing: "
                     + "the bench's MPD at %.2fx of it, %@)", formats, figures.plainMPD.start, figures.plainMPD.played,
                     configCost, configCost <= 1.1 ? "its config adds nothing" : "CHECK its config"))
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
