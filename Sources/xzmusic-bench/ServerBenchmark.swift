import Foundation
import XZSystem
import GRDB
import XZCatalogue
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `xzmusic serve` next to MPD on the same folder of tagged MP3 files, over loopback, in one run:
/// status round trip, status throughput with many clients, `search any` and `list album group
/// albumartist` latency, host memory, a one-shot `next`, and a 500-file album copied into the watched
/// music folder until idle clients hear `changed: database`; then `search any` through the filter engine
/// over the million-song catalogue (`library`, shared with the other benchmarks).
///
/// Beside them, the floors of the parts the host is built on, measured the same way in the same run:
/// a bare SwiftNIO server that gives every request the host's `status` answer (`transport-floor`), a
/// one-shot client that is swift-argument-parser and one request (`xzmusic-floor-client`), and SQLite
/// reading the rows of a million-song search's hits.
struct ServerBenchmark {
    let folder: URL
    let xzmusic: String
    /// This benchmark's own binary, which serves the transport floor, and the floor client beside it.
    var bench = builtBeside("xzmusic-bench")
    var floorClient = builtBeside("xzmusic-floor-client")
    var library1M: URL? = nil
    var songCount = 10_000

    func run() throws {
        let mixedRSS = try mixedLibraryRSS()
        let streaming = try streamingHostFigures()
        let music = try makeMusicFolder()
        // Everything but the music is made afresh, so both servers scan the folder from nothing.
        let state = folder.appendingPathComponent("run")
        try? FileManager.default.removeItem(at: state)
        let library = state.appendingPathComponent("library").path
        let runtime = state.appendingPathComponent("runtime")
        let config = state.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: config.appendingPathComponent("xzmusic"), withIntermediateDirectories: true)
        try "music_directory = \(music.path)\n".write(to: config.appendingPathComponent("xzmusic/config"),
                                                       atomically: true, encoding: .utf8)
        // Set here too, so the one-shot clients spawned below find the same host and music folder.
        let settings = ["XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": config.path, "XZMUSIC_DEMO": ""]
        for (key, value) in settings { setenv(key, value, 1) }
        let environment = ProcessInfo.processInfo.environment.merging(settings) { $1 }

        let mpdPort = try freeLoopbackPort()
        let mpd = try RunningProcess(try TestProcess.which("mpd"),
                                     ["--no-daemon", try writeMPDConfig(state: state, music: music, port: mpdPort)],
                                     environment: environment)
        defer { stop(mpd) }
        let mpdGreeting = try waitForServer(port: mpdPort, process: mpd, log: state.appendingPathComponent("mpd/log"))
        let mpc = ["mpc", "-h", "127.0.0.1", "-p", "\(mpdPort)"]
        let update = try checked(mpc + ["update", "--wait"])
        let mpdSongs = try ProtocolConnection(port: mpdPort).text("stats")
            .split(separator: "\n").first { $0.hasPrefix("songs: ") }.map { $0.dropFirst(7) } ?? "?"

