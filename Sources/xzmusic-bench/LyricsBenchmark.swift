import Foundation
import XZTestSupport

/// `lyrics fetch --all` for 5,000 local songs against a loopback LRCLIB-shaped server that answers in
/// 20 ms, next to the same requests made by curl from a shell loop with the same concurrency.
struct LyricsBenchmark {
    let folder: URL
    let xzmusic: String
    let mp3: String
    var songCount = 5_000
    var concurrency = 2

    func run() throws {
        let server = try TestHTTPServer { request, _ in
            usleep(20_000)
            let title = request.query["track_name"] ?? ""
            return .json(200, [["id": 1, "trackName": title, "artistName": "Unknown", "albumName": NSNull(), "duration": 1,
                                "instrumental": false, "plainLyrics": "bench", "syncedLyrics": "[00:00.50]bench"]])
        }
        defer { server.stop() }
        try? FileManager.default.removeItem(at: folder)
        let music = folder.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // One short untagged file under many names: each is a song titled by its name, asked by /api/search.
        let names = (1...songCount).map { String(format: "Song %04d", $0) }
        for name in names {
            try FileManager.default.linkItem(atPath: mp3, toPath: music.appendingPathComponent(name + ".mp3").path)
        }
        let library = folder.appendingPathComponent("library")
        let config = folder.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: config.appendingPathComponent("xzmusic"), withIntermediateDirectories: true)
        try "lyrics_server = \(server.base)\nlyrics_concurrency = \(concurrency)\n"
            .write(to: config.appendingPathComponent("xzmusic/config"), atomically: true, encoding: .utf8)
        setenv("XZMUSIC_HOME", library.path, 1)
        setenv("XZMUSIC_DEMO", "", 1)
        setenv("XDG_CONFIG_HOME", config.path, 1)
        guard try MeasuredRun.run([xzmusic, "import", music.path]).status == 0 else { throw benchFailure("import failed") }
        print("\(songCount) songs, server \(server.base) answering in 20 ms, \(concurrency) at once")

        // curl: one process per request, as a shell loop fetching lyrics would run it.
        let list = folder.appendingPathComponent("urls.txt")
        let urls = names.map { server.url("/api/search?track_name=\($0.replacingOccurrences(of: " ", with: "%20"))&artist_name=Unknown") }
        try urls.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let curl = try MeasuredRun.run(["sh", "-c", "xargs -P \(concurrency) -n 1 curl -s -o /dev/null < '\(list.path)'"])

        let log = folder.appendingPathComponent("fetch.log").path
        let ours = try MeasuredRun.run([xzmusic, "lyrics", "fetch", "--all"], stdoutPath: log)
        guard ours.status == 0 else { throw benchFailure("xzmusic lyrics fetch exited with status \(ours.status)") }
        let summary = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n").last.map(String.init) ?? ""
        guard summary.contains("\(songCount) synced") else { throw benchFailure("not every song was fetched: \(summary)") }

        let rate = Double(songCount) / ours.wallSeconds, curlRate = Double(songCount) / curl.wallSeconds
        print(String(format: "xzmusic %.1f s = %.0f songs/s   curl loop %.1f s = %.0f songs/s   ratio %.2fx (target >= 1x)",
                     ours.wallSeconds, rate, curl.wallSeconds, curlRate, rate / curlRate))
        print(String(format: "CPU s: xzmusic %.2f   curl loop %.2f", ours.cpuSeconds, curl.cpuSeconds))
        print(String(format: "xzmusic peak RSS %.1f MB (target < 60 MB)", Double(ours.peakRSSKiB) / 1024))
    }
}
