import Foundation
import XZAudio
import XZCatalogue
import XZDownloader
import XZPlaybackEngine
import XZPlaybackValues
import XZTestSupport

/// Online play on a throttled loopback server (1 MB/s): time from `play` to the first sample against the
/// mpg123 command line streaming the same URL and against "download, then play", in the same run; the time
/// to resume after a seek to 90 %; and bytes fetched per byte of file.
struct OnlineBenchmark {
    let folder: URL
    let mp3: String

    func run() throws {
        let body = try Data(contentsOf: URL(fileURLWithPath: mp3))
        let server = try TestHTTPServer { request, _ in
            var response = TestHTTPServer.file(body, request: request)
            // 1 MB/s: 16 KiB every 16 ms.
            response.chunk = 16 * 1024
            response.delay = 0.016
            return response
        }
        defer { server.stop() }
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        print(String(format: "file: %.1f MB, served at 1 MB/s from %@\n", Double(body.count) / 1e6, server.base))

        // Best of 7, the two taking turns, so a burst of load from elsewhere on the machine falls on both alike.
        var mpg123 = Double.infinity
        var streamed = Double.infinity
        for _ in 0..<7 {
            mpg123 = min(mpg123, try mpg123FirstSample(server.url("/mpg123-\(UUID().uuidString).mp3")))
            streamed = min(streamed, try online(server: server, size: body.count, seek: false, whole: false).firstSample)
        }
        let downloadThenPlay = try downloadThenPlay(server: server)
        print(String(format: "first sample: xzmusic streaming %.1f ms   mpg123 %.1f ms   download-then-play %.0f ms",
                     streamed * 1000, mpg123 * 1000, downloadThenPlay * 1000))
        print(String(format: "              ratio to mpg123 %.2fx (goal <= 1.5x, and < 300 ms)   %.1fx sooner than download-then-play",
                     streamed / mpg123, downloadThenPlay / streamed))

        let seeking = try online(server: server, size: body.count, seek: true)
        print(String(format: "seek to 90 %%: resumed after %.0f ms (goal < 1000 ms)", (seeking.seekResume ?? .nan) * 1000))
        print(String(format: "bytes fetched per byte of file: %.4f without a seek, %.4f with one (goal <= 1.01)",
                     seeking.plainRatio, seeking.bytesRatio))
    }

    private struct Result {
        var firstSample: Double
        var seekResume: Double?
        var bytesRatio: Double
        var plainRatio: Double
    }

