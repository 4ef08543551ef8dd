import Foundation

// Benchmarks that print figures next to a baseline measured in the same run. Not part of `make test`.
let arguments = Array(CommandLine.arguments.dropFirst())
let folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("bench-data")
/// The path of a program built beside this one.
func builtBeside(_ name: String) -> String {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
}
// Another build's binary may be measured with this build's benchmarks (a before-and-after comparison).
let binary = ProcessInfo.processInfo.environment["XZMUSIC_BENCH_BINARY"] ?? builtBeside("xzmusic")

/// Runs a benchmark; its error ends the program with status 1.
func benchmark(_ body: () throws -> Void) {
    do {
        try body()
    } catch {
        // benchFailure's message, else the error as it describes itself.
        let message = (error as NSError).userInfo[NSLocalizedDescriptionKey] as? String ?? "\(error)"
        FileHandle.standardError.write(Data("bench: \(message)\n".utf8))
        exit(1)
    }
}

/// The playback benchmark's files (and its 1,000,000-song library) serve the others too.
let playback = PlaybackBenchmark(folder: folder.appendingPathComponent("playback"), xzmusic: binary,
                                 library: folder.appendingPathComponent("library-1m"))

switch arguments.first {
case "search":
    let songs = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
    benchmark {
        try SearchBenchmark(songCount: songs, singerCount: max(1, songs / 10), folder: folder.appendingPathComponent("search")).run()
    }
case "playback":
    benchmark { try playback.run() }
case "playback-latency":
    // Only the rows of `playback` measured in this process: first sample, lyric lag, command latency.
    benchmark { try playback.inProcessRows(try playback.makeTestFile()) }
case "json":
    benchmark {
        try JSONBenchmark(folder: folder.appendingPathComponent("json"), library: folder.appendingPathComponent("library-1m"),
                          xzmusic: binary).run()
    }
case "download":
    benchmark {
        try DownloadBenchmark(folder: folder.appendingPathComponent("download"), xzmusic: binary,
                              mp3: try playback.makeTestFile()).run()
    }
case "oneshot-search":
    benchmark { try OneShotSearchBenchmark(folder: folder.appendingPathComponent("oneshot-search"), xzmusic: binary).run() }
case "rescan":
    benchmark {
        try RescanBenchmark(folder: folder.appendingPathComponent("rescan"), xzmusic: binary,
                            mp3: try playback.makeTestFile(seconds: 1)).run()
    }
case "formats":
    benchmark {
        var formats = FormatsBenchmark(folder: folder.appendingPathComponent("formats"), xzmusic: binary)
        if arguments.count > 1 { formats.parts = Set(arguments.dropFirst()) }
        try formats.run()
    }
case "lyrics":
    benchmark {
        try LyricsBenchmark(folder: folder.appendingPathComponent("lyrics"), xzmusic: binary,
                            mp3: try playback.makeTestFile(seconds: 1)).run()
    }
case "online":
    benchmark { try OnlineBenchmark(folder: folder.appendingPathComponent("online"), mp3: try playback.makeTestFile()).run() }
case "cli":
    benchmark {
        try CLIBenchmark(folder: folder.appendingPathComponent("cli"), xzmusic: binary, options: Array(arguments.dropFirst())).run()
    }
case "server" where arguments.dropFirst().first == "rss":
    // Only the mixed-folder RSS rows of `server`: MPD and the host on one song of every format.
    benchmark { try ServerBenchmark(folder: folder.appendingPathComponent("server"), xzmusic: binary).mixedLibraryRSSOnly() }
case "server":
    benchmark { try ServerBenchmark(folder: folder.appendingPathComponent("server"), xzmusic: binary,
                                         library1M: folder.appendingPathComponent("library-1m")).run() }
case "server-lists":
    // Only the command list rows of `server` (100,000 pings, every song's add, 10,000 adds of one song).
    benchmark { try ServerBenchmark(folder: folder.appendingPathComponent("server"), xzmusic: binary).commandListsOnly() }
case "server-throughput":
    // Only the `status` throughput row, against XZMUSIC_BENCH_BINARY (builds compared one after another).
    benchmark { try ServerBenchmark(folder: folder.appendingPathComponent("server"), xzmusic: binary).statusThroughputOnly() }
case "server-watch":
    // Only the album copy row of `server`, on an empty music folder: three copies timed.
    benchmark { try ServerBenchmark(folder: folder.appendingPathComponent("server"), xzmusic: binary).albumCopyOnly() }
case "server-scale":
    // Only the million-song `search any` part of `server`, for the queries given if any.
    let queries = arguments.count > 1 ? Array(arguments.dropFirst()) : SyntheticCatalogue.queries
    benchmark { try ServerBenchmark(folder: folder.appendingPathComponent("server"), xzmusic: binary)
        .searchAtScale(library: folder.appendingPathComponent("library-1m"), queries: queries) }
case "subsonic":
    // `subsonic raw`: only the raw stream's row.
    let subsonic = SubsonicBenchmark(folder: folder.appendingPathComponent("subsonic"), xzmusic: binary)
    benchmark { arguments.dropFirst().first == "raw" ? try subsonic.runRawOnly() : try subsonic.run() }
case "transport-floor":
    // Started by `server` as a child process: PORT and the answer to give every request line.
    benchmark {
        guard arguments.count == 3, let port = Int(arguments[1]), (1...65535).contains(port) else {
            throw benchFailure("usage: xzmusic-bench transport-floor PORT ANSWER (PORT 1-65535)")
        }
        try TransportFloor.serve(port: port, answer: Array(arguments[2].utf8))
    }
default:
    FileHandle.standardError.write(Data(
        "usage: xzmusic-bench search [SONGS] | playback | cli [--compare OTHER_BINARY] [--sizes N,N,…] | formats [render] [realtime] [scan] [encode] | json | download | oneshot-search | rescan | server [rss] | server-lists | server-watch | server-scale [QUERY...] | subsonic [raw] | online | lyrics | transport-floor PORT ANSWER\n".utf8))
    exit(64)
}
