import Foundation
import XZTestSupport

/// xzmusic's downloader next to curl on the same local server in the same run.
struct DownloadBenchmark {
    let folder: URL
    let xzmusic: String
    let mp3: String

    func run() throws {
        // A valid MP3 (it must pass verification) of about 200 MB: one encoded file repeated.
        let unit = try Data(contentsOf: URL(fileURLWithPath: mp3))
        var body = Data(capacity: 200_000_000 + unit.count)
        while body.count < 200_000_000 { body.append(unit) }
        let payload = body
        let server = try TestHTTPServer { request, _ in
            var response = TestHTTPServer.file(payload, request: request)
            response.chunk = 1 << 20
            return response
        }
        defer { server.stop() }
        let megabytes = Double(payload.count) / 1e6
        print(String(format: "file: %.0f MB served from %@\n", megabytes, server.base))

        let curl = try MeasuredRun.run(["curl", "-s", "-o", "/dev/null", server.url("/big0.mp3")])
        let ours = try downloadRun(files: 1, server: server, label: "one")
        print(String(format: "one file:  xzmusic %.2f s = %.0f MB/s   curl %.2f s = %.0f MB/s   ratio %.2fx (target >= 0.9x)",
                     ours.wallSeconds, megabytes / ours.wallSeconds, curl.wallSeconds, megabytes / curl.wallSeconds,
                     curl.wallSeconds / ours.wallSeconds))
        print(String(format: "           xzmusic peak RSS %.1f MB (target < 50 MB)", Double(ours.peakRSSKiB) / 1024))

        let urls = (1...8).map { server.url("/big\($0).mp3") }
        let curl8 = try MeasuredRun.run(["curl", "-s", "--parallel", "--parallel-max", "8"]
            + urls.flatMap { ["-o", "/dev/null", $0] })
        let ours8 = try downloadRun(files: 8, server: server, label: "eight")
        print(String(format: "8 at once: xzmusic %.2f s = %.0f MB/s   curl %.2f s = %.0f MB/s   ratio %.2fx",
                     ours8.wallSeconds, 8 * megabytes / ours8.wallSeconds, curl8.wallSeconds,
                     8 * megabytes / curl8.wallSeconds, curl8.wallSeconds / ours8.wallSeconds))
        print(String(format: "           xzmusic peak RSS %.1f MB", Double(ours8.peakRSSKiB) / 1024))
    }

    /// A fresh library with `files` catalogue songs pointing at the server, downloaded with --wait.
    private func downloadRun(files: Int, server: TestHTTPServer, label: String) throws -> MeasuredRun {
        let library = folder.appendingPathComponent("library-\(label)")
        try? FileManager.default.removeItem(at: library)
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let feed = library.appendingPathComponent("feed.jsonl")
        let lines = (1...files).map { i in
            #"{"source_id":"bench\#(i)","title":"Bench \#(i)","singer":"Bench","audio_url":"\#(server.url("/big\(i).mp3"))","lyrics_url":"\#(server.url("/none.lrc"))"}"#
        }
        try lines.joined(separator: "\n").write(to: feed, atomically: true, encoding: .utf8)
        setenv("XZMUSIC_HOME", library.path, 1)
        setenv("XZMUSIC_DEMO", "", 1)
        _ = try MeasuredRun.run([xzmusic, "import", feed.path])
        let run = try MeasuredRun.run([xzmusic, "download", "bench", "--wait", "--concurrency", "\(files)", "--retries", "0"])
        try? FileManager.default.removeItem(at: library)
        return run
    }
}
