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
            if request.path.hasSuffix(".lrc") { return .text(200, "[00:01.00]bench\n") }
            var response = TestHTTPServer.file(payload, request: request)
            response.chunk = 1 << 20
            return response
        }
        defer { server.stop() }
        let megabytes = Double(payload.count) / 1e6
        print(String(format: "file: %.0f MB served from %@\n", megabytes, server.base))

        // curl writes to the same disk as xzmusic, not to /dev/null: both pay for the page cache.
        // Dirty pages are flushed before every run so that no run pays for the last one's writeback,
        // and each tool's best of three single-file runs is taken.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let curlFile = { (i: Int) in self.folder.appendingPathComponent("curl-\(i).mp3").path }
        func removeCurlFiles() { for i in 0...8 { try? FileManager.default.removeItem(atPath: curlFile(i)) } }
        defer { removeCurlFiles() }
        var curlRuns: [MeasuredRun] = [], ourRuns: [MeasuredRun] = []
        for _ in 0..<3 {
            _ = try MeasuredRun.run(["sync"])
            curlRuns.append(try MeasuredRun.run(["curl", "-s", "-o", curlFile(0), server.url("/big0.mp3")]))
            removeCurlFiles()
            _ = try MeasuredRun.run(["sync"])
            ourRuns.append(try downloadRun(files: 1, server: server, label: "one"))
        }
        let curl = curlRuns.min { $0.wallSeconds < $1.wallSeconds } ?? curlRuns[0]
        let ours = ourRuns.min { $0.wallSeconds < $1.wallSeconds } ?? ourRuns[0]
        print(String(format: "one file:  xzmusic %.2f s = %.0f MB/s   curl %.2f s = %.0f MB/s   ratio %.2fx (target >= 0.9x)",
                     ours.wallSeconds, megabytes / ours.wallSeconds, curl.wallSeconds, megabytes / curl.wallSeconds,
                     curl.wallSeconds / ours.wallSeconds))
        print(String(format: "           CPU s: xzmusic %.2f   curl %.2f", ours.cpuSeconds, curl.cpuSeconds))
        print(String(format: "           xzmusic peak RSS %.1f MB (target < 50 MB)",
                     Double(ourRuns.map(\.peakRSSKiB).max() ?? 0) / 1024))

        let urls = (1...8).map { server.url("/big\($0).mp3") }
        _ = try MeasuredRun.run(["sync"])
        let curl8 = try MeasuredRun.run(["curl", "-s", "--parallel", "--parallel-max", "8"]
            + urls.enumerated().flatMap { ["-o", curlFile($0.offset + 1), $0.element] })
        removeCurlFiles()
        _ = try MeasuredRun.run(["sync"])
        let ours8 = try downloadRun(files: 8, server: server, label: "eight")
        print(String(format: "8 at once: xzmusic %.2f s = %.0f MB/s   curl %.2f s = %.0f MB/s   ratio %.2fx",
                     ours8.wallSeconds, 8 * megabytes / ours8.wallSeconds, curl8.wallSeconds,
                     8 * megabytes / curl8.wallSeconds, curl8.wallSeconds / ours8.wallSeconds))
        print(String(format: "           CPU s: xzmusic %.2f   curl %.2f", ours8.cpuSeconds, curl8.cpuSeconds))
        print(String(format: "           xzmusic peak RSS %.1f MB", Double(ours8.peakRSSKiB) / 1024))
    }

    /// A fresh library with `files` catalogue songs pointing at the server, downloaded with --wait.
    private func downloadRun(files: Int, server: TestHTTPServer, label: String) throws -> MeasuredRun {
        let library = folder.appendingPathComponent("library-\(label)")
        try? FileManager.default.removeItem(at: library)
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let feed = library.appendingPathComponent("feed.jsonl")
        let lines = (1...files).map { i in
            #"{"source_id":"bench\#(i)","title":"Bench \#(i)","singer":"Bench","audio_url":"\#(server.url("/big\(i).mp3"))","lyrics_url":"\#(server.url("/bench.lrc"))"}"#
        }
        try lines.joined(separator: "\n").write(to: feed, atomically: true, encoding: .utf8)
        setenv("XZMUSIC_HOME", library.path, 1)
        setenv("XZMUSIC_DEMO", "", 1)
        _ = try MeasuredRun.run([xzmusic, "import", feed.path])
        let log = folder.appendingPathComponent("download-\(label).log").path
        // A fresh library without the demo: the feed's songs are #1 to #files.
        let songs = (1...files).map { "#\($0)" }
        let run = try MeasuredRun.run([xzmusic, "download"] + songs + ["--wait", "--concurrency", "\(files)", "--retries", "0"],
                                      stdoutPath: log)
        // A figure is only worth printing for a download that finished and passed verification.
        guard run.status == 0 else {
            throw NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey:
                "xzmusic download exited with status \(run.status); its output is in \(log)"])
        }
        try? FileManager.default.removeItem(at: library)
        return run
    }
}
