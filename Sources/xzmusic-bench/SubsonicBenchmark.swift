import Foundation
import GRDB
import XZCatalogue
import XZSystem
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The Subsonic API of `xzmusic serve`, each figure beside a baseline measured in the same run: search3 on
/// 100,000 songs against `ping` (the transport and sign-in alone) and the catalogue's own search; a
/// 10,000-song Symfonium-style sync (search3 "" paged 500) with the server's CPU; a raw stream against
/// `cat` and `dd` of the same file; transcodes' first byte and CPU per minute of audio against the ffmpeg
/// CLI at the same codec and rate; 20 transcoded listeners at once; and Debian's supysonic on the same
/// folder for ping, search3, getAlbumList2 and a raw stream's first byte.
struct SubsonicBenchmark {
    let folder: URL
    let xzmusic: String
    var musicSongs = 1_000
    static let user = "bench"
    static let password = "benchpass"
    static let listeners = 20
    /// The transcode sources' length.
    static let sourceSeconds = 60
    /// The raw stream's file: ten minutes of FLAC.
    static let rawSeconds = 600

    /// Only the raw stream's row, on the folder `run` makes (made here when missing).
    func runRawOnly() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let music = try makeMusicFolder()
        let server = try OurServer(library: nil, music: music, state: folder.appendingPathComponent("run-music"), xzmusic: xzmusic,
                                   expectedSongs: musicSongs + 3)
        defer { server.stop() }
        let client = try HTTPClient(port: server.port)
        try rawStream(client: client, raw: music.appendingPathComponent("Bench/raw.flac").path,
                      rawID: try client.songID(matching: "Raw Source"))
    }

    func run() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        print("Subsonic API benchmark (\(ProcessInfo.processInfo.activeProcessorCount) cores)\n")
        try searchAtScale()
        try symfoniumSync()
        let music = try makeMusicFolder()
        try media(music: music)
    }

    // MARK: search3 on 100,000 songs

    private func searchAtScale() throws {
        let library = try Self.localLibrary(in: folder.appendingPathComponent("library-100k"), songCount: 100_000)
        let server = try OurServer(library: library, music: nil, state: folder.appendingPathComponent("run-100k"), xzmusic: xzmusic)
        defer { server.stop() }
        let client = try HTTPClient(port: server.port)
        for query in SyntheticCatalogue.queries { _ = try client.api("search3", ["query": query]) }
        var search: [Double] = []
        var pings: [Double] = []
        for _ in 0..<11 {
            for query in SyntheticCatalogue.queries {
                search.append(try client.api("search3", ["query": query, "songCount": "20", "albumCount": "20", "artistCount": "20"]).total)
                pings.append(try client.api("ping").total)
            }
        }
        let database = try LibraryDatabase(path: library.appendingPathComponent("library.sqlite").path)
        var inProcess: [Double] = []
        for _ in 0..<11 {
            for query in SyntheticCatalogue.queries {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try database.search(query, limit: 20)
                inProcess.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
        }
        search.sort(); pings.sort(); inProcess.sort()
        print("search3 on 100,000 songs (\(SyntheticCatalogue.queries.count) queries × 11, 20 songs/albums/artists each):")
        print(String(format: "  search3   p50 %7.2f ms  p99 %7.2f ms   (targets < 5 / < 20 ms: %@)", percentile(search, 0.5) * 1000,
                     percentile(search, 0.99) * 1000, percentile(search, 0.5) < 0.005 && percentile(search, 0.99) < 0.020 ? "met" : "NOT met"))
        print(String(format: "  baseline: ping p50 %.2f ms (transport + sign-in), catalogue search in-process p50 %.2f ms p99 %.2f ms",
                     percentile(pings, 0.5) * 1000, percentile(inProcess, 0.5) * 1000, percentile(inProcess, 0.99) * 1000))
        print(String(format: "  search3 p50 = %.1f× ping, %.1f× the in-process search\n", percentile(search, 0.5) / percentile(pings, 0.5),
                     percentile(search, 0.5) / max(percentile(inProcess, 0.5), 1e-9)))
    }

    /// The search benchmark's synthetic catalogue, its songs given local paths: the API lists only songs
    /// the library holds as files, and a catalogue is all search3 and a sync read (no file is opened).
    static func localLibrary(in folder: URL, songCount: Int) throws -> URL {
        let library = try BenchLibrary.prepared(in: folder, songCount: songCount)
        let database = try LibraryDatabase(path: library.appendingPathComponent("library.sqlite").path)
        try database.pool.write {
            try $0.execute(sql: "UPDATE song SET local_path = '/srv/bench-music/' || id || '.mp3' WHERE local_path = ''")
        }
        return library
    }

    // MARK: Symfonium-style sync of 10,000 songs

    private func symfoniumSync() throws {
        let library = try Self.localLibrary(in: folder.appendingPathComponent("library-10k"), songCount: 10_000)
        let server = try OurServer(library: library, music: nil, state: folder.appendingPathComponent("run-10k"), xzmusic: xzmusic)
        defer { server.stop() }
        let client = try HTTPClient(port: server.port)
        _ = try client.api("ping")
        let cpuBefore = server.cpuSeconds
        let started = DispatchTime.now().uptimeNanoseconds
        var songs = Set<String>()
        var seen = 0
        var requests = 0
        var counts: [String: Int] = [:]
        for kind in ["artist", "album", "song"] {
            var offset = 0
            while true {
                var parameters = ["query": "", "artistCount": "0", "albumCount": "0", "songCount": "0"]
                parameters[kind + "Count"] = "500"
                parameters[kind + "Offset"] = String(offset)
                let result = try client.api("search3", parameters)
                requests += 1
                let items = (result.json?["searchResult3"] as? [String: Any])?[kind] as? [[String: Any]] ?? []
                counts[kind, default: 0] += items.count
                if kind == "song" {
                    for item in items { if let id = item["id"] as? String { songs.insert(id) } }
                    seen += items.count
                }
                if items.count < 500 { break }
                offset += 500
            }
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let cpu = server.cpuSeconds - cpuBefore
        var pingTotal = 0.0
        for _ in 0..<requests { pingTotal += try client.api("ping").total }
        print("Symfonium-style sync of 10,000 songs (ping, then search3 \"\" paged 500 through artists, albums, songs):")
        print(String(format: "  %d requests: %d artists, %d albums, %d songs seen (%d distinct); wall %.2f s, server CPU %.2f s", requests,
                     counts["artist"] ?? 0, counts["album"] ?? 0, seen, songs.count, wall, cpu))
        print(String(format: "  baseline: the same number of pings %.3f s; the sync is %.1f× its transport floor%@\n", pingTotal,
                     wall / max(pingTotal, 1e-9), seen == 10_000 && songs.count == 10_000 ? "" : "   (NOT every song once)"))
    }

    // MARK: Raw stream

    /// A raw stream against the same bytes read by cat (page cache), dd (O_DIRECT, from the disk), and sent
    /// over loopback to the same client by the least a server can do (`LoopbackFileSender`: sendfile).
    private func rawStream(client: HTTPClient, raw: String, rawID: String) throws {
        let rawSize = Double(FileStatus(path: raw)?.size ?? 0)
        let sender = try LoopbackFileSender(path: raw)
        let floorClient = try HTTPClient(port: sender.port)
        _ = try MeasuredRun.timed(["cat", raw])
        var streamed: [Double] = [], floors: [Double] = [], cats: [Double] = [], dds: [Double] = []
        for _ in 0..<3 {
            let result = try client.get(client.apiPath("stream", ["id": rawID, "format": "raw"]), keepBody: false)
            guard result.status == 200, Double(result.bodyBytes) == rawSize else {
                throw benchFailure("raw stream: status \(result.status), \(result.bodyBytes) of \(Int(rawSize)) bytes")
            }
            streamed.append(result.total)
            let floor = try floorClient.get("/raw.flac", keepBody: false)
            guard floor.status == 200, Double(floor.bodyBytes) == rawSize else {
                throw benchFailure("loopback sender: status \(floor.status), \(floor.bodyBytes) of \(Int(rawSize)) bytes")
            }
            floors.append(floor.total)
            cats.append(try Self.succeeded(["sh", "-c", "cat \"$0\" > /dev/null", raw]).wallSeconds)
            dds.append(try Self.succeeded(["dd", "if=\(raw)", "of=/dev/null", "bs=1M", "iflag=direct"]).wallSeconds)
        }
        let mbps = { (seconds: Double) in rawSize / seconds / 1e6 }
        let ours = mbps(streamed.min()!), floor = mbps(floors.min()!), cat = mbps(cats.min()!), dd = mbps(dds.min()!)
        print(String(format: "raw stream of a %.0f MB FLAC (best of 3): %.0f MB/s;  loopback sendfile to the same client %.0f MB/s (%.2f×);  cat %.0f MB/s (%.2f×);  dd O_DIRECT %.0f MB/s (%.2f×)   target ≥ 0.9×: %@",
                     rawSize / 1e6, ours, floor, ours / floor, cat, ours / cat, dd, ours / dd,
                     ours / dd >= 0.9 ? (ours / floor >= 0.9 ? "met (against the disk and the loopback floor)" : "met (against the disk)") : "NOT met"))
    }

    // MARK: Media, listeners and supysonic on one folder

    /// The server benchmark's tagged MP3 files (`musicSongs` of them), a 60 s FLAC to transcode and a
    /// ten-minute FLAC to stream raw.
    private func makeMusicFolder() throws -> URL {
        let music = try ServerBenchmark(folder: folder, xzmusic: xzmusic, songCount: musicSongs).makeMusicFolder()
        let bench = music.appendingPathComponent("Bench")
        try FileManager.default.createDirectory(at: bench, withIntermediateDirectories: true)
        for (name, seconds, title) in [("source.flac", Self.sourceSeconds, "Transcode Source"), ("raw.flac", Self.rawSeconds, "Raw Source")] {
            let path = bench.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: path) { continue }
            print("making \(path) (\(seconds) s of music-like noise)…")
            let wav = path + ".wav"
            defer { try? FileManager.default.removeItem(atPath: wav) }
            try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "\(seconds)", "pinknoise",
                                               "tremolo", "3", "60", "vol", "0.4"])
            try TestProcess.runChecked("flac", ["-s", "-f", "-T", "TITLE=\(title)", "-T", "ARTIST=Bench", "-T", "ALBUM=Bench",
                                                wav, "-o", path + ".part"])
            try FileManager.default.moveItem(atPath: path + ".part", toPath: path)
        }
        let wav = bench.appendingPathComponent("source.wav").path
        if !FileManager.default.fileExists(atPath: wav) {
            try TestProcess.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-i", bench.appendingPathComponent("source.flac").path,
                                                  "-metadata", "title=Transcode Source WAV", "-c:a", "pcm_s16le", "-y", wav + ".part.wav"])
            try FileManager.default.moveItem(atPath: wav + ".part.wav", toPath: wav)
        }
        return music
    }

    private func media(music: URL) throws {
        let server = try OurServer(library: nil, music: music, state: folder.appendingPathComponent("run-music"), xzmusic: xzmusic,
                                   expectedSongs: musicSongs + 3)
        defer { server.stop() }
        let client = try HTTPClient(port: server.port)
        let source = music.appendingPathComponent("Bench/source.flac").path
        let raw = music.appendingPathComponent("Bench/raw.flac").path
        let sourceID = try client.songID(matching: "Transcode Source")
        let rawID = try client.songID(matching: "Raw Source")

        try rawStream(client: client, raw: raw, rawID: rawID)

        // Transcodes from the FLAC source, each from nothing, against ffmpeg's CLI.
        let formats: [(name: String, kbps: Int, ffmpeg: [String])] = [
            ("mp3", 192, ["-c:a", "libmp3lame", "-b:a", "192k", "-f", "mp3"]),
            ("opus", 128, ["-c:a", "libopus", "-b:a", "128k", "-f", "ogg"]),
            ("ogg", 160, ["-c:a", "libvorbis", "-b:a", "160k", "-f", "ogg"]),
            ("flac", 0, ["-c:a", "flac", "-f", "flac"]),
        ]
        // FLAC asked of a FLAC file is the file itself: its row transcodes the same audio from WAV.
        let wav = music.appendingPathComponent("Bench/source.wav").path
        let wavID = try client.songID(matching: "Transcode Source WAV")
        let minutes = Double(Self.sourceSeconds) / 60
        print("\ntranscodes of a \(Self.sourceSeconds) s FLAC (44.1 kHz stereo), best of 3; CPU per minute of audio:")
        print("  format  first byte   ours CPU/min   ffmpeg CLI CPU/min   ratio   (targets: first byte < 100 ms, ratio ≤ 1.0)")
        for format in formats {
            var firstBytes: [Double] = [], ourCPU: [Double] = [], theirCPU: [Double] = []
            for _ in 0..<3 {
                let before = server.cpuSeconds
                let id = format.name == "flac" ? wavID : sourceID
                let result = try client.get(client.apiPath("stream", ["id": id, "format": format.name]), keepBody: false)
                guard result.status == 200, result.bodyBytes > 1000 else {
                    throw benchFailure("\(format.name) transcode: status \(result.status), \(result.bodyBytes) bytes")
                }
                ourCPU.append((server.cpuSeconds - before) / minutes)
                firstBytes.append(result.firstByte)
                let input = format.name == "flac" ? wav : source
                let ffmpeg = try Self.succeeded(["ffmpeg", "-nostdin", "-v", "error", "-i", input] + format.ffmpeg + ["-y", "/dev/null"])
                theirCPU.append(ffmpeg.cpuSeconds / minutes)
            }
            let first = firstBytes.min()!, mine = ourCPU.min()!, theirs = theirCPU.min()!
            let label = format.name == "flac" ? "flac*" : format.name
            print(String(format: "  %@  %7.1f ms   %9.3f s     %12.3f s       %5.2f   %@", label.padding(toLength: 6, withPad: " ", startingAt: 0), first * 1000, mine, theirs, mine / theirs,
                         first < 0.1 && mine <= theirs ? "met" : "NOT met"))
        }
        print("  * flac from a WAV copy of the source, for both: FLAC asked of a FLAC file is the file as it is")

        try concurrentListeners(server: server, sourceID: sourceID)
        try besideSupysonic(ours: server, music: music)
    }

    /// 20 clients each taking a transcoded MP3 at 192 kbit/s at once: each one's bytes per second of wall
    /// time against the rate it plays at, and the host's memory meanwhile.
    private func concurrentListeners(server: OurServer, sourceID: String) throws {
        let rssBefore = server.rssMiB
        let rates = Mutex<[Double]>([])
        let delivered = Mutex<[Double]>([])
        let failures = Mutex<[String]>([])
        let peak = Mutex(0.0)
        let done = Mutex(false)
        let sampler = Thread {
            while !done.withLock({ $0 }) {
                let rss = server.rssMiB
                peak.withLock { $0 = max($0, rss) }
                usleep(20_000)
            }
        }
        sampler.start()
        // A thread each, all connected before any asks: 20 transcodes at once (the server keeps none).
        let start = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for _ in 0..<Self.listeners {
            finished.enter()
            Thread {
                defer { finished.leave() }
                do {
                    let client = try HTTPClient(port: server.port)
                    start.wait()
                    let result = try client.get(client.apiPath("stream", ["id": sourceID, "format": "mp3"]), keepBody: false)
                    guard result.status == 200 else { throw benchFailure("status \(result.status)") }
                    let needed = Double(result.bodyBytes) / Double(Self.sourceSeconds)
                    rates.withLock { $0.append((Double(result.bodyBytes) / result.total) / needed) }
                    delivered.withLock { $0.append(Double(result.bodyBytes) * 8 / 1000 / result.total) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        Thread.sleep(forTimeInterval: 0.5)
        let cpuBefore = server.cpuSeconds
        let started = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<Self.listeners { start.signal() }
        finished.wait()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let cpu = server.cpuSeconds - cpuBefore
        done.withLock { $0 = true }
        while sampler.isExecuting { usleep(5_000) }
        let speeds = rates.withLock { $0 }.sorted()
        let failed = failures.withLock { $0 }
        print(String(format: "\n%d concurrent MP3 listeners (192 kbit/s, %d s each): slowest %.1f× real time, median %.1f×; all done in %.1f s, server CPU %.1f s",
                     Self.listeners, Self.sourceSeconds, speeds.first ?? 0, percentile(speeds, 0.5), wall, cpu))
        print(String(format: "  slowest listener received %.0f kbit/s against the 192 kbit/s it plays", delivered.withLock { $0.min() ?? 0 }))
        print(String(format: "  host RSS %.0f MiB before, peak %.0f MiB during   target: each ≥ 1.0× real time: %@%@", rssBefore, peak.withLock { $0 },
                     (speeds.first ?? 0) >= 1 && failed.isEmpty ? "met" : "NOT met", failed.isEmpty ? "" : " (\(failed.count) failed: \(failed[0]))"))
    }

    /// A baseline's run, which must have succeeded for its figure to mean anything.
    static func succeeded(_ arguments: [String]) throws -> MeasuredRun {
        let run = try MeasuredRun.timed(arguments)
        guard run.status == 0 else { throw benchFailure("\(arguments.joined(separator: " ")) failed (status \(run.status))") }
        return run
    }

    // MARK: supysonic

    private func besideSupysonic(ours: OurServer, music: URL) throws {
        guard (try? TestProcess.which("supysonic-server")) != nil else {
            print("\nsupysonic is not installed (apt package supysonic, with python3-waitress): no side-by-side rows")
            return
        }
        let state = folder.appendingPathComponent("supysonic")
        try? FileManager.default.removeItem(at: state)
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try """
            [base]
            database_uri = sqlite:///\(state.appendingPathComponent("supysonic.db").path)
            [webapp]
            cache_dir = \(state.appendingPathComponent("cache").path)
            mount_webui = no
            log_level = ERROR
            [daemon]
            socket = \(state.appendingPathComponent("daemon.sock").path)
            run_watcher = no

            """.write(to: state.appendingPathComponent("supysonic.conf"), atomically: true, encoding: .utf8)
        func cli(_ arguments: [String]) throws -> MeasuredRun {
            let run = try MeasuredRun.timed(["sh", "-c", "cd \"$0\" && exec supysonic-cli \"$@\"", state.path] + arguments)
            guard run.status == 0 else { throw benchFailure("supysonic-cli \(arguments.joined(separator: " ")) failed (\(run.status))") }
            return run
        }
        _ = try cli(["user", "add", Self.user, "-p", Self.password])
        _ = try cli(["folder", "add", "music", music.path])
        let scan = try cli(["folder", "scan", "music"])
        let port = try freeLoopbackPort()
        let process = try RunningProcess("/bin/sh", ["-c", "cd \"$0\" && exec supysonic-server -S waitress -h 127.0.0.1 -p \(port) --threads 4", state.path],
                                         environment: ProcessInfo.processInfo.environment)
        defer {
            process.signal(SIGTERM)
            _ = process.finish(timeout: 10)
        }
        let theirs = try HTTPClient(port: port, waitingUpTo: 30)
        let mine = try HTTPClient(port: ours.port)
        print(String(format: "\nbeside supysonic %@ on the same %d-song folder (its scan: %.1f s):", supysonicVersion(), musicSongs + 3, scan.wallSeconds))
        print("  request                         xzmusic p50     supysonic p50    ratio (supysonic ÷ ours)")
        let ourMP3 = try mine.songID(matching: "Lantern 1")
        let theirMP3 = try theirs.songID(matching: "Lantern 1")
        let rows: [(label: String, ours: (HTTPClient) throws -> Double, theirs: (HTTPClient) throws -> Double, count: Int)] = [
            ("ping", { try $0.api("ping").total }, { try $0.api("ping").total }, 200),
            ("search3 \"Lantern\" (20 each)", { try $0.api("search3", ["query": "Lantern"]).total },
             { try $0.api("search3", ["query": "Lantern"]).total }, 50),
            ("getAlbumList2 alphabetical 50", { try $0.api("getAlbumList2", ["type": "alphabeticalByName", "size": "50"]).total },
             { try $0.api("getAlbumList2", ["type": "alphabeticalByName", "size": "50"]).total }, 50),
            ("raw stream first byte (MP3)", { try $0.get($0.apiPath("stream", ["id": ourMP3]), keepBody: false).firstByte },
             { try $0.get($0.apiPath("stream", ["id": theirMP3]), keepBody: false).firstByte }, 30),
        ]
        for row in rows {
            var a: [Double] = [], b: [Double] = []
            _ = try row.ours(mine); _ = try row.theirs(theirs)
            for _ in 0..<row.count {
                a.append(try row.ours(mine))
                b.append(try row.theirs(theirs))
            }
            a.sort(); b.sort()
            let mineP50 = percentile(a, 0.5), theirP50 = percentile(b, 0.5)
            print(String(format: "  %@ %9.2f ms    %10.2f ms    %8.1f×", row.label.padding(toLength: 30, withPad: " ", startingAt: 0), mineP50 * 1000, theirP50 * 1000, theirP50 / mineP50))
        }
        // Plausibility: supysonic's own answers are real (its search finds the songs, its stream is the file).
        let check = try theirs.api("search3", ["query": "Lantern"])
        let found = ((check.json?["searchResult3"] as? [String: Any])?["song"] as? [Any])?.count ?? 0
        let file = try theirs.get(theirs.apiPath("stream", ["id": theirMP3]), keepBody: false)
        print("  supysonic check: search3 \"Lantern\" found \(found) songs; its raw stream sent \(file.bodyBytes) bytes with status \(file.status)")
    }

    private func supysonicVersion() -> String {
        let version = (try? TestProcess.run("dpkg-query", ["-W", "-f=${Version}", "supysonic"]).stdout) ?? ""
        return version.isEmpty ? "" : version
    }
}

/// `xzmusic serve` with the Subsonic API on a free port, with a user of its own: on a prepared library
/// (`library`), or on a fresh one scanning `music`.
final class OurServer: Sendable {
    let process: RunningProcess
    let port: Int
    let library: URL

    init(library prepared: URL?, music: URL?, state: URL, xzmusic: String, expectedSongs: Int? = nil) throws {
        try? FileManager.default.removeItem(at: state)
        let runtime = state.appendingPathComponent("runtime")
        let config = state.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: config.appendingPathComponent("xzmusic"), withIntermediateDirectories: true)
        // No transcode cache: every transcode measured is made from nothing.
        var text = "subsonic_max_transcodes = 64\nsubsonic_transcode_cache = 0\n"
        if let music { text += "music_directory = \(music.path)\n" }
        try text.write(to: config.appendingPathComponent("xzmusic/config"), atomically: true, encoding: .utf8)
        let environment = ProcessInfo.processInfo.environment.merging(
            ["XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": config.path, "XZMUSIC_DEMO": ""]) { $1 }
        library = prepared ?? state.appendingPathComponent("library")
        if prepared != nil {
            // A prepared library keeps its users from run to run: only a new one is added.
            try? FileManager.default.removeItem(at: library.appendingPathComponent("accounts.key"))
            let database = try LibraryDatabase(path: library.appendingPathComponent("library.sqlite").path)
            try database.pool.write { try $0.execute(sql: "DELETE FROM library_user") }
        }
        let add = try TestProcess.run(xzmusic, ["user", "add", SubsonicBenchmark.user, "--password-stdin", "--library", library.path],
                                      input: Data((SubsonicBenchmark.password + "\n").utf8), environment: environment)
        guard add.status == 0 else { throw benchFailure("xzmusic user add: \(add.stderr.prefix(300))") }
        port = try freeLoopbackPort()
        process = try RunningProcess(xzmusic, ["serve", "--output", "null", "--no-tcp", "--subsonic-port", "\(port)", "--library", library.path],
                                     environment: environment)
        guard process.waitForOutput("xzmusic: hosting", timeout: 60) else {
            throw benchFailure("xzmusic serve did not start: \(process.stderr.prefix(500))")
        }
        guard let expectedSongs else { return }
        // The first start scans the music folder: wait until the catalogue holds it all.
        let client = try HTTPClient(port: port, waitingUpTo: 30)
        let deadline = Date(timeIntervalSinceNow: 600)
        while Date() < deadline {
            let status = try client.api("getScanStatus").json?["scanStatus"] as? [String: Any]
            if status?["scanning"] as? Bool == false, (status?["count"] as? Int ?? 0) >= expectedSongs { return }
            Thread.sleep(forTimeInterval: 0.2)
        }
        throw benchFailure("xzmusic serve did not scan \(expectedSongs) songs in 10 minutes")
    }

    func stop() {
        process.signal(SIGTERM)
        _ = process.finish(timeout: 10)
    }

    /// User and system CPU so far, from /proc/PID/stat.
    var cpuSeconds: Double { processCPUSeconds(process.process.processIdentifier) }

    var rssMiB: Double { Double(MeasuredRun.memoryKiB(process.process.processIdentifier, "VmRSS")) / 1024 }
}

/// One HTTP/1.1 keep-alive connection to a Subsonic server over loopback, signed in with the bench user's
/// password; bodies by Content-Length, chunked, or to the connection's end.
final class HTTPClient {
    struct Result {
        var status = 0
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        var bodyBytes = 0
        /// Seconds from the request to its first body byte (to the head's end for an empty body).
        var firstByte = 0.0
        var total = 0.0

        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["subsonic-response"] as? [String: Any]
        }
    }

    let port: Int
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 256 * 1024)

    init(port: Int, waitingUpTo seconds: Double = 0) throws {
        self.port = port
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            do {
                _ = try api("ping")
                return
            } catch {
                if Date() >= deadline { throw error }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    func apiPath(_ endpoint: String, _ parameters: [String: String] = [:]) -> String {
        var all = ["u": SubsonicBenchmark.user, "p": SubsonicBenchmark.password, "v": "1.16.1", "c": "bench", "f": "json"]
        all.merge(parameters) { $1 }
        let allowed = CharacterSet.alphanumerics.subtracting(CharacterSet(charactersIn: "\u{80}"..."\u{10FFFF}"))
        let query = all.sorted { $0.key < $1.key }.map { key, value in
            key + "=" + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
        return "/rest/\(endpoint).view?\(query)"
    }

    /// An API call answered with status 200 and a JSON document whose status is ok.
    func api(_ endpoint: String, _ parameters: [String: String] = [:]) throws -> Result {
        let result = try get(apiPath(endpoint, parameters))
        guard result.status == 200, result.json?["status"] as? String == "ok" else {
            throw benchFailure("\(endpoint): HTTP \(result.status) \(String(decoding: result.body.prefix(300), as: UTF8.self))")
        }
        return result
    }

    /// The id of the first song search3 finds for `text`.
    func songID(matching text: String) throws -> String {
        let songs = (try api("search3", ["query": text, "songCount": "1", "artistCount": "0", "albumCount": "0"])
            .json?["searchResult3"] as? [String: Any])?["song"] as? [[String: Any]]
        guard let id = songs?.first?["id"] as? String else { throw benchFailure("no song found for \"\(text)\" on port \(port)") }
        return id
    }

    func get(_ target: String, keepBody: Bool = true) throws -> Result {
        if fd < 0 { try connect() }
        let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUser-Agent: xzmusic-bench\r\n\r\n".utf8)
        let started = DispatchTime.now().uptimeNanoseconds
        do {
            try send(request)
        } catch {
            // The server closed an idle connection: once more on a new one.
            try connect()
            try send(request)
        }
        var result = Result()
        let headEnd = try readHead()
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        result.status = statusLine.count > 1 ? Int(statusLine[1]) ?? 0 : 0
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            result.headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }
        result.firstByte = elapsed()
        var sawBody = false
        func take(_ bytes: ArraySlice<UInt8>) {
            guard !bytes.isEmpty else { return }
            if !sawBody {
                sawBody = true
                result.firstByte = elapsed()
            }
            result.bodyBytes += bytes.count
            if keepBody { result.body += bytes }
        }
        let closes = result.headers["connection"]?.lowercased() == "close"
        if let length = result.headers["content-length"].flatMap({ Int($0) }) {
            var left = length
            while left > 0 {
                if buffer.isEmpty { try fill() }
                let n = min(left, buffer.count)
                take(buffer[..<n])
                buffer.removeFirst(n)
                left -= n
            }
        } else if result.headers["transfer-encoding"]?.lowercased() == "chunked" {
            while true {
                let line = try readLine()
                guard let size = Int(line.split(separator: ";").first ?? "", radix: 16) else {
                    throw benchFailure("bad chunk size \"\(line.prefix(20))\"")
                }
                if size == 0 {
                    while try !readLine().isEmpty {}
                    break
                }
                var left = size
                while left > 0 {
                    if buffer.isEmpty { try fill() }
                    let n = min(left, buffer.count)
                    take(buffer[..<n])
                    buffer.removeFirst(n)
                    left -= n
                }
                _ = try readLine()
            }
        } else {
            while (try? fill()) != nil {
                take(buffer[...])
                buffer.removeAll(keepingCapacity: true)
            }
            disconnect()
        }
        if closes { disconnect() }
        result.total = elapsed()
        return result
    }

    private func connect() throws {
        disconnect()
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw benchFailure("socket: \(String(cString: strerror(errno)))") }
        var address = loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socketFD)
            throw benchFailure("cannot connect to 127.0.0.1:\(port)")
        }
        var on: Int32 = 1
        setsockopt(socketFD, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        fd = socketFD
        buffer.removeAll()
    }

    private func disconnect() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    private func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw benchFailure("the server closed the connection") }
            sent += count
        }
    }

    /// More bytes into `buffer`; throws at the connection's end.
    private func fill() throws {
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                disconnect()
                throw benchFailure("the server closed the connection")
            }
            buffer += chunk[..<count]
            return
        }
    }

    private func readHead() throws -> Int {
        let end = Array("\r\n\r\n".utf8)
        var from = 0
        while true {
            if buffer.count >= 4 {
                for index in from...(buffer.count - 4) where buffer[index] == 13 && Array(buffer[index..<(index + 4)]) == end {
                    return index
                }
                from = buffer.count - 3
            }
            try fill()
        }
    }

    private func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<index], as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
                buffer.removeFirst(index + 1)
                return line
            }
            try fill()
        }
    }
}

