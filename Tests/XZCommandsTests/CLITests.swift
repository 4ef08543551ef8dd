import Foundation
import XCTest
import XZTestSupport

/// The xzmusic executable run as a process on a temporary library.
final class CLITests: XCTestCase {
    private var temp: TemporaryFolder!
    private var binary: String { TestPaths.products.appendingPathComponent("xzmusic").path }

    override func setUpWithError() throws {
        temp = try TemporaryFolder("cli")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary), "build the xzmusic product first")
    }

    private var seedDemo = false

    private var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XZMUSIC_HOME"] = temp.path("library")
        env["XZMUSIC_DEMO"] = seedDemo ? TestPaths.repositoryRoot.appendingPathComponent("Resources/demo").path : ""
        env["NO_COLOR"] = "1"
        return env
    }

    @discardableResult
    private func xzmusic(_ arguments: String..., input: String? = nil) throws -> ProcessResult {
        try TestProcess.run(binary, arguments, input: input.map { Data($0.utf8) }, environment: environment)
    }

    private func writeFeed(_ lines: [String]) throws -> String {
        let path = temp.path("feed.jsonl")
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private let feed = [
        #"{"source_id":"t1","title":"晴天","singer":"周杰伦","album":"叶惠美","duration_ms":269000}"#,
        #"{"source_id":"t2","title":"Jóga","singer":"Björk"}"#,
        #"{"source_id":"t3","title":"Evil \u001b[2J\u001b]0;pwned\u0007Title","singer":"Hacker\u009b"}"#,
    ]

    func testFirstRunSeedsTheDemoLibrary() throws {
        seedDemo = true
        let result = try xzmusic("search", "xzmusic demo", "--json", "--limit", "50")
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        let songs = try XCTUnwrap(json["songs"] as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(songs.filter { $0["local"] as? Bool == true }.count, 5)
        XCTAssertTrue(FileManager.default.fileExists(atPath: temp.path("library/demo/catalogue.jsonl")))
    }

    func testImportSearchAndJSONShapes() throws {
        let imported = try xzmusic("import", try writeFeed(feed + [#"{"title":"no singer"}"#]))
        XCTAssertEqual(imported.status, 1, "a failed line makes the import exit 1")
        XCTAssertTrue(imported.stdout.contains("3 added, 0 updated, 0 skipped, 1 failed"), imported.stdout)
        XCTAssertTrue(imported.stderr.contains("line 4: missing \"singer\""), imported.stderr)

        let result = try xzmusic("search", "zjl", "--json")
        XCTAssertEqual(result.status, 0)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        let song = try XCTUnwrap((json["songs"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(song.keys), ["id", "title", "singer", "album", "duration_ms", "local"])
        XCTAssertEqual(song["title"] as? String, "晴天")
        XCTAssertEqual(song["duration_ms"] as? Int, 269_000)
        XCTAssertEqual(song["local"] as? Bool, false)
        let singer = try XCTUnwrap((json["singers"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(singer.keys), ["id", "name", "songs"])
        XCTAssertEqual(singer["name"] as? String, "周杰伦")

        // info --json names every field; what the catalogue does not know is null, not missing.
        let info = try xzmusic("info", "bjork", "--json")
        XCTAssertEqual(info.status, 0, info.stderr)
        let fields = try XCTUnwrap(JSONSerialization.jsonObject(with: info.stdoutData) as? [String: Any])
        XCTAssertEqual(fields["title"] as? String, "Jóga")
        for key in ["album", "duration_ms", "local_path", "lyrics_path", "audio_url"] {
            XCTAssertTrue(fields[key] is NSNull, "\(key) is null: \(info.stdout)")
        }
    }

    func testFieldTermsAndFilterExpressionsGoThroughTheOneEngine() throws {
        let lines = [
            #"{"source_id":"f1","title":"晴天","singer":"周杰伦","album":"叶惠美","year":2003,"genre":"Mandopop"}"#,
            #"{"source_id":"f2","title":"七里香","singer":"周杰伦","album":"七里香","year":2004}"#,
            #"{"source_id":"f3","title":"稻香","singer":"周杰伦","album":"魔杰座","year":2008}"#,
            #"{"source_id":"f4","title":"Love Story","singer":"Taylor Swift","album":"Fearless","year":2008,"album_artist":"Taylor Swift"}"#,
        ]
        XCTAssertEqual(try xzmusic("import", try writeFeed(lines)).status, 0)
        func titles(_ arguments: String...) throws -> [String] {
            let result = try TestProcess.run(binary, arguments + ["--json"], environment: environment)
            XCTAssertEqual(result.status, 0, result.stderr)
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
            return (json["songs"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
        }
        // Pinyin initials for the singer, a year range, a genre, a quoted value, likes.
        XCTAssertEqual(try titles("search", "singer:zjl year:2003..2005"), ["七里香", "晴天"], "by album, as MPD orders")
        XCTAssertEqual(try titles("search", "genre:mando"), ["晴天"])
        XCTAssertEqual(try titles("search", #"albumartist:"taylor swift" year:2008"#), ["Love Story"])
        XCTAssertEqual(try titles("search", "year:2008.. xiang"), ["稻香"])
        XCTAssertEqual(try xzmusic("like", "稻香").status, 0)
        XCTAssertEqual(try titles("search", "singer:周杰伦 liked:yes"), ["稻香"])
        XCTAssertEqual(try titles("search", "singer:周杰伦 liked:no"), ["七里香", "晴天"])
        // MPD filters, exact as MPD's find.
        XCTAssertEqual(try titles("find", "(Album == '七里香')"), ["七里香"])
        XCTAssertEqual(try titles("find", "((Artist == '周杰伦') AND (Date != '2003'))"), ["七里香", "稻香"])
        XCTAssertEqual(try titles("find", "artist", "taylor swift"), [])
        let bad = try xzmusic("find", "(Album == 'x'")
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("')' expected"), bad.stderr)
        let badRange = try xzmusic("search", "year:2005..2003")
        XCTAssertEqual(badRange.status, 1)
        XCTAssertTrue(badRange.stderr.contains("year:"), badRange.stderr)
    }

    func testExitCodes() throws {
        XCTAssertEqual(try xzmusic("import", try writeFeed(feed)).status, 0)
        XCTAssertEqual(try xzmusic("search", "bjork").status, 0)
        XCTAssertEqual(try xzmusic("search", "nothing-matches-this").status, 0)
        XCTAssertEqual(try xzmusic("search").status, 64)
        XCTAssertEqual(try xzmusic("search", "  ").status, 64)
        XCTAssertEqual(try xzmusic("search", "x", "--limit", "0").status, 64)
        XCTAssertEqual(try xzmusic("no-such-command").status, 64)
        XCTAssertEqual(try xzmusic("info", "#9999").status, 1)
        XCTAssertEqual(try xzmusic("import", temp.path("missing.jsonl")).status, 1)
        XCTAssertEqual(try xzmusic("--version").status, 0)
    }

    func testTableOutputIsSanitisedAndAligned() throws {
        try xzmusic("import", try writeFeed(feed))
        let result = try xzmusic("search", "evil")
        XCTAssertEqual(result.status, 0)
        XCTAssertFalse(result.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B },
                       "no control characters reach the terminal")
        XCTAssertTrue(result.stdout.contains("Evil [2J]0;pwnedTitle"))

        let table = try xzmusic("search", "晴天").stdout.split(separator: "\n").map(String.init)
        let header = try XCTUnwrap(table.first)
        let row = try XCTUnwrap(table.dropFirst().first)
        // Not on a terminal the width is 100 columns; a full line would wrap on some terminals.
        XCTAssertLessThan(displayWidth(header), 100, "the table fits the width: \(header)")
        // Display columns line up: the CJK row is as wide on screen as the header.
        XCTAssertEqual(displayWidth(header.replacingOccurrences(of: "Local", with: "")),
                       displayWidth(String(row.dropLast(1))))
    }

    func testInterruptedImportLeavesTheLibraryAsItWas() throws {
        XCTAssertEqual(try xzmusic("import", try writeFeed(feed)).status, 0)
        let big = temp.path("big.jsonl")
        var text = ""
        for i in 0..<300_000 { text += #"{"source_id":"b\#(i)","title":"Song \#(i) 歌","singer":"Singer \#(i % 5000)"}"# + "\n" }
        try text.write(toFile: big, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["import", big]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill it once the import transaction has spilled pages into the WAL, i.e. mid-import.
        let wal = temp.path("library/library.sqlite-wal")
        let deadline = Date(timeIntervalSinceNow: 60)
        while Date() < deadline, process.isRunning {
            let size = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
            if size > 4_000_000 { break }
            usleep(2_000)
        }
        XCTAssertTrue(process.isRunning, "the import finished before it could be interrupted")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()

        let result = try xzmusic("search", "song", "--json", "--limit", "5")
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        XCTAssertEqual((json["songs"] as? [Any])?.count, 0, "no song of the killed import is visible")
        XCTAssertEqual(try xzmusic("search", "bjork", "--json").stdout.contains("Jóga"), true)
    }

    func testReplThroughAPipe() throws {
        try xzmusic("import", try writeFeed(feed))
        let script = """
            search 晴天
            info 1
            bogus command
            search "unbalanced
            search
            info 7
            singer björk
            help
            quit
            search never-reached
            """
        let result = try xzmusic(input: script)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("晴天"))
        XCTAssertTrue(result.stdout.contains("叶惠美"), "info 1 took the first song of the last listing")
        XCTAssertTrue(result.stdout.contains("Jóga"))
        XCTAssertTrue(result.stdout.contains("Commands:"))
        XCTAssertFalse(result.stdout.contains("never-reached"))
        let errors = result.stderr.split(separator: "\n")
        XCTAssertEqual(errors.count, 4, "one line per bad command: \(errors)")
        XCTAssertTrue(errors[0].contains("unknown command 'bogus'"))
        XCTAssertTrue(errors[1].contains("unbalanced quote"))
        XCTAssertTrue(errors[3].contains("no song 7 in the last listing"))
    }

    func testImportPathsAreCheckedFirstAndTildeIsHome() throws {
        let home = temp.path("home")
        try FileManager.default.createDirectory(atPath: home + "/Music", withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: home + "/Music/tone.mp3", seconds: 1, tags: .init(title: "Home Tone", artist: "Me"))
        let feed = try writeFeed(feed)
        XCTAssertEqual(try xzmusic("import", feed, temp.path("typo")).status, 1)
        XCTAssertFalse(try xzmusic("search", "bjork").stdout.contains("Jóga"), "nothing was imported")

        var environment = self.environment
        environment["HOME"] = home
        let result = try TestProcess.run(binary, [], input: Data("import ~/Music\nsearch home tone\nquit\n".utf8),
                                         environment: environment)
        XCTAssertEqual(result.stderr, "")
        XCTAssertTrue(result.stdout.contains("Home Tone"), result.stdout)
    }

    func testReplEndsAtEndOfInput() throws {
        let result = try xzmusic(input: "search zjl\n")
        XCTAssertEqual(result.status, 0)
    }

    private func displayWidth(_ s: String) -> Int {
        s.unicodeScalars.reduce(0) { width, scalar in
            let v = scalar.value
            let wide = (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
                || (0xF900...0xFAFF).contains(v) || (0xFF00...0xFF60).contains(v)
            return width + (wide ? 2 : 1)
        }
    }
}
