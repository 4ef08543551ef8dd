import Foundation
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// One-shot player commands (`xzmusic pause`, `now`, `volume +1`, `queue`) as whole processes against
/// `xzmusic serve --output null` holding 10, 10,000 and 100,000 queued songs, each run taking turns
/// with its `mpc` counterpart on the same host. With `compare`, another build's binary gets a host of
/// its own at each size in the same run (before and after side by side).
struct CLIBenchmark {
    let folder: URL
    let xzmusic: String
    var compare: String?
    var sizes = [10, 10_000, 100_000]
    /// Runs a cell at most, and the time a client's runs in a cell may add up to before it takes no more.
    var runs = 21
    var cellBudget = 30.0
    /// A cell whose median so far reaches this many seconds stops after `slowRuns` runs.
    var slowSeconds = 1.0
    var slowRuns = 3
    /// A run killed after this long, which ends its cell: a host that stalls must not stall the benchmark.
    var runTimeout = 60.0
    /// Files the queue repeats: the queue's length is what is measured, not the library's.
    let fileCount = 100

    /// `--compare OTHER_BINARY` (a host of its own beside this build's at each size) and `--sizes N,N,…`.
    init(folder: URL, xzmusic: String, options: [String]) throws {
        self.folder = folder
        self.xzmusic = xzmusic
        var rest = options[...]
        while let option = rest.popFirst() {
            guard let value = rest.popFirst() else { throw benchFailure("\(option) needs a value") }
            switch option {
            case "--compare":
                guard FileManager.default.isExecutableFile(atPath: value) else { throw benchFailure("not a program: \(value)") }
                compare = value
            case "--sizes":
                let parts = value.split(separator: ",", omittingEmptySubsequences: false)
                let lengths = parts.compactMap { Int($0) }.filter { (1...1_000_000).contains($0) }
                guard !lengths.isEmpty, lengths.count == parts.count else {
                    throw benchFailure("--sizes takes queue lengths from 1 to 1000000, comma-separated")
                }
                sizes = lengths
            default:
                throw benchFailure("usage: xzmusic-bench cli [--compare OTHER_BINARY] [--sizes N,N,…]")
            }
        }
    }

    /// A one-shot command and the mpc command it is measured against.
    struct Pair {
        let label: String
        let xzmusic: [String]
        let mpc: [String]
        /// A request line whose answer, fetched by the leanest one-shot client, is the least the command can cost.
        var floor: String? = nil
        /// The p50 the command must reach.
        var goal = 0.015
    }

    /// mpc lists the queue only whole (`--range` limits `load`, not `playlist`), so `queue` has a
    /// second baseline: one page of 20 (`playlistinfo 0:20`) fetched by bash over /dev/tcp.
    let pairs = [
        Pair(label: "pause", xzmusic: ["pause"], mpc: ["toggle"]),
        Pair(label: "now", xzmusic: ["now"], mpc: ["status"]),
        Pair(label: "volume +1", xzmusic: ["volume", "+1"], mpc: ["volume", "+1"]),
        Pair(label: "queue", xzmusic: ["queue"], mpc: ["playlist"], floor: "playlistinfo 0:20"),
        // A skip is one request after start-up: its goal is start-up's (the queue repeats, so it never runs out).
        Pair(label: "next", xzmusic: ["next"], mpc: ["next"], goal: 0.010),
    ]

    /// One client's runs in a cell, and why they stopped before the last round, if they did.
    struct Series {
        var times: [Double] = []
        var stopped: String?
        var p50: Double { percentile(times.sorted(), 0.5) }
        var p90: Double { percentile(times.sorted(), 0.9) }
        var note: String { stopped.map { "  (\($0))" } ?? "" }
    }

    struct Cell {
        var ours = Series()
        var mpc = Series()
        var floor = Series()
    }

