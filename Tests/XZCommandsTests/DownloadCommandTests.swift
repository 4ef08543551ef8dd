import Foundation
import XCTest
import XZTestSupport

/// download/downloads through the xzmusic executable against a real server on 127.0.0.1.
final class DownloadCommandTests: XCTestCase {
    private var temp: TemporaryFolder!
    private var binary: String { TestPaths.products.appendingPathComponent("xzmusic").path }
    private var song: Data!
    private let lyrics = Data("[00:01.00]hello from the server\n".utf8)

    override func setUpWithError() throws {
        temp = try TemporaryFolder("download")
        let mp3 = try AudioFixtures.makeMP3(at: temp.path("source.mp3"), seconds: 6)
        song = try Data(contentsOf: URL(fileURLWithPath: mp3))
    }

    private var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XZMUSIC_HOME"] = temp.path("library")
        env["XZMUSIC_DEMO"] = ""
        env["XDG_CONFIG_HOME"] = temp.path("config")
        return env
    }

    @discardableResult
    private func xzmusic(_ arguments: [String]) throws -> ProcessResult {
        try TestProcess.run(binary, arguments, environment: environment)
    }

    private func importFeed(server: TestHTTPServer, title: String = "../../Escape \u{1B}[2J", size: Int? = nil) throws {
        var fields: [String: Any] = ["source_id": "net1", "title": title, "singer": "周杰伦", "album": "Net",
                                     "track": 7, "audio_url": server.url("/song.mp3"), "lyrics_url": server.url("/song.lrc")]
        if let size { fields["size"] = size }
        let line = String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
        try line.write(toFile: temp.path("feed.jsonl"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try xzmusic(["import", temp.path("feed.jsonl")]).status, 0)
    }

    func testDownloadWaitPlacesVerifiedFilesInsideTheLibrary() throws {
        let song = self.song!, lyrics = self.lyrics
        let server = try TestHTTPServer { request, _ in
            request.path == "/song.mp3" ? TestHTTPServer.file(song, request: request)
                : TestHTTPServer.file(lyrics, request: request)
        }
        try importFeed(server: server)
        let result = try xzmusic(["download", "周杰伦", "--wait", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let events = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(events.filter { $0["event"] as? String == "finished" }.count, 2, result.stdout)

        let search = try XCTUnwrap(JSONSerialization.jsonObject(with: try xzmusic(["search", "周杰伦", "--json"]).stdoutData)
            as? [String: Any])
        XCTAssertEqual(((search["songs"] as? [[String: Any]])?.first)?["local"] as? Bool, true)
        let info = try xzmusic(["info", "#1", "--json"])
        let fields = try XCTUnwrap(JSONSerialization.jsonObject(with: info.stdoutData) as? [String: Any])
        let path = try XCTUnwrap(fields["local_path"] as? String)
        XCTAssertTrue(path.hasPrefix(temp.path("library") + "/songs/"), path)
        XCTAssertFalse(path.contains("/../"))
        XCTAssertFalse(path.unicodeScalars.contains { $0.value < 0x20 })
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), song)
        XCTAssertEqual(try xzmusic(["lyrics", "#1"]).stdout, "[00:01.000] hello from the server\n")

        let list = try XCTUnwrap(JSONSerialization.jsonObject(with: try xzmusic(["downloads", "--json"]).stdoutData) as? [[String: Any]])
        XCTAssertEqual(Set(list.compactMap { $0["state"] as? String }), ["done"])
        XCTAssertEqual(try xzmusic(["download", "周杰伦", "--wait"]).stdout.contains("queued 0"), true, "already offline")
    }

    func testFailuresExitOneAndLeaveNothingInTheLibrary() throws {
        let song = self.song!
        let server = try TestHTTPServer { request, _ in
            request.path == "/song.mp3" ? TestHTTPServer.file(song, request: request) : .text(404, "no")
        }
        try importFeed(server: server, size: song.count + 1)
        let result = try xzmusic(["download", "周杰伦", "--wait", "--retries", "0"])
        XCTAssertEqual(result.status, 1)
        let songs = temp.url.appendingPathComponent("library/songs")
        let placed = (FileManager.default.enumerator(atPath: songs.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".mp3") }
        XCTAssertEqual(placed, [], "a size mismatch never reaches the library")
        XCTAssertEqual(try xzmusic(["download"]).status, 64)
        XCTAssertEqual(try xzmusic(["download", "pause", "x"]).status, 64)
        XCTAssertEqual(try xzmusic(["download", "x", "--concurrency", "0"]).status, 64)
    }

    func testExitStatusCountsOnlyThisRun() throws {
        let song = self.song!, lyrics = self.lyrics
        let server = try TestHTTPServer { request, _ in
            switch request.path {
            case "/good.mp3": return TestHTTPServer.file(song, request: request)
            case "/good.lrc": return TestHTTPServer.file(lyrics, request: request)
            default: return .text(404, "no")
            }
        }
        let feed = [("bad", "/missing.mp3"), ("good", "/good.mp3")].map { id, path in
            #"{"source_id":"\#(id)","title":"\#(id)","singer":"S","audio_url":"\#(server.url(path))","lyrics_url":"\#(server.url("/good.lrc"))"}"#
        }
        try feed.joined(separator: "\n").write(toFile: temp.path("feed.jsonl"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try xzmusic(["import", temp.path("feed.jsonl")]).status, 0)
        XCTAssertEqual(try xzmusic(["download", "#1", "--wait", "--retries", "0"]).status, 1)
        let good = try xzmusic(["download", "#2", "--wait"])
        XCTAssertEqual(good.status, 0, "the failure of an earlier run is not this run's: \(good.stdout)\(good.stderr)")
        XCTAssertTrue(good.stdout.contains("✓ audio: good — S"), good.stdout)
        let unknown = try xzmusic(["download", "pause", "99"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("no download 99"), unknown.stderr)
    }

    func testKilledDownloadResumesWithRange() throws {
        // A real MP3 body passes verification: the tone file repeated to about 3 MB.
        var body = song!
        while body.count < 3_000_000 { body += song! }
        let payload = body, lyrics = self.lyrics
        let server = try TestHTTPServer { request, _ in
            guard request.path == "/song.mp3" else { return TestHTTPServer.file(lyrics, request: request) }
            var response = TestHTTPServer.file(payload, request: request)
            if request["range"] == nil {
                response.chunk = 32 * 1024
                response.delay = 0.02
            }
            return response
        }
        try importFeed(server: server)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["download", "周杰伦", "--wait"]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date(timeIntervalSinceNow: 30)
        while server.bytesSent(path: "/song.mp3") < 600_000 && Date() < deadline { usleep(10_000) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let listed = try XCTUnwrap(JSONSerialization.jsonObject(with: try xzmusic(["downloads", "--json"]).stdoutData) as? [[String: Any]])
        XCTAssertFalse(listed.contains { $0["state"] as? String == "running" }, "no process runs it any more: \(listed)")

        let resumed = try xzmusic(["download", "resume", "all", "--wait"])
        XCTAssertEqual(resumed.status, 0, resumed.stdout + resumed.stderr)
        let ranges = server.requests(path: "/song.mp3").compactMap { $0["range"] }
        XCTAssertEqual(ranges.count, 1, "the second run asked only for the rest")
        XCTAssertTrue(ranges.first?.hasPrefix("bytes=") == true)
        let info = try XCTUnwrap(JSONSerialization.jsonObject(with: try xzmusic(["info", "#1", "--json"]).stdoutData) as? [String: Any])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(info["local_path"] as? String))), payload)
        XCTAssertLessThan(server.bytesSent(path: "/song.mp3") - payload.count, 1_000_000, "bytes fetched twice stay under 1 MB")
    }

    /// A prompt that hosts streams a song through the download it starts; the prompt's download commands, and
    /// another program's, leave that download to it: one request for the song, and the kept copy whole.
    func testTheSongAPromptStreamsHasOneWriter() throws {
        var body = song!
        while body.count < 600_000 { body += song! }
        let payload = body
        let server = try TestHTTPServer { request, _ in
            guard request.path == "/song.mp3" else { return .text(404, "no") }
            var response = TestHTTPServer.file(payload, request: request)
            response.chunk = 16 * 1024
            response.delay = 0.05
            return response
        }
        try importFeed(server: server, title: "Streamed Tune")
        var environment = self.environment
        environment["XZMUSIC_OUTPUT"] = "null"
        let prompt = Process()
        prompt.executableURL = URL(fileURLWithPath: binary)
        prompt.environment = environment
        let input = Pipe(), output = Pipe()
        prompt.standardInput = input
        prompt.standardOutput = output
        prompt.standardError = output
        try prompt.run()
        input.fileHandleForWriting.write(Data("play Streamed Tune\n".utf8))
        XCTAssertTrue(eventually(timeout: 30) { server.bytesSent(path: "/song.mp3") > 0 }, "the song streams")

        input.fileHandleForWriting.write(Data("downloads\ndownload resume all\ndownloads\n".utf8))
        // Another program sees the task as the prompt's: running, not to be taken over.
        let listed = try TestProcess.run(binary, ["downloads", "--json"], environment: environment)
        let states = try XCTUnwrap(JSONSerialization.jsonObject(with: listed.stdoutData) as? [[String: Any]]).compactMap { $0["state"] as? String }
        let other = try TestProcess.run(binary, ["download", "resume", "all", "--wait"], environment: environment)
        XCTAssertEqual(other.status, 0, other.stdout + other.stderr)
        let songs = temp.url.appendingPathComponent("library/songs")
        XCTAssertTrue(eventually(timeout: 60) {
            (FileManager.default.enumerator(atPath: songs.path)?.allObjects as? [String] ?? []).contains { $0.hasSuffix(".mp3") }
        }, "the streamed song is kept")
        input.fileHandleForWriting.write(Data("quit\n".utf8))
        try input.fileHandleForWriting.close()
        let seen = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        prompt.waitUntilExit()
        XCTAssertEqual(server.requests(path: "/song.mp3").count, 1, "one writer: \(seen)")
        XCTAssertFalse(seen.contains(" queued "), "the prompt lists the song it streams as running: \(seen)")
        XCTAssertTrue(states == ["running"] || states == ["done"], "\(states)")
        let info = try XCTUnwrap(JSONSerialization.jsonObject(with: try xzmusic(["info", "#1", "--json"]).stdoutData) as? [String: Any])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(info["local_path"] as? String))), payload, seen)
    }
}