/// The least an HTTP server can do to send a file over loopback: one thread, `sendfile` from the page cache
/// straight to the socket. Every request gets the whole file, but `/rest/ping…` (which `HTTPClient` starts
/// with) gets an ok document. Its thread ends with the program.
final class LoopbackFileSender {
    let port: Int

    init(path: String) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw benchFailure("socket: \(String(cString: strerror(errno)))") }
        var address = loopbackAddress(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 8) == 0 else { throw benchFailure("cannot listen on loopback") }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: local.sin_port))
        let thread = Thread {
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 { continue }
                Self.serve(connection, path: path)
                close(connection)
            }
        }
        thread.start()
    }

    private static func serve(_ connection: Int32, path: String) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            pending += chunk[..<count]
            while let end = pending.indices.dropLast(3).first(where: { pending[$0] == 13 && pending[$0 + 1] == 10 && pending[$0 + 2] == 13 && pending[$0 + 3] == 10 }) {
                let request = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeFirst(end + 4)
                guard answer(request, on: connection, path: path) else { return }
            }
        }
    }

    private static func answer(_ request: String, on connection: Int32, path: String) -> Bool {
        func send(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
        }
        if request.hasPrefix("GET /rest/ping") {
            let body = #"{"subsonic-response":{"status":"ok"}}"#
            return send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        }
        let file = open(path, O_RDONLY)
        guard file >= 0 else { return false }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0 else { return false }
        guard send("HTTP/1.1 200 OK\r\nContent-Type: audio/flac\r\nContent-Length: \(status.st_size)\r\n\r\n") else { return false }
        var offset: off_t = 0
        while offset < status.st_size {
            let sent = sendfile(connection, file, &offset, Int(status.st_size - offset))
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
        }
        return true
    }
}