    func run() throws {
        let music = try makeMusicFolder()
        let runtime = folder.appendingPathComponent("runtime")
        let config = folder.appendingPathComponent("config")
        try? FileManager.default.removeItem(at: runtime)
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: config.appendingPathComponent("xzmusic"), withIntermediateDirectories: true)
        let cap = max(sizes.max() ?? 0, 16_384)
        try "music_directory = \(music.path)\nmax_playlist_length = \(cap)\n"
            .write(to: config.appendingPathComponent("xzmusic/config"), atomically: true, encoding: .utf8)
        // Set here too, so the one-shot clients spawned below find the host and its music folder.
        let settings = ["XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": config.path, "XZMUSIC_DEMO": ""]
        for (key, value) in settings { setenv(key, value, 1) }
        let environment = ProcessInfo.processInfo.environment.merging(settings) { $1 }

        let builds = [("xzmusic", xzmusic)] + (compare.map { [("before", $0)] } ?? [])
        print("one-shot commands against `xzmusic serve --output null`, each run taking turns with mpc on the same host")
        print("config: max_playlist_length = \(cap), the rest MPD's defaults (max_output_buffer_size 8 MiB: a client "
            + "asking for a longer answer is dropped)")
        print("queued entries repeat \(fileCount) tagged MP3 files; at most \(runs) runs a cell, none started after a client's runs "
            + String(format: "add up to %.0f s; a command whose median reaches %.0f s stops after %d runs", cellBudget, slowSeconds, slowRuns))
        // Start-up alone bounds what any one-shot command can reach; the builds take turns.
        var startUps = builds.map { _ in Series() }
        for _ in 0..<runs {
            for index in builds.indices { try runOnce([builds[index].1, "--version"], into: &startUps[index]) }
        }
        for ((label, path), startUp) in zip(builds, startUps) {
            print(String(format: "  %@: %@ (start-up alone, `--version`: p50 %.1f ms, p90 %.1f ms)", label, path,
                         startUp.p50 * 1000, startUp.p90 * 1000))
        }
        print("\nqueued  command    build    runs   p50 ms   p90 ms | mpc            runs   p50 ms   p90 ms |   ratio   p50 goal")
        var medians: [String: [Int: Double]] = [:]
        for size in sizes {
            for (label, binary) in builds {
                let cells = try measureHost(binary: binary, size: size, music: music, environment: environment)
                for (pair, cell) in zip(pairs, cells) {
                    printRow(size: size, pair: pair, build: label, cell: cell)
                    fflush(nil)  // every stream: a long run shows its rows as they come
                    if !cell.ours.times.isEmpty { medians["\(pair.label)|\(label)", default: [:]][size] = cell.ours.p50 }
                }
            }
        }
        print("\np50 ms by queue length (flat: about the same at each; - where no run ended well)")
        print("  command    build   " + sizes.map { String(format: "%10d", $0) }.joined())
        for pair in pairs {
            for (label, _) in builds {
                let figures = sizes.map { size in
                    medians["\(pair.label)|\(label)"]?[size].map { String(format: "%10.1f", $0 * 1000) } ?? "         -"
                }
                print("  " + pair.label.padding(toLength: 10, withPad: " ", startingAt: 0) + " "
                    + label.padding(toLength: 8, withPad: " ", startingAt: 0) + figures.joined())
            }
        }
        print("\npaired: xzmusic pause / mpc toggle (both toggle), now / mpc status (song and status lines), "
            + "volume +1 / mpc volume +1, queue / mpc playlist (mpc lists only the whole queue: `--range` limits `load`, "
            + "not `playlist`), and under it one page of 20 fetched by bash as the floor of a window, next / mpc next; "
            + "ratio = xzmusic p50 / mpc p50 on the same host")
    }

    /// A fresh host of `binary` with `size` entries queued and playing, and each pair's cell measured on it.
    private func measureHost(binary: String, size: Int, music: URL, environment: [String: String]) throws -> [Cell] {
        let library = folder.appendingPathComponent("library-\(URL(fileURLWithPath: binary).lastPathComponent)-\(size)")
        try? FileManager.default.removeItem(at: library)
        try checked([binary, "import", music.path, "--library", library.path])
        let port = try freeLoopbackPort()
        let host = try RunningProcess(binary, ["serve", "--output", "null", "--port", "\(port)", "--library", library.path],
                                      environment: environment)
        defer {
            host.signal(SIGTERM)
            _ = host.finish(timeout: 30)
            try? FileManager.default.removeItem(at: library)
        }
        let connection = try waitForHost(port: port, host: host)
        try fillQueue(connection, size: size)
        let xz = [binary, "--library", library.path]
        // Not quiet: mpc then prints the status after a change, as xzmusic prints the new state.
        let mpc = ["mpc", "-h", "127.0.0.1", "-p", "\(port)"]
        // Untimed: the binaries into the page cache.
        _ = try MeasuredRun.timed([binary, "--version"])
        _ = try MeasuredRun.timed(mpc + ["status"])
        return try pairs.map { pair in try measureCell(pair, xzmusic: xz, mpc: mpc, port: port) }
    }

    /// The pair's runs taking turns, each client until its series is done (runs, budget, slowness or
    /// failure). Who goes first alternates, so each toggle pauses as often as it resumes.
    private func measureCell(_ pair: Pair, xzmusic: [String], mpc: [String], port: Int) throws -> Cell {
        var cell = Cell()
        for round in 0..<runs {
            let turns = round % 2 == 0 ? [true, false] : [false, true]
            for ours in turns {
                if ours { try runOnce(xzmusic + pair.xzmusic, into: &cell.ours) }
                else { try runOnce(mpc + pair.mpc, into: &cell.mpc) }
            }
            if let request = pair.floor {
                // `close` ends the answer with the connection, so cat stops at its end.
                let script = "exec 3<>/dev/tcp/127.0.0.1/\(port) && printf '%s\\nclose\\n' \"$1\" >&3 && cat <&3"
                try runOnce(["bash", "-c", script, "page", request], into: &cell.floor)
            }
        }
        return cell
    }

    /// One timed run added to `series`, unless the series has stopped; and whether it stops here.
    private func runOnce(_ arguments: [String], into series: inout Series) throws {
        guard series.stopped == nil else { return }
        let run = try MeasuredRun.timed(arguments, timeout: runTimeout)
        // wait4's status of a child ended by SIGKILL is the signal's number.
        if run.status == SIGKILL {
            // Counted at the timeout: the figures are then lower bounds.
            series.times.append(runTimeout)
            series.stopped = String(format: "run %d killed at %.0f s: figures are lower bounds", series.times.count, runTimeout)
            return
        }
        guard run.status == 0 else {
            // A failure is a result too (a host dropping a client whose answer is too large): the row says it.
            series.stopped = String(format: "run %d failed after %.1f s: ", series.times.count + 1, run.wallSeconds)
                + (try failure(of: arguments))
            return
        }
        series.times.append(run.wallSeconds)
        guard series.times.count < runs else { return }
        if series.p50 >= slowSeconds, series.times.count >= slowRuns {
            series.stopped = String(format: "stopped after %d runs: median %.1f s", series.times.count, series.p50)
        } else if series.times.reduce(0, +) >= cellBudget {
            series.stopped = String(format: "stopped at the %.0f s budget", cellBudget)
        }
    }

    /// The last line a failing command prints, from running it again.
    private func failure(of arguments: [String]) throws -> String {
        let log = folder.appendingPathComponent("command.log").path
        let run = try MeasuredRun.run(arguments, stdoutPath: log)
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let last = output.split(separator: "\n").last.map(String.init) ?? ""
        return run.status == 0 ? "then ran (status 0): \(last.prefix(160))" : String(last.prefix(160))
    }

    /// `size` entries in command lists of at most 10,000 adds (well under MPD's 2 MiB list cap), then
    /// repeat on and playing, so pause toggles and `now` has a song.
    private func fillQueue(_ connection: ProtocolConnection, size: Int) throws {
        try connection.request("clear")
        var added = 0
        while added < size {
            let count = min(10_000, size - added)
            let adds = (added..<(added + count)).map { "add \(quoted(relativePath(file: $0 % fileCount)))" }
            try connection.request((["command_list_begin"] + adds + ["command_list_end"]).joined(separator: "\n"))
            added += count
        }
        try connection.request("command_list_begin\nrepeat 1\nsetvol 50\nplay 0\ncommand_list_end")
        let status = try connection.text("status")
        guard status.contains("playlistlength: \(size)\n"), status.contains("state: play") else {
            throw benchFailure("the host's queue is not \(size) songs playing: \(status)")
        }
    }

    private func waitForHost(port: Int, host: RunningProcess) throws -> ProtocolConnection {
        let deadline = Date(timeIntervalSinceNow: 30)
        while Date() < deadline {
            if let connection = try? ProtocolConnection(port: port) { return connection }
            guard host.process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw benchFailure("xzmusic serve did not answer on port \(port): \(host.stderr.suffix(500))")
    }

    private func printRow(size: Int, pair: Pair, build: String, cell: Cell) {
        let ours = cell.ours, mpc = cell.mpc
        let met = ours.times.isEmpty ? "-" : String(format: "%@ (<= %.0f ms)", ours.p50 <= pair.goal ? "met" : "MISSED", pair.goal * 1000)
        print(String(format: "%6d  %@ %@ %@ | %@ %@ | %@   %@", size,
                     pair.label.padding(toLength: 10, withPad: " ", startingAt: 0),
                     build.padding(toLength: 8, withPad: " ", startingAt: 0), figures(ours),
                     ("mpc " + pair.mpc.joined(separator: " ")).padding(toLength: 14, withPad: " ", startingAt: 0),
                     figures(mpc), ratio(ours, mpc), met)
            + ours.note + (mpc.stopped.map { "  (mpc: \($0))" } ?? ""))
        if let request = pair.floor {
            // Its runs under mpc's.
            let label = "        floor: `\(request)` by bash over /dev/tcp".padding(toLength: 68, withPad: " ", startingAt: 0)
            print(label + figures(cell.floor) + " | " + ratio(ours, cell.floor) + "   (xzmusic / floor)" + cell.floor.note)
        }
    }

    /// Runs, p50 and p90 in ms; dashes for a series with no run that ended well.
    private func figures(_ series: Series) -> String {
        guard !series.times.isEmpty else { return "   0        -        -" }
        return String(format: "%4d %8.1f %8.1f", series.times.count, series.p50 * 1000, series.p90 * 1000)
    }

    private func ratio(_ ours: Series, _ baseline: Series) -> String {
        guard !ours.times.isEmpty, !baseline.times.isEmpty else { return "      -" }
        return String(format: "%6.1fx", ours.p50 / baseline.p50)
    }

    // MARK: Music

    /// `fileCount` short tagged MP3 files, kept under bench-data between runs.
    private func makeMusicFolder() throws -> URL {
        let music = folder.appendingPathComponent("music")
        let done = folder.appendingPathComponent("music-\(fileCount).done")
        if FileManager.default.fileExists(atPath: done.path) { return music }
        try? FileManager.default.removeItem(at: music)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let encoded = folder.appendingPathComponent("unit.mp3").path
        // 30 s: the song playing stays the same through most cells.
        try AudioFixtures.makeMP3(at: encoded, seconds: 30, channels: 1, lameOptions: ["-b", "32", "--resample", "22.05"])
        let audio = try Data(contentsOf: URL(fileURLWithPath: encoded))
        for file in 0..<fileCount {
            let url = music.appendingPathComponent(relativePath(file: file))
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            var data = Data(ID3v23.tag([("TIT2", "Song \(file)"), ("TPE1", "Singer \(file / 10)"),
                                        ("TALB", "Album \(file / 10)"), ("TRCK", "\(file % 10 + 1)/10")]))
            data.append(audio)
            try data.write(to: url)
        }
        try Data().write(to: done)
        return music
    }

    private func relativePath(file: Int) -> String {
        String(format: "Singer %02d/%02d Song %03d.mp3", file / 10, file % 10 + 1, file)
    }

    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private func checked(_ arguments: [String]) throws {
        let log = folder.appendingPathComponent("command.log").path
        let run = try MeasuredRun.run(arguments, stdoutPath: log)
        guard run.status == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw benchFailure("\(arguments.joined(separator: " ")) exited with status \(run.status): \(output.suffix(500))")
        }
    }
}