        // A host started on a folder it never scanned scans it at once, as MPD does without a database.
        let ourPort = try freeLoopbackPort()
        let started = DispatchTime.now().uptimeNanoseconds
        let host = try RunningProcess(xzmusic, ["serve", "--output", "null", "--port", "\(ourPort)", "--library", library],
                                      environment: environment)
        defer { stop(host) }
        guard host.waitForOutput("xzmusic: hosting", timeout: 30) else {
            throw benchFailure("xzmusic serve did not start: \(host.stderr.prefix(500))")
        }
        // Scanned: no update under way, and songs in the catalogue.
        while try ProtocolConnection(port: ourPort).text("status").contains("updating_db")
                || ProtocolConnection(port: ourPort).text("stats").contains("\nsongs: 0\n") {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let scanSeconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let ourMPC = ["mpc", "-h", "127.0.0.1", "-p", "\(ourPort)"]
        print("\(songCount) tagged MP3 files in \(music.path)")
        print(String(format: "scan: MPD (mpc update --wait) %.1f s, %@ songs   xzmusic serve's first-start scan %.1f s\n",
                     update.wallSeconds, String(mpdSongs), scanSeconds))

        Thread.sleep(forTimeInterval: 1)
        let idleRSS = (mpd: memoryMB(mpd), ours: memoryMB(host))
        let idleHost = try idleHostFigures(mpd: (mpdPort, mpd.process.processIdentifier), ours: (ourPort, host.process.processIdentifier))

        let floorPort = try freeLoopbackPort()
        let floor = try RunningProcess(bench, ["transport-floor", "\(floorPort)", try ProtocolConnection(port: ourPort).text("status")],
                                       environment: environment)
        defer { stop(floor) }
        _ = try waitForServer(port: floorPort, process: floor, log: nil)
        let roundTrips = try measureRoundTrips(ports: [mpdPort, ourPort, floorPort], request: "status", count: 5_000)
        // The first answer after start, before xzmusic keeps any song's record (SongRecords).
        var firstSearch: [Double] = []
        for port in [mpdPort, ourPort] {
            let connection = try ProtocolConnection(port: port)
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try connection.request("search any \"lantern\"")
            firstSearch.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        // The same for a client with a tag set of its own, whose records nothing has made yet.
        var coldSearch: [Double] = []
        for port in [mpdPort, ourPort] {
            let connection = try ProtocolConnection(port: port)
            try connection.request("tagtypes disable Genre")
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try connection.request("search any \"parade\"")
            coldSearch.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        // A word of 1 title in 8 (about 1,250 songs), and one of a single album (10 songs).
        let searches = try measureRoundTrips(ports: [mpdPort, ourPort], request: "search any \"lantern\"", count: 200, block: 20)
        let narrowSearches = try measureRoundTrips(ports: [mpdPort, ourPort], request: "search any \"album 123\"", count: 200, block: 20)
        let lists = try measureRoundTrips(ports: [mpdPort, ourPort], request: "list album group albumartist", count: 100, block: 10)
        // Best of two runs each, the servers taking turns.
        var throughput = [0.0, 0.0, 0.0]
        for _ in 0..<2 {
            for (index, port) in [mpdPort, ourPort, floorPort].enumerated() {
                throughput[index] = max(throughput[index], try statusThroughput(port: port, clients: 60, requests: 300))
            }
        }

        // Playing: one song added by its name in the music folder, as an MPD client names it.
        let uris = (0..<41).map { relativePath(song: $0 * (songCount / 41)) }
        for command in [mpc, ourMPC] {
            try checked(command + ["add", uris[0]])
            try checked(command + ["play"])
        }
        Thread.sleep(forTimeInterval: 2)
        let playingRSS = (mpd: memoryMB(mpd), ours: memoryMB(host))
        for port in [mpdPort, ourPort] {
            let status = try ProtocolConnection(port: port).text("status")
            guard status.contains("state: play") else { throw benchFailure("not playing on port \(port): \(status)") }
        }

        // Somewhere for `next` to go: 40 more songs, repeated.
        let queue = (["command_list_begin"] + uris.dropFirst().map { "add \(quoted($0))" } + ["repeat 1", "command_list_end"])
            .joined(separator: "\n")
        for port in [mpdPort, ourPort] { try ProtocolConnection(port: port).request(queue) }
        let nexts = try oneShotNext([mpc + ["next"], [xzmusic, "next", "--library", library],
                                     [floorClient, "next", "--port", "\(ourPort)"]], runs: 30)

        // Last: the listings' answers leave memory behind that the RSS rows above must not count.
        let busyStatus = try [mpdPort, ourPort].map { try statusDuringListings(port: $0) }
        let albumCopies = try (0..<3).map { _ in try albumCopyToIdle(port: ourPort, music: music) }

        print("                                     MPD    xzmusic    ratio   target")
        row("status round trip p50, ms", roundTrips[0].p50 * 1000, roundTrips[1].p50 * 1000, format: "%9.3f",
            target: "<= 1.00x", met: roundTrips[1].p50 <= roundTrips[0].p50)
        floorRow("bare SwiftNIO", roundTrips[0].p50 * 1000, roundTrips[2].p50 * 1000, format: "%9.3f")
        row("status round trip p99, ms", roundTrips[0].p99 * 1000, roundTrips[1].p99 * 1000, format: "%9.3f",
            target: "<= 1.00x", met: roundTrips[1].p99 <= roundTrips[0].p99)
        floorRow("bare SwiftNIO", roundTrips[0].p99 * 1000, roundTrips[2].p99 * 1000, format: "%9.3f")
        row("status/s, 60 clients x 300", throughput[0], throughput[1], format: "%9.0f", target: ">= 1.00x",
            met: throughput[1] >= throughput[0])
        floorRow("bare SwiftNIO", throughput[0], throughput[2], format: "%9.0f")
        printMixedLibraryRows(mixedRSS)
        row("host RSS idle, \(songCount) files, MB", idleRSS.mpd, idleRSS.ours, format: "%9.1f", target: "<= 1.00x",
            met: idleRSS.ours <= idleRSS.mpd)
        row("host RSS playing, MB", playingRSS.mpd, playingRSS.ours, format: "%9.1f", target: "<= 1.20x",
            met: playingRSS.ours <= playingRSS.mpd * 1.2)
        row("one-shot next median, ms (mpc)", nexts[0] * 1000, nexts[1] * 1000, format: "%9.1f", target: "<= 2.00x",
            met: nexts[1] <= nexts[0] * 2)
        floorRow("argument-parser alone", nexts[0] * 1000, nexts[2] * 1000, format: "%9.1f")
        for (label, figures) in [("search any lantern", searches), ("search any 'album 123'", narrowSearches),
                                 ("list album group albumartist", lists)] {
            row("\(label) p50, ms", figures[0].p50 * 1000, figures[1].p50 * 1000, format: "%9.2f", target: "<= 1.00x",
                met: figures[1].p50 <= figures[0].p50)
            row("\(label) p99, ms", figures[0].p99 * 1000, figures[1].p99 * 1000, format: "%9.2f", target: "<= 1.00x",
                met: figures[1].p99 <= figures[0].p99)
        }
        row("status p99 beside listallinfo, ms", busyStatus[0].p99 * 1000, busyStatus[1].p99 * 1000, format: "%9.2f",
            target: "< 20 ms", met: busyStatus[1].p99 < 0.020)
        try binarySizeRows()
        try commandListRows(mpd: (mpdPort, mpd.process.processIdentifier), ours: (ourPort, host.process.processIdentifier),
                            uris: (0..<songCount).map(relativePath))
        printAlbumCopyRow(albumCopies)
        printIdleHostRows(idleHost)
        printStreamingRows(streaming)
        print(String(format: "first search any lantern after start, ms: MPD %.2f, xzmusic %.2f", firstSearch[0], firstSearch[1]))
        print(String(format: "first search any parade with tag types of its own (no record made yet), ms: MPD %.2f, xzmusic %.2f",
                     coldSearch[0], coldSearch[1]))
        print("\nround trips: \(roundTrips[0].count) per server, one connection each, in alternating blocks; "
            + "throughput: best of two runs each; ratio = xzmusic / MPD; a floor row: that part alone, ratio to MPD")
        print("greetings: MPD '\(mpdGreeting)', xzmusic '\(try ProtocolConnection(port: ourPort).greeting)'")
        if let library1M { try searchAtScale(library: library1M) }
    }

    /// `search any` through the filter engine (what the host runs for it, folded extras included) over
    /// a million catalogue songs; catalogue songs without files count too, so every song is searched.
    func searchAtScale(library: URL, songCount: Int = 1_000_000, queries: [String] = SyntheticCatalogue.queries) throws {
        let folder = try BenchLibrary.prepared(in: library, songCount: songCount)
        let database = try LibraryDatabase(path: folder.appendingPathComponent("library.sqlite").path)
        let naming = SongNaming(roots: [], otherPrefix: "", localOnly: false)
        var times: [Double] = []
        var perQuery: [String: (hits: Int, slowest: Double)] = [:]
        var hits = 0
        for round in 0..<3 {
            for query in queries {
                let selection = SongSelection(filters: [.tag(nil, StringMatch(.contains, query, foldCase: true))],
                                              foldedExtras: true)
                let start = DispatchTime.now().uptimeNanoseconds
                let found = try database.songs(selection, naming: naming)
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                if round > 0 {
                    times.append(elapsed)
                    perQuery[query] = (found.count, max(perQuery[query]?.slowest ?? 0, elapsed))
                }
                hits += found.count
            }
        }
        let sorted = times.sorted()
        print(String(format: "\nsearch any at %d catalogue songs: p50 %.2f ms, p99 %.2f ms (target < 20 ms), "
            + "%d queries, %d hits a round", songCount, percentile(sorted, 0.5) * 1000, percentile(sorted, 0.99) * 1000,
            sorted.count, hits / 3))
        print("  query           hits   slowest ms   floor: SQLite reading the rows holding the text, alone")
        for query in queries {
            guard let figures = perQuery[query] else { continue }
            var line = String(format: "  %@ %7d %10.2f", "'\(query)'".padding(toLength: 16, withPad: " ", startingAt: 0),
                              figures.hits, figures.slowest * 1000)
            if let floor = try rowsAlone(database, holding: query) {
                line += String(format: "   %7d rows %8.2f ms", floor.rows, floor.seconds * 1000)
            }
            print(line)
        }
    }

    /// The least any listing of `text`'s hits costs in SQLite: finding the songs whose text holds it
    /// through the trigram index and reading each one's row with its singer and album, on the library's
    /// own connection, summed inside SQLite so nothing is decoded. Nil for text under three characters,
    /// which the trigram index does not answer by itself.
    private func rowsAlone(_ database: LibraryDatabase, holding text: String) throws -> (rows: Int, seconds: Double)? {
        guard text.count >= 3 else { return nil }
        let sql = """
            SELECT count(*), sum(length(song.title) + length(singer.name) + length(coalesce(album.title, ''))
                                 + length(coalesce(song.local_path, '')))
            FROM song JOIN singer ON singer.id = song.singer_id LEFT JOIN album ON album.id = song.album_id
            WHERE song.id IN (SELECT rowid FROM song_text WHERE song_text MATCH ?)
            """
        let phrase = "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        var best = Double.infinity
        var rows = 0
        for _ in 0..<3 {
            let start = DispatchTime.now().uptimeNanoseconds
            rows = try database.pool.read { db in try Int.fetchOne(db, sql: sql, arguments: [phrase]) ?? 0 }
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return (rows, best)
    }

    // MARK: Measurements

    struct Latencies {
        var count: Int
        var p50: Double
        var p99: Double
    }

    /// `request` over one connection per server, timed one by one; the servers take turns in blocks
    /// so that a burst of load on the machine falls on all. Figures in the order of `ports`.
    private func measureRoundTrips(ports: [Int], request: String, count: Int, block: Int = 500) throws -> [Latencies] {
        let connections = try ports.map { try ProtocolConnection(port: $0) }
        for connection in connections { for _ in 0..<block { try connection.request(request) } }
        var times: [[Double]] = ports.map { _ in [] }
        for _ in 0..<(count / block) {
            for (index, connection) in connections.enumerated() {
                for _ in 0..<block {
                    let start = DispatchTime.now().uptimeNanoseconds
                    try connection.request(request)
                    times[index].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                }
            }
        }
        return times.map { samples -> Latencies in
            let sorted = samples.sorted()
            return Latencies(count: sorted.count, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99))
        }
    }

    /// Only the `status` throughput row, for an empty library: best of three runs of 60 clients x 300.
    func statusThroughputOnly() throws {
        let state = folder.appendingPathComponent("throughput")
        try? FileManager.default.removeItem(at: state)
        let runtime = state.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let environment = ProcessInfo.processInfo.environment.merging(
            ["XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": state.path, "XZMUSIC_DEMO": ""]) { $1 }
        let port = try freeLoopbackPort()
        let host = try RunningProcess(xzmusic, ["serve", "--output", "null", "--port", "\(port)", "--library",
                                                state.appendingPathComponent("library").path], environment: environment)
        defer { stop(host) }
        guard host.waitForOutput("xzmusic: hosting", timeout: 30) else { throw benchFailure("xzmusic serve did not start") }
        var best = 0.0
        for _ in 0..<3 { best = max(best, try statusThroughput(port: port, clients: 60, requests: 300)) }
        print(String(format: "status/s, 60 clients x 300, best of 3: %.0f  (%@)", best, xzmusic))
    }

    /// `status` round trips on one connection while two others (as many as the host has event loops)
    /// list the whole library (`listallinfo`) again and again.
    private func statusDuringListings(port: Int, count: Int = 300) throws -> Latencies {
        let stop = StopFlag()
        let listers = DispatchGroup()
        let failures = FailureList()
        for _ in 0..<2 {
            let connection = try ProtocolConnection(port: port)
            listers.enter()
            Thread.detachNewThread {
                do {
                    while !stop.isSet { try connection.request("listallinfo") }
                } catch {
                    failures.add(error)
                }
                listers.leave()
            }
        }
        let status = try ProtocolConnection(port: port)
        Thread.sleep(forTimeInterval: 0.2)
        var samples: [Double] = []
        for _ in 0..<count {
            let start = DispatchTime.now().uptimeNanoseconds
            try status.request("status")
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        stop.set()
        listers.wait()
        if let error = failures.first { throw error }
        samples.sort()
        return Latencies(count: samples.count, p50: percentile(samples, 0.5), p99: percentile(samples, 0.99))
    }

    /// Requests per second with `clients` threads, each on its own connection sending `requests`
    /// `status` one after another; timed from the moment all are connected to the last answer.
    private func statusThroughput(port: Int, clients: Int, requests: Int) throws -> Double {
        let connections = try (0..<clients).map { _ in try ProtocolConnection(port: port) }
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let failures = FailureList()
        for connection in connections {
            done.enter()
            Thread.detachNewThread {
                start.wait()
                do {
                    for _ in 0..<requests { try connection.request("status") }
                } catch {
                    failures.add(error)
                }
                done.leave()
            }
        }
        let started = DispatchTime.now().uptimeNanoseconds
        for _ in connections { start.signal() }
        guard done.wait(timeout: .now() + 120) == .success else { throw benchFailure("status clients still busy after 120 s") }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        if let error = failures.first { throw error }
        return Double(clients * requests) / seconds
    }

    /// Median wall time of each one-shot client, taking turns; one untimed run each first.
    private func oneShotNext(_ commands: [[String]], runs: Int) throws -> [Double] {
        var times: [[Double]] = commands.map { _ in [] }
        for round in 0...runs {
            for (index, command) in commands.enumerated() {
                let run = try MeasuredRun.timed(command)
                guard run.status == 0 else { throw benchFailure("\(command.joined(separator: " ")) exited with status \(run.status)") }
                if round > 0 { times[index].append(run.wallSeconds) }
            }
        }
        return times.map { percentile($0.sorted(), 0.5) }
    }

    // MARK: Servers

    func writeMPDConfig(state: URL, music: URL, port: Int) throws -> String {
        let mpd = state.appendingPathComponent("mpd")
        try FileManager.default.createDirectory(at: mpd.appendingPathComponent("playlists"), withIntermediateDirectories: true)
        let path = { (name: String) in quoted(mpd.appendingPathComponent(name).path) }
        let text = """
            music_directory    \(quoted(music.path))
            playlist_directory \(path("playlists"))
            db_file            \(path("database"))
            state_file         \(path("state"))
            pid_file           \(path("pid"))
            log_file           \(path("log"))
            bind_to_address    "127.0.0.1"
            port               "\(port)"
            auto_update        "no"
            zeroconf_enabled   "no"
            audio_output {
                type       "null"
                name       "null"
                mixer_type "software"
            }

            """
        let conf = mpd.appendingPathComponent("mpd.conf")
        try text.write(to: conf, atomically: true, encoding: .utf8)
        return conf.path
    }

    /// The greeting once the server answers; throws with its log when it exits or stays silent for 30 s.
    func waitForServer(port: Int, process: RunningProcess, log: URL?) throws -> String {
        let deadline = Date(timeIntervalSinceNow: 30)
        while Date() < deadline {
            if let connection = try? ProtocolConnection(port: port) { return connection.greeting }
            guard process.process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let logText = log.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
        let name = process.process.executableURL?.lastPathComponent ?? "server"
        throw benchFailure("\(name) did not answer on port \(port): \(process.stderr.suffix(500)) \(logText.suffix(500))")
    }

    func stop(_ server: RunningProcess) {
        server.signal(SIGTERM)
        _ = server.finish(timeout: 10)
    }

    func memoryMB(_ server: RunningProcess) -> Double {
        Double(MeasuredRun.memoryKiB(server.process.processIdentifier, "VmRSS")) / 1024
    }

    @discardableResult
    func checked(_ arguments: [String]) throws -> MeasuredRun {
        let log = folder.appendingPathComponent("run/command.log").path
        // The streaming rows run before any row that makes `run/` for them.
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("run"), withIntermediateDirectories: true)
        let run = try MeasuredRun.run(arguments, stdoutPath: log)
        guard run.status == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw benchFailure("\(arguments.joined(separator: " ")) exited with status \(run.status): \(output.suffix(500))")
        }
        return run
    }

    func row(_ label: String, _ mpd: Double, _ ours: Double, format: String, target: String, met: Bool) {
        let padded = label.padding(toLength: 30, withPad: " ", startingAt: 0)
        print(padded + String(format: "\(format)  \(format)  %6.2fx   %@ %@", mpd, ours, ours / mpd, target,
                              met ? "met" : "MISSED"))
    }

    /// The figure of a part alone under the row above it, as a ratio to MPD's.
    private func floorRow(_ part: String, _ mpd: Double, _ floor: Double, format: String) {
        let padded = "  floor: \(part)".padding(toLength: 30, withPad: " ", startingAt: 0)
        print(padded + String(repeating: " ", count: 9) + String(format: "  \(format)  %6.2fx", floor, floor / mpd))
    }

    // MARK: Music

    /// `songCount` MP3 files, Singer NNN/Album NN/NNNN Title.mp3: one short encoded file behind a tag of
    /// its own each. Kept under bench-data between runs.
    func makeMusicFolder() throws -> URL {
        let music = folder.appendingPathComponent("music")
        let done = folder.appendingPathComponent("music-\(songCount).done")
        if FileManager.default.fileExists(atPath: done.path) { return music }
        try? FileManager.default.removeItem(at: music)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let encoded = folder.appendingPathComponent("unit.mp3").path
        // 4 s: long enough to still be playing when the playing host is measured.
        try AudioFixtures.makeMP3(at: encoded, seconds: 4, lameOptions: ["-b", "64", "--resample", "44.1"])
        let audio = try Data(contentsOf: URL(fileURLWithPath: encoded))
        print("writing \(songCount) tagged MP3 files to \(music.path)…")
        for song in 0..<songCount {
            let file = music.appendingPathComponent(relativePath(song: song))
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            let names = songNames(song)
            var data = Data(ID3v23.tag([("TIT2", names.title), ("TPE1", names.singer), ("TALB", names.album),
                                        ("TRCK", "\(song % 10 + 1)/10")]))
            data.append(audio)
            try data.write(to: file)
        }
        try Data().write(to: done)
        return music
    }

    func relativePath(song: Int) -> String {
        String(format: "Singer %03d/Album %02d/%02d Song %05d.mp3", song / 100, song / 10 % 10, song % 10 + 1, song)
    }

    /// Latin and CJK names, as a real collection mixes them.
    private func songNames(_ song: Int) -> (title: String, singer: String, album: String) {
        let words = ["晴天", "Lantern", "夜曲", "Parade", "光年", "Harbour", "海阔天空", "Morning"]
        return ("\(words[song % words.count]) \(song)", "Singer \(song / 100) 歌手",
                "\(words[song / 10 % words.count]) Album \(song / 10)")
    }

    func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// ID3v2.3 tags of UTF-16 text frames, as most taggers write them.
enum ID3v23 {
    static func tag(_ frames: [(id: String, text: String)]) -> [UInt8] {
        var body: [UInt8] = []
        for frame in frames {
            // Encoding 1: UTF-16 after a byte-order mark (little-endian here).
            var content: [UInt8] = [1, 0xFF, 0xFE]
            for unit in frame.text.utf16 { content += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
            body += Array(frame.id.utf8) + bigEndian(UInt32(content.count)) + [0, 0] + content
        }
        // The tag's own size is "synchsafe": 7 bits a byte.
        let size = body.count
        let synchsafe = (0..<4).map { UInt8((size >> (7 * (3 - $0))) & 0x7F) }
        return Array("ID3".utf8) + [3, 0, 0] + synchsafe + body
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8((value >> (8 * (3 - $0))) & 0xFF) }
    }
}

/// Errors from client threads, the first kept.
final class FailureList: Sendable {
    private let errors = Mutex<[any Error]>([])

    func add(_ error: any Error) { errors.withLock { $0.append(error) } }

    var first: (any Error)? { errors.withLock { $0.first } }
}

/// A flag one thread sets and others read.
private final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