    /// mpg123 streams the URL itself: time until its first decoded byte on stdout.
    private func mpg123FirstSample(_ url: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try TestProcess.which("mpg123"))
        process.arguments = ["-q", "-s", url]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        let start = Date()
        try process.run()
        let first = out.fileHandleForReading.availableData
        let elapsed = Date().timeIntervalSince(start)
        // mpg123 ends on SIGTERM only between writes: closing the pipe ends a write it is blocked in.
        process.terminate()
        try? out.fileHandleForReading.close()
        process.waitUntilExit()
        guard !first.isEmpty else { throw benchFailure("mpg123 gave no audio for \(url)") }
        return elapsed
    }

    /// A fresh library with one catalogue song at `path` on the server.
    private func library(_ server: TestHTTPServer, path: String) throws -> (LibraryDatabase, LibraryFolder, Song) {
        let root = folder.appendingPathComponent("library-\(UUID().uuidString)")
        let library = LibraryFolder(url: root)
        let database = try library.open(seedingDemoFrom: nil)
        let feed = folder.appendingPathComponent("feed-\(UUID().uuidString).jsonl")
        try #"{"source_id":"online","title":"Online","singer":"Bench","audio_url":"\#(server.url(path))"}"#
            .write(to: feed, atomically: true, encoding: .utf8)
        _ = try database.importFeed(at: feed)
        guard let song = try database.song(audioURL: server.url(path)) else { throw benchFailure("the feed song is missing") }
        return (database, library, song)
    }

    /// Streams the catalogue song through the downloader into the null output (paced as a sound card).
    /// `whole` lets the download finish after the player stops; else it stops with the player.
    private func online(server: TestHTTPServer, size: Int, seek: Bool, whole: Bool = true) throws -> Result {
        let path = "/online-\(UUID().uuidString).mp3"
        let (database, library, song) = try self.library(server, path: path)
        let manager = DownloadManager(database: database, library: library)
        let events = EventTimes()
        // The first sample is the first one written to the output, as mpg123's is its first write to the pipe.
        let output = FirstWriteOutput(forwardingTo: LibaoOutput(.null))
        let bench = try BenchHost(output: output, library: (library, database), streams: { _ in try manager.openStream(song: song) },
                                  events: { events.note($0) })
        let player = bench.host
        let start = DispatchTime.now().uptimeNanoseconds
        player.play([QueueItem(songId: song.id, songKey: song.songKey, path: song.audioURL, title: song.title)])
        guard let first = output.waitForFirstWrite(timeout: 30) else { throw benchFailure("the stream never started") }
        var seekResume: Double?
        if seek {
            let asked = Date()
            player.requestSeek(.percent(90))
            guard let resumed = events.wait(for: "buffered", timeout: 30) else { throw benchFailure("no resume after the seek") }
            seekResume = resumed.timeIntervalSince(asked)
        }
        player.stop()
        bench.shutdown()
        if whole { try blockingWait { await manager.waitUntilIdle() } }
        try blockingWait { await manager.shutdown() }
        let fetched = Double(server.bytesSent(path: path)) / Double(size)
        return Result(firstSample: Double(first - start) / 1e9, seekResume: seekResume,
                      bytesRatio: fetched, plainRatio: seek ? try plainRatio(server: server, size: size) : fetched)
    }

    /// Bytes fetched for a whole song streamed without a seek (the download finishes after the player stops).
    private func plainRatio(server: TestHTTPServer, size: Int) throws -> Double {
        try online(server: server, size: size, seek: false).bytesRatio
    }

    /// Today's way: download the whole song, then decode its first sample.
    private func downloadThenPlay(server: TestHTTPServer) throws -> Double {
        let path = "/whole-\(UUID().uuidString).mp3"
        let (database, library, song) = try self.library(server, path: path)
        let manager = DownloadManager(database: database, library: library)
        let start = Date()
        try blockingWait {
            _ = try await manager.enqueue(songs: [song])
            await manager.run()
        }
        // The audio, not the lyrics task queued with it (its server is not this one).
        var local = ""
        while local.isEmpty, Date().timeIntervalSince(start) < 120 {
            local = try database.song(id: song.id)?.localPath ?? ""
            if local.isEmpty { usleep(2000) }
        }
        guard !local.isEmpty else { throw benchFailure("download failed") }
        let decoder = try AudioDecoders.open(path: local)
        var buffer = [UInt8](repeating: 0, count: 4608)
        _ = try buffer.withUnsafeMutableBytes { try decoder.read(into: $0) }
        let elapsed = Date().timeIntervalSince(start)
        try blockingWait { await manager.shutdown() }
        return elapsed
    }
}

/// When each kind of player event first came.
private final class EventTimes: @unchecked Sendable {
    private let condition = NSCondition()
    private var times: [String: Date] = [:]

    func note(_ event: PlayerEvent) {
        let name: String
        switch event {
        case .buffered: name = "buffered"
        default: return
        }
        condition.withLock {
            if times[name] == nil { times[name] = Date() }
            condition.broadcast()
        }
    }

    func wait(for name: String, timeout: Double) -> Date? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return condition.withLock {
            while times[name] == nil, condition.wait(until: deadline) {}
            return times[name]
        }
    }
}

/// Runs async work from this synchronous program.
private func blockingWait(_ body: @escaping @Sendable () async throws -> Void) throws {
    final class Box: @unchecked Sendable { var error: Error? }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { try await body() } catch { box.error = error }
        done.signal()
    }
    done.wait()
    if let error = box.error { throw error }
}
