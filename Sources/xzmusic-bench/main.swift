import Foundation

// Benchmarks that print figures next to a baseline measured in the same run. Not part of `make test`.
let arguments = Array(CommandLine.arguments.dropFirst())
let folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("bench-data")
switch arguments.first {
case "search":
    let songs = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
    do {
        try SearchBenchmark(songCount: songs, singerCount: max(1, songs / 10), folder: folder.appendingPathComponent("search")).run()
    } catch {
        FileHandle.standardError.write(Data("bench: \(error)\n".utf8))
        exit(1)
    }
case "playback":
    // The xzmusic binary built beside this one.
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("xzmusic").path
    do {
        try PlaybackBenchmark(folder: folder.appendingPathComponent("playback"), xzmusic: binary,
                              library: folder.appendingPathComponent("library-1m")).run()
    } catch {
        FileHandle.standardError.write(Data("bench: \(error)\n".utf8))
        exit(1)
    }
case "json":
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("xzmusic").path
    do {
        try JSONBenchmark(folder: folder.appendingPathComponent("json"), library: folder.appendingPathComponent("library-1m"),
                          xzmusic: binary).run()
    } catch {
        FileHandle.standardError.write(Data("bench: \(error)\n".utf8))
        exit(1)
    }
case "download":
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("xzmusic").path
    do {
        let playback = PlaybackBenchmark(folder: folder.appendingPathComponent("playback"), xzmusic: binary,
                                         library: folder.appendingPathComponent("library-1m"))
        try DownloadBenchmark(folder: folder.appendingPathComponent("download"), xzmusic: binary,
                              mp3: try playback.makeTestFile()).run()
    } catch {
        FileHandle.standardError.write(Data("bench: \(error)\n".utf8))
        exit(1)
    }
default:
    FileHandle.standardError.write(Data("usage: xzmusic-bench search [SONGS] | playback | json | download\n".utf8))
    exit(64)
}
