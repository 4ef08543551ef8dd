import Foundation
import XCTest
import XZTestSupport

/// Play sessions recorded by real playback, and the stats views, through the xzmusic executable.
final class StatsCommandTests: LibraryProcessTestCase {
    override var demoFolder: String { "" }

    override func setUpWithError() throws {
        temp = try TemporaryFolder("stats")
    }

    func testRenderedPlaysAreCountedByTheRule() throws {
        let long = try AudioFixtures.makeMP3(at: temp.path("long.mp3"), seconds: 40,
                                             tags: .init(title: "Long Tone", artist: "Tester"))
        let short = try AudioFixtures.makeMP3(at: temp.path("short.mp3"), seconds: 29,
                                              tags: .init(title: "Short Tone", artist: "Tester"))
        XCTAssertEqual(try xzmusic(["play", long, short, long, "--output", "raw:/dev/null"]).status, 0)
        let stats = try XCTUnwrap(json(try xzmusic(["stats", "--json"])) as? [String: Any])
        XCTAssertEqual(stats["plays"] as? Int, 2, "a 29 s track never counts")
        XCTAssertEqual(stats["listened_ms"] as? Int, 109_000)
        let top = try XCTUnwrap((stats["top_songs"] as? [[String: Any]])?.first)
        XCTAssertEqual(top["title"] as? String, "Long Tone")
        XCTAssertEqual(top["plays"] as? Int, 2)
        let history = try XCTUnwrap(json(try xzmusic(["history", "--json"])) as? [[String: Any]])
        XCTAssertEqual(history.count, 3)
        XCTAssertEqual(try xzmusic(["stats", "--since", "yesterday"]).status, 64)
    }

    func testLikesThroughTheCommands() throws {
        try xzmusic(["import", try writeFeed()])
        XCTAssertTrue(try xzmusic(["like", "晴天"]).stdout.contains("♥ liked 晴天"))
        XCTAssertTrue(try xzmusic(["like", "晴天"]).stdout.contains("already liked"))
        try xzmusic(["like", "七里香"])
        let liked = try XCTUnwrap(json(try xzmusic(["liked", "--json"])) as? [[String: Any]])
        XCTAssertEqual(Set(liked.compactMap { $0["title"] as? String }), ["晴天", "七里香"])
        try xzmusic(["unlike", "七里香"])
        XCTAssertEqual((try json(try xzmusic(["liked", "--json"])) as? [Any])?.count, 1)
        XCTAssertEqual(try xzmusic(["like"]).status, 1, "no song and nothing playing")
        // Re-importing the catalogue keeps the like.
        try xzmusic(["import", try writeFeed(renamed: true)])
        let after = try XCTUnwrap(json(try xzmusic(["liked", "--json"])) as? [[String: Any]])
        XCTAssertEqual(after.first?["title"] as? String, "晴天 (Live)")
    }

    func testKilledPlayerKeepsItsCountedPlayAndLastCheckpoint() throws {
        let tone = try AudioFixtures.makeMP3(at: temp.path("tone.mp3"), seconds: 32, tags: .init(title: "Tone", artist: "T"))
        // Real-time playback: the play counts at 16 s (half of 32 s); kill it without warning after 18 s of audio.
        let process = try startPlaying(tone, untilPositionMs: 18_000)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()

        let history = try XCTUnwrap(json(try xzmusic(["history", "--json"])) as? [[String: Any]])
        let session = try XCTUnwrap(history.first)
        XCTAssertEqual(session["counted"] as? Bool, true, "\(session)")
        XCTAssertGreaterThanOrEqual(session["played_ms"] as? Int ?? 0, 16_000)
        XCTAssertEqual((try json(try xzmusic(["stats", "--json"])) as? [String: Any])?["plays"] as? Int, 1)
    }

    func testTerminatedPlayerSavesItsSession() throws {
        let tone = try AudioFixtures.makeMP3(at: temp.path("tone.mp3"), seconds: 40, tags: .init(title: "Tone", artist: "T"))
        for (signal, status) in [(SIGTERM, Int32(143)), (SIGHUP, Int32(129))] {
            let process = try startPlaying(tone, untilPositionMs: 2000)
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, status)
            let session = try XCTUnwrap((try json(try xzmusic(["history", "--json"])) as? [[String: Any]])?.first)
            XCTAssertEqual(session["end_reason"] as? String, "stopped", "\(session)")
            XCTAssertGreaterThanOrEqual(session["played_ms"] as? Int ?? 0, 2000, "\(session)")
        }
    }

    /// Leaving the prompt while a song plays ends its session as "quit"; a stop typed just before still reads "stopped".
    func testQuittingThePromptNamesHowTheSessionEnded() throws {
        let tone = try AudioFixtures.makeMP3(at: temp.path("tone.mp3"), seconds: 40, tags: .init(title: "Tone", artist: "T"))
        for (commands, reason) in [("quit\n", "quit"), ("stop\nquit\n", "stopped")] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.environment = environment
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(Data("play \(tone)\n".utf8))
            var seen = ""
            while !seen.contains("▶ Tone") {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            input.fileHandleForWriting.write(Data(commands.utf8))
            try input.fileHandleForWriting.close()
            _ = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
            let session = try XCTUnwrap((try json(try xzmusic(["history", "--json"])) as? [[String: Any]])?.first)
            XCTAssertEqual(session["end_reason"] as? String, reason, "after \(commands.debugDescription): \(session)")
        }
    }

    private var openPipes: [Pipe] = []

    /// A child process playing `file` in real time to the null output, returned once it has reported `position`.
    /// Its output pipe stays open with the test, so the child never meets a closed pipe.
    private func startPlaying(_ file: String, untilPositionMs position: Int) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["play", file, "--output", "null", "--json"]
        process.environment = environment
        let out = Pipe()
        openPipes.append(out)
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("\"position_ms\":\(position)") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        return process
    }

    private func writeFeed(renamed: Bool = false) throws -> String {
        let path = temp.path("feed.jsonl")
        try [#"{"source_id":"1","title":"\#(renamed ? "晴天 (Live)" : "晴天")","singer":"周杰伦"}"#,
             #"{"source_id":"2","title":"七里香","singer":"周杰伦"}"#].joined(separator: "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
