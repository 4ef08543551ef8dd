import Foundation

/// Importing and rescanning a folder of 10,000 tagged MP3 files: xzmusic next to MPD's `update` on
/// the same folder in the same run (when mpd and mpc are installed).
struct RescanBenchmark {
    let folder: URL
    let xzmusic: String
    let mp3: String
    let fileCount = 10_000
    let rescans = 5

    func run() throws {
        let music = folder.appendingPathComponent("music")
        try makeMusicFolder(music)
        print("folder: \(fileCount) tagged MP3 files (every tenth with a sibling .lrc) in \(music.path)")
        print("wall seconds (CPU seconds); rescans are the median of \(rescans), the folder unchanged\n")

        let library = folder.appendingPathComponent("library")
        try? FileManager.default.removeItem(at: library)
        setenv("XZMUSIC_DEMO", "", 1)
        let command = [xzmusic, "import", music.path, "--library", library.path]
        let first = try MeasuredRun.run(command)
        guard first.status == 0 else { throw benchFailure("xzmusic import failed (status \(first.status))") }
        let rescan = try median((0..<rescans).map { _ in try MeasuredRun.run(command) })
        print(String(format: "xzmusic   first import %6.2f s (CPU %.2f)   rescan %6.3f s (CPU %.3f)",
                     first.wallSeconds, first.cpuSeconds, rescan.wallSeconds, rescan.cpuSeconds))

        guard let mpd = try MPDServer(folder: folder.appendingPathComponent("mpd"), music: music) else {
            print("mpd     not measured: mpd and mpc are not installed (apt-get install mpd mpc)")
            return
        }
        defer { mpd.stop() }
        let mpdFirst = try mpd.update()
        let mpdRescan = try median((0..<rescans).map { _ in try mpd.update() })
        print(String(format: "mpd       first import %6.2f s (CPU %.2f)   rescan %6.3f s (CPU %.3f)",
                     mpdFirst.wallSeconds, mpdFirst.cpuSeconds, mpdRescan.wallSeconds, mpdRescan.cpuSeconds))
        print(String(format: "\nxzmusic / mpd, wall: first import %.2fx, rescan %.2fx; CPU: %.2fx, %.2fx (target <= 1x)",
                     first.wallSeconds / mpdFirst.wallSeconds, rescan.wallSeconds / mpdRescan.wallSeconds,
                     first.cpuSeconds / mpdFirst.cpuSeconds, rescan.cpuSeconds / mpdRescan.cpuSeconds))
    }

    private func median(_ runs: [MeasuredRun]) throws -> MeasuredRun {
        guard runs.allSatisfy({ $0.status == 0 }) else { throw benchFailure("a rescan failed") }
        return runs.sorted { $0.wallSeconds < $1.wallSeconds }[runs.count / 2]
    }

    /// 100 singers of 100 songs: the one encoded file behind a different ID3v2.4 tag each. Kept
    /// between runs (the mtimes too), so each run rescans the very same files.
    private func makeMusicFolder(_ music: URL) throws {
        let done = music.appendingPathComponent(".complete")
        if FileManager.default.fileExists(atPath: done.path) { return }
        try? FileManager.default.removeItem(at: music)
        let audio = try Data(contentsOf: URL(fileURLWithPath: mp3))
        let han = SyntheticCatalogue.han, latin = SyntheticCatalogue.latin
        for singer in 0..<100 {
            let name = singer % 2 == 0
                ? String((0..<3).map { han[(singer * 7 + $0 * 13) % han.count] }) + " \(singer)"
                : latin[singer % latin.count].capitalized + " Band \(singer)"
            let album = "Album \(singer % 10)"
            let dir = music.appendingPathComponent(name).appendingPathComponent(album)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            for song in 0..<(fileCount / 100) {
                let i = singer * 100 + song
                let title = song % 3 == 0 ? String((0..<2).map { han[(i + $0 * 5) % han.count] }) + " \(i)"
                                          : latin[i % latin.count].capitalized + " \(i)"
                let base = dir.appendingPathComponent(String(format: "%03d %@", song + 1, title))
                var file = Self.id3v24(["TIT2": title, "TPE1": name, "TALB": album, "TRCK": "\(song + 1)",
                                        "TDRC": "\(1990 + i % 30)"])
                file.append(audio)
                try file.write(to: base.appendingPathExtension("mp3"))
                if i % 10 == 0 {
                    try Data("[00:00.50]\(title)\n".utf8).write(to: base.appendingPathExtension("lrc"))
                }
            }
        }
        _ = FileManager.default.createFile(atPath: done.path, contents: nil)
    }

