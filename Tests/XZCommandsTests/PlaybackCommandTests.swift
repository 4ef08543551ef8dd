import Foundation
import XCTest
import XZTestSupport

/// play, queue, now and lyrics through the xzmusic executable on the demo library.
final class PlaybackCommandTests: XCTestCase {
    private var temp: TemporaryFolder!
    private var binary: String { TestPaths.products.appendingPathComponent("xzmusic").path }

    override func setUpWithError() throws {
        temp = try TemporaryFolder("play")
    }

    private func environment(output: String = "null") -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XZMUSIC_HOME"] = temp.path("library")
        env["XZMUSIC_DEMO"] = TestPaths.repositoryRoot.appendingPathComponent("Resources/demo").path
        env["XZMUSIC_OUTPUT"] = output
        env["NO_COLOR"] = "1"
        return env
    }

    @discardableResult
    private func xzmusic(_ arguments: [String], input: String? = nil, output: String = "null") throws -> ProcessResult {
        try TestProcess.run(binary, arguments, input: input.map { Data($0.utf8) }, environment: environment(output: output))
    }

    private func demoSong(_ file: String) -> String {
        temp.path("library/demo/songs/\(file)")
    }

    private func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func testOneShotPlayRendersExactlyWhatMpg123Decodes() throws {
        let raw = temp.path("out.raw")
        let result = try xzmusic(["play", "晴天小调", "#4", "--output", "raw:\(raw)", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected = try TestProcess.run("mpg123", ["-q", "-s", demoSong("01-qingtian-xiaodiao.mp3")]).stdoutData
            + TestProcess.run("mpg123", ["-q", "-s", demoSong("04-cafe-du-matin.mp3")]).stdoutData
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: raw)), expected, "gapless: the two decodes back to back")

        let events = try jsonLines(result.stdout)
        let kinds = events.compactMap { $0["event"] as? String }
        XCTAssertEqual(kinds.filter { $0 == "started" }.count, 2)
        XCTAssertEqual(events.filter { $0["event"] as? String == "ended" }.compactMap { $0["reason"] as? String },
                       ["completed", "completed"])
        let started = try XCTUnwrap(events.first)
        XCTAssertEqual(started["event"] as? String, "started")
        XCTAssertEqual(started["title"] as? String, "晴天小调")
        XCTAssertNotNil(started["song"] as? Int)
        XCTAssertEqual(started["duration_ms"] as? Int, 50_155)
        let positions = events.filter { $0["event"] as? String == "position" }.compactMap { $0["position_ms"] as? Int }
        XCTAssertEqual(Array(positions.prefix(3)), [250, 500, 750])
        // Lyric events fire at the line's own time, in sample positions, in file order.
        let lyrics = events.filter { $0["event"] as? String == "lyric" }
        XCTAssertGreaterThanOrEqual(lyrics.count, 5)
        for lyric in lyrics {
            XCTAssertEqual(lyric["position_ms"] as? Int, lyric["time_ms"] as? Int, "\(lyric)")
        }
        XCTAssertEqual(lyrics.first?["text"] as? String, "早晨推开一扇窗")
    }

    /// Every demo song is over 30 s, so a new user who plays the whole demo sees six plays in stats.
    func testPlayingTheWholeDemoCountsEverySong() throws {
        let titles = ["晴天小调", "夜風のワルツ", "바다 산책", "Café du Matin", "舊城雨巷", "Lantern Parade"]
        let result = try xzmusic(["play"] + titles + ["--output", "raw:/dev/null"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let stats = try XCTUnwrap(JSONSerialization.jsonObject(with: try xzmusic(["stats", "--json"]).stdoutData) as? [String: Any])
        XCTAssertEqual(stats["plays"] as? Int, 6, "\(stats)")
        XCTAssertEqual(stats["songs"] as? Int, 6)
        XCTAssertTrue(try xzmusic(["stats"]).stdout.contains("6 plays"))
    }

    func testBrokenTrackIsReportedAndTheQueueGoesOn() throws {
        let bad = temp.path("broken.mp3")
        try Data("this is not audio".utf8).write(to: URL(fileURLWithPath: bad))
        try xzmusic(["search", "demo"])
        let raw = temp.path("out.raw")
        let missing = temp.path("missing.mp3")
        let result = try xzmusic(["play", bad, missing, "#2", "--output", "raw:\(raw)", "--json"])
        XCTAssertEqual(result.status, 1, "a failed track makes play exit 1")
        let events = try jsonLines(result.stdout)
        let errors = events.filter { $0["event"] as? String == "error" }
        XCTAssertEqual(errors.compactMap { $0["file"] as? String }, [bad, missing])
        XCTAssertFalse((errors.first?["message"] as? String ?? "").isEmpty)
        XCTAssertTrue((errors.last?["message"] as? String ?? "").contains("No such file"), "\(errors)")
        XCTAssertTrue(events.contains { $0["event"] as? String == "ended" && $0["reason"] as? String == "completed" })
        let expected = try TestProcess.run("mpg123", ["-q", "-s", demoSong("02-yokaze-no-waltz.mp3")]).stdoutData
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: raw)), expected)
    }

    /// One-shot play of a catalogue song that is not offline streams it from its URL, renders exactly what
    /// mpg123 decodes of the file, and leaves the song offline.
    func testOneShotPlayStreamsACatalogueSongAndKeepsIt() throws {
        let song = temp.path("served.mp3")
        try AudioFixtures.makeMP3(at: song, seconds: 3, frequency: 620)
        let body = try Data(contentsOf: URL(fileURLWithPath: song))
        let server = try TestHTTPServer { request, _ in
            if request.path.hasPrefix("/api/") { return .json(404, ["name": "TrackNotFound"]) }
            var response = TestHTTPServer.file(body, request: request)
            response.chunk = 8192
            response.delay = 0.005
            return response
        }
        defer { server.stop() }
        let feed = temp.path("online.jsonl")
        try #"{"source_id": "online-1", "title": "Streamed Tune", "singer": "Online", "audio_url": "\#(server.url("/tune.mp3"))"}"#
            .write(toFile: feed, atomically: true, encoding: .utf8)
        XCTAssertEqual(try xzmusic(["import", feed]).status, 0)
        let raw = temp.path("streamed.raw")
        let result = try xzmusic(["play", "Streamed Tune", "--output", "raw:\(raw)"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: raw)), try TestProcess.run("mpg123", ["-q", "-s", song]).stdoutData)
        let kept = try xzmusic(["search", "Streamed Tune"])
        XCTAssertTrue(kept.stdout.contains("✓"), "offline now: \(kept.stdout)")
        XCTAssertEqual(server.requests(path: "/tune.mp3").count, 1)
    }

    /// A playlist's URL plays the streams its lines name (relative ones against its address); one that
    /// cannot be read is one line and exit 1.
    func testOneShotPlayOfAPlaylistURLPlaysItsSongs() throws {
        let song = temp.path("served.mp3")
        try AudioFixtures.makeMP3(at: song, seconds: 1, frequency: 620)
        let body = try Data(contentsOf: URL(fileURLWithPath: song))
        let server = try TestHTTPServer { request, _ in
            switch request.path {
            case "/lists/radio.pls": return .text(200, "[playlist]\nFile1=../tune.mp3\nFile2=/etc/passwd\n", type: "audio/x-scpls")
            case "/tune.mp3": return TestHTTPServer.file(body, request: request)
            default: return .text(404, "no")
            }
        }
        defer { server.stop() }
        let raw = temp.path("list.raw")
        let result = try xzmusic(["play", server.url("/lists/radio.pls"), "--output", "raw:\(raw)"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: raw)), try TestProcess.run("mpg123", ["-q", "-s", song]).stdoutData)
        let missing = try xzmusic(["play", server.url("/lists/gone.m3u"), "--output", "raw:\(raw)"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr.split(separator: "\n").count, 1, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("gone.m3u") && missing.stderr.contains("HTTP 404"), missing.stderr)
    }

    func testPlayUsageErrors() throws {
        XCTAssertEqual(try xzmusic(["play"]).status, 64)
        XCTAssertEqual(try xzmusic(["play", "#1", "--output", "speakers"]).status, 64)
        XCTAssertEqual(try xzmusic(["play", "no-such-song-anywhere"]).status, 1)
        // A demo entry whose host is made up has no audio: one line says so and names the playable songs,
        // and nothing is fetched from the made-up host.
        let online = try xzmusic(["play", "七里香"])
        XCTAssertEqual(online.status, 1)
        let lines = (online.stdout + online.stderr).split(separator: "\n")
        XCTAssertEqual(lines.count, 1, online.stdout + online.stderr)
        XCTAssertTrue(lines.first?.contains("demo entry with no audio") == true, online.stderr)
        XCTAssertTrue(lines.first?.contains("search xzmusic demo") == true, online.stderr)
        XCTAssertFalse(lines.first?.contains("example.invalid") == true, online.stderr)
        XCTAssertEqual(try xzmusic(["next"]).status, 1, "player commands need the prompt")
    }

    func testReplPlaysInTheBackgroundAndKeepsTheLyricOffset() throws {
        let script = """
            search xzmusic demo
            play 晴天小调
            add #2
            queue
            now
            seek 50%
            volume 40
            repeat all
            lyrics offset +200
            lyrics offset
            pause
            bogus
            quit
            """
        let result = try xzmusic([], input: script)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("▶   1  晴天小调 — 林晓舟"), result.stdout)
        XCTAssertTrue(result.stdout.contains("    2  夜風のワルツ — 星野みなと"), result.stdout)
        XCTAssertTrue(result.stdout.contains("晴天小调 — 林晓舟\nplaying"), result.stdout)
        XCTAssertTrue(result.stdout.contains("volume 40"))
        XCTAssertTrue(result.stdout.contains("repeat all"))
        XCTAssertTrue(result.stdout.contains("lyrics offset for 晴天小调: +200 ms (sooner)"))
        XCTAssertTrue(result.stdout.contains("paused"))
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)

        // The offset is kept for the song in the library.
        let again = try xzmusic([], input: "play 晴天小调\nlyrics offset\nquit\n")
        XCTAssertTrue(again.stdout.contains("lyrics offset for 晴天小调: +200 ms"), again.stdout)
    }

    func testNegativeValuesAtThePrompt() throws {
        let result = try xzmusic([], input: "play 晴天小调\nseek -5\nlyrics offset -150\nlyrics offset\n"
            + "volume 60\nvolume +10\nvolume -100\nvolume 150\nquit\n")
        XCTAssertTrue(result.stdout.contains("lyrics offset for 晴天小调: -150 ms"), result.stdout)
        XCTAssertTrue(result.stdout.contains("volume 60\nvolume 70\nvolume 0\n"), result.stdout)
        let errors = result.stderr.split(separator: "\n")
        XCTAssertEqual(errors.count, 1, result.stderr)
        XCTAssertTrue(errors.first?.contains("volume must be between 0 and 100") == true, result.stderr)
    }

    func testTransportCommandsWithoutAQueueSaySo() throws {
        let result = try xzmusic([], input: "pause\nnext\nprev\nstop\nplay 晴天小调\nqueue clear\npause\nquit\n")
        let errors = result.stderr.split(separator: "\n")
        XCTAssertEqual(errors.count, 5, result.stderr)
        XCTAssertTrue(errors.allSatisfy { $0.contains("the queue is empty") }, result.stderr)
        XCTAssertFalse(result.stdout.contains("playing\n"), result.stdout)
    }

    func testPipedPromptPlaysWhileItWaitsForTheNextLine() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.environment = environment()
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data("lyrics on\nplay 晴天小调\n".utf8))
        // The prompt now blocks reading stdin; the track must start and advance all the same.
        var seen = ""
        let deadline = Date(timeIntervalSinceNow: 20)
        while !seen.contains("♪ 早晨推开一扇窗"), Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        input.fileHandleForWriting.write(Data("now\nquit\n".utf8))
        try input.fileHandleForWriting.close()
        seen += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertTrue(seen.contains("▶ 晴天小调 — 林晓舟"), seen)
        XCTAssertTrue(seen.contains("♪ 早晨推开一扇窗"), "the first lyric line (2.2 s) came while stdin was idle: \(seen)")
        XCTAssertNotNil(seen.range(of: "playing  0:0[2-9]", options: .regularExpression), "it went on playing: \(seen)")
    }

    func testLyricsCommandOnFilesAndSongs() throws {
        let lrc = temp.path("a.lrc")
        try "[ar:Tester]\n[offset:+100]\n[00:01.00][00:03.00]twice\n[00:02.00]<00:02.00>word <00:02.50>timed\n"
            .write(toFile: lrc, atomically: true, encoding: .utf8)
        let json = try xzmusic(["lyrics", lrc, "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        XCTAssertEqual((object["tags"] as? [String: String])?["ar"], "Tester")
        let lines = try XCTUnwrap(object["lines"] as? [[String: Any]])
        XCTAssertEqual(lines.compactMap { $0["time_ms"] as? Int }, [900, 1900, 2900])
        XCTAssertEqual(lines.compactMap { $0["text"] as? String }, ["twice", "word timed", "twice"])
        XCTAssertNil(lines[0]["words"])
        XCTAssertEqual((lines[1]["words"] as? [[String: Any]])?.compactMap { $0["time_ms"] as? Int }, [1900, 2400])

        let text = try xzmusic(["lyrics", lrc])
        XCTAssertEqual(text.stdout, "[00:00.900] twice\n[00:01.900] word timed\n[00:02.900] twice\n")

        let song = try xzmusic(["lyrics", "夜風のワルツ"])
        XCTAssertEqual(song.status, 0, song.stderr)
        XCTAssertTrue(song.stdout.contains("夜風が窓を"))
        XCTAssertEqual(try xzmusic(["lyrics", "七里香"]).status, 1, "no lyrics for a catalogue-only song")
    }

    /// Output far past one write's worth comes out whole and parses, text needing escapes included.
    func testLargeLyricsJSONIsCompleteAndValid() throws {
        let texts = ["晴天的风 \"quoted\"", #"back\slash"#, "tab\there", "Café du Matin", "ラララ ララ"]
        var lrc = "[ti:Big]\n"
        for index in 0..<30_000 {
            let ms = index * 10
            lrc += String(format: "[%02d:%02d.%02d]", ms / 60_000, ms / 1000 % 60, ms % 1000 / 10) + texts[index % texts.count] + " \(index)\n"
        }
        let path = temp.path("big.lrc")
        try lrc.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try xzmusic(["lyrics", path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertGreaterThan(result.stdoutData.count, 1 << 20)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        let lines = try XCTUnwrap(object["lines"] as? [[String: Any]])
        XCTAssertEqual(lines.count, 30_000)
        for (index, line) in lines.enumerated() {
            XCTAssertEqual(line["time_ms"] as? Int, index * 10)
            XCTAssertEqual(line["text"] as? String, texts[index % texts.count] + " \(index)")
        }
        XCTAssertEqual((object["tags"] as? [String: String])?["ti"], "Big")
    }
}