    /// An ID3v2.4 tag of UTF-8 text frames.
    static func id3v24(_ frames: [String: String]) -> Data {
        func synchsafe(_ n: Int) -> [UInt8] { [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)] }
        var body: [UInt8] = []
        for (id, text) in frames.sorted(by: { $0.key < $1.key }) {
            let content = [3] + Array(text.utf8)
            body += Array(id.utf8) + synchsafe(content.count) + [0, 0] + content
        }
        return Data(Array("ID3".utf8) + [4, 0, 0] + synchsafe(body.count) + body)
    }
}

/// An MPD of the benchmark's own: null output, database and socket in `folder`.
final class MPDServer {
    private let socket: String
    private var running: Process?

    /// Nil when mpd or mpc is missing. The database is first made on an empty folder, so MPD does
    /// not start scanning on its own and the first `update` is the timed import.
    init?(folder: URL, music: URL) throws {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        func find(_ name: String) -> String? {
            paths.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        guard let mpd = find("mpd"), find("mpc") != nil else { return nil }
        try? FileManager.default.removeItem(at: folder)
        let empty = folder.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        socket = folder.appendingPathComponent("socket").path
        let config = folder.appendingPathComponent("mpd.conf")
        func writeConfig(_ musicDirectory: URL) throws {
            try """
                music_directory "\(musicDirectory.path)"
                db_file "\(folder.appendingPathComponent("database").path)"
                log_file "\(folder.appendingPathComponent("log").path)"
                bind_to_address "\(socket)"
                zeroconf_enabled "no"
                audio_output {
                    type "null"
                    name "null"
                }
                """.write(to: config, atomically: true, encoding: .utf8)
        }
        try writeConfig(empty)
        do {
            let seed = try Self.start(mpd, config: config.path, socket: socket)
            defer {
                seed.terminate()
                seed.waitUntilExit()
            }
            _ = try update()
        }
        try writeConfig(music)
        running = try Self.start(mpd, config: config.path, socket: socket)
    }

    private var pid: Int32 { running?.processIdentifier ?? 0 }

    private static func start(_ mpd: String, config: String, socket: String) throws -> Process {
        try? FileManager.default.removeItem(atPath: socket)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: mpd)
        server.arguments = ["--no-daemon", config]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        // Ready once it answers: the socket file appears before MPD listens on it.
        let deadline = Date(timeIntervalSinceNow: 30)
        while (try? MeasuredRun.run(["mpc", "--host=\(socket)", "status"]))?.status != 0 {
            guard Date() < deadline, server.isRunning else { throw benchFailure("mpd did not start") }
            usleep(20_000)
        }
        return server
    }

    private func runMPC(_ arguments: [String]) throws -> MeasuredRun {
        let run = try MeasuredRun.run(["mpc", "--host=\(socket)"] + arguments)
        guard run.status == 0 else { throw benchFailure("mpc \(arguments.joined(separator: " ")) failed") }
        return run
    }

    /// `mpc --wait update` (the option must come first, else mpc returns at once): wall time until
    /// MPD has finished the update, and the CPU time MPD spent meanwhile.
    func update() throws -> MeasuredRun {
        let cpuBefore = serverCPUSeconds()
        let run = try runMPC(["--wait", "update"])
        return MeasuredRun(cpuSeconds: serverCPUSeconds() - cpuBefore, wallSeconds: run.wallSeconds,
                           peakRSSKiB: 0, status: run.status)
    }

    /// utime + stime of the running mpd, from /proc/PID/stat.
    private func serverCPUSeconds() -> Double {
        guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        // Fields 14 and 15 of the line; the split starts at field 3 (state).
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func stop() {
        running?.terminate()
        running?.waitUntilExit()
    }
}
