import Foundation
import XCTest
import XZTestSupport

/// `lyrics fetch` through the xzmusic executable, on a folder of real MP3s, against an LRCLIB-shaped
/// server on 127.0.0.1.
final class LyricsFetchCommandTests: LibraryProcessTestCase {
    override func setUpWithError() throws {
        temp = try TemporaryFolder("lyrics-fetch")
        try FileManager.default.createDirectory(atPath: temp.path("music"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: temp.path("config/xzmusic"), withIntermediateDirectories: true)
    }

    override var environment: [String: String] {
        var env = super.environment
        env["XZMUSIC_DEMO"] = ""
        return env
    }

    static var notFound: [String: Any] { ["message": "Failed to find specified track", "name": "TrackNotFound", "statusCode": 404] }

    static func record(_ title: String, synced: String? = nil, plain: String? = nil, instrumental: Bool = false) -> [String: Any] {
        ["id": 1, "trackName": title, "artistName": "Singer", "albumName": "Album", "duration": 2,
         "instrumental": instrumental, "plainLyrics": plain ?? NSNull(), "syncedLyrics": synced ?? NSNull()]
    }

    private func makeSongs(_ titles: [String]) throws {
        let folder = temp.path("music/Singer/Album")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for title in titles {
            try AudioFixtures.makeMP3(at: "\(folder)/\(title).mp3", seconds: 2,
                                      tags: AudioFixtures.Tags(title: title, artist: "Singer", album: "Album"))
        }
        let imported = try xzmusic(["import", temp.path("music")])
        XCTAssertEqual(imported.status, 0, imported.stderr)
    }

    private func configure(_ server: TestHTTPServer, _ extra: String = "") throws {
        try "lyrics_server = \(server.base)\n\(extra)".write(toFile: temp.path("config/xzmusic/config"), atomically: true, encoding: .utf8)
    }

    private func events(_ result: ProcessResult) -> [String: [String: Any]] {
        var byTitle: [String: [String: Any]] = [:]
        for line in result.stdout.split(separator: "\n") {
            if let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let title = event["title"] as? String {
                byTitle[title] = event
            }
        }
        return byTitle
    }

    private func files(_ folder: String) -> Set<String> {
        Set((FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".lrc") })
    }

    func testFetchAllKeepsAnswersInTheLibraryAndRemembersMisses() throws {
        let server = try TestHTTPServer { request, _ in
            let title = request.query["track_name"] ?? ""
            switch (request.path, title) {
            case ("/api/get", "Synced"): return .json(200, Self.record(title, synced: "[00:01.00]from the server", plain: "from the server"))
            case ("/api/get", "Instrumental"): return .json(200, Self.record(title, instrumental: true))
            case ("/api/get", _): return .json(404, Self.notFound)
            case ("/api/search", "Plain"): return .json(200, [Self.record(title, plain: "plain words")])
            default: return .json(200, [] as [Any])
            }
        }
        try makeSongs(["Own", "Synced", "Plain", "Nothing", "Instrumental"])
        try "[00:00.50]my own\n".write(toFile: temp.path("music/Singer/Album/Own.lrc"), atomically: true, encoding: .utf8)
        try configure(server)
        let before = files(temp.path("music"))

        let first = try xzmusic(["lyrics", "fetch", "--all", "--json"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let results = events(first).mapValues { $0["result"] as? String }
        XCTAssertEqual(results, ["Own": "skipped", "Synced": "synced", "Plain": "plain", "Nothing": "not_found",
                                 "Instrumental": "instrumental"], first.stdout)
        XCTAssertEqual(server.requests.filter { $0.query["track_name"] == "Own" }.count, 0)
        XCTAssertEqual(files(temp.path("music")), before, "nothing written into the music folder")

        XCTAssertTrue(try xzmusic(["info", "Synced"]).stdout.contains("lyrics      synced"))
        XCTAssertTrue(try xzmusic(["info", "Plain"]).stdout.contains("lyrics      plain"))
        XCTAssertTrue(try xzmusic(["info", "Instrumental"]).stdout.contains("lyrics      instrumental"))
        XCTAssertTrue(try xzmusic(["info", "Own"]).stdout.contains("lyrics      synced"))
        XCTAssertFalse(try xzmusic(["info", "Nothing"]).stdout.contains("lyrics "))

        // A rerun asks nothing: answers are kept, the miss is fresh.
        let asked = server.requests.count
        let again = try xzmusic(["lyrics", "fetch", "--all", "--json"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(Set(events(again).values.compactMap { $0["result"] as? String }), ["skipped"])
        XCTAssertEqual(server.requests.count, asked)

        // Once a miss is older than lyrics_miss_days, only it is asked again.
        try configure(server, "lyrics_miss_days = 0\n")
        let expired = try xzmusic(["lyrics", "fetch", "--all"])
        XCTAssertEqual(expired.status, 0, expired.stderr)
        XCTAssertTrue(expired.stdout.contains("0 synced, 0 plain, 0 instrumental, 1 not found, 0 failed, 4 skipped"), expired.stdout)
        XCTAssertEqual(Set(server.requests.dropFirst(asked).compactMap { $0.query["track_name"] }), ["Nothing"])

        // lyrics_sidecar = yes writes synced lyrics beside the song, never over the user's own.
        try makeSongs(["Later"])
        let sidecarServer = try TestHTTPServer { request, _ in
            request.path == "/api/get" ? .json(200, Self.record("Later", synced: "[00:01.00]beside")) : .json(200, [] as [Any])
        }
        try configure(sidecarServer, "lyrics_sidecar = yes\n")
        XCTAssertEqual(try xzmusic(["lyrics", "fetch", "Later"]).status, 0)
        XCTAssertEqual(try String(contentsOfFile: temp.path("music/Singer/Album/Later.lrc"), encoding: .utf8), "[00:01.00]beside")
        XCTAssertEqual(try String(contentsOfFile: temp.path("music/Singer/Album/Own.lrc"), encoding: .utf8), "[00:00.50]my own\n")
    }

    func testPermanentFailureIsToldOnceAndFailsTheRun() throws {
        let server = try TestHTTPServer { _, _ in .json(404, Self.notFound) }
        try makeSongs(["One", "Two", "Three"])
        try configure(server)
        server.stop()
        let result = try xzmusic(["lyrics", "fetch", "--all"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr.split(separator: "\n").filter { $0.hasPrefix("lyrics:") }.count, 1, result.stderr)
        XCTAssertTrue(result.stdout.contains("3 failed"), result.stdout)
    }

    /// A bulk run killed with SIGKILL: the next run asks only for the songs the first did not finish.
    func testKilledRunContinuesWhereItStopped() throws {
        let titles = (1...12).map { String(format: "Song %02d", $0) }
        let server = try TestHTTPServer { request, _ in
            Thread.sleep(forTimeInterval: 0.2)
            let title = request.query["track_name"] ?? ""
            return request.path == "/api/get" ? .json(200, Self.record(title, synced: "[00:01.00]\(title)")) : .json(200, [] as [Any])
        }
        try makeSongs(titles)
        try configure(server)

        let child = Process()
        child.executableURL = URL(fileURLWithPath: binary)
        child.arguments = ["lyrics", "fetch", "--all", "--json"]
        child.environment = environment
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        let deadline = Date(timeIntervalSinceNow: 60)
        while server.requests.count < 6, child.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        XCTAssertTrue(child.isRunning, "the run ended before it could be killed")
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationReason, .uncaughtSignal)
        let askedBefore = server.requests.count
        XCTAssertLessThan(askedBefore, titles.count)

        let resumed = try xzmusic(["lyrics", "fetch", "--all", "--json"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        let results = events(resumed)
        XCTAssertEqual(Set(results.keys), Set(titles))
        let kept = Set(results.filter { $0.value["result"] as? String == "skipped" }.keys)
        let fetched = Set(results.filter { $0.value["result"] as? String == "synced" }.keys)
        XCTAssertFalse(kept.isEmpty, "the killed run kept nothing")
        XCTAssertFalse(fetched.isEmpty, "the killed run had finished everything")
        XCTAssertEqual(kept.union(fetched), Set(titles))
        let askedAgain = Set(server.requests.dropFirst(askedBefore).compactMap { $0.query["track_name"] })
        XCTAssertEqual(askedAgain, fetched, "a kept answer was asked for again")
        // Every song now has its lyrics.
        XCTAssertTrue(try xzmusic(["info", "Song 01"]).stdout.contains("lyrics      synced"))
    }

    /// Inside the prompt the run goes on in the background; its lines appear while the prompt waits for input.
    func testPromptRunsTheFetchInTheBackground() throws {
        let server = try TestHTTPServer { request, _ in
            let title = request.query["track_name"] ?? ""
            return request.path == "/api/get" ? .json(200, Self.record(title, synced: "[00:01.00]\(title)")) : .json(200, [] as [Any])
        }
        try makeSongs(["A", "B", "C"])
        try configure(server)
        let output = temp.path("prompt.out")
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let input = Pipe()
        let prompt = Process()
        prompt.executableURL = URL(fileURLWithPath: binary)
        prompt.environment = environment
        prompt.standardInput = input
        prompt.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        prompt.standardError = FileHandle.nullDevice
        try prompt.run()
        defer { if prompt.isRunning { kill(prompt.processIdentifier, SIGKILL) } }
        input.fileHandleForWriting.write(Data("lyrics fetch --all\n".utf8))

        func printed() -> String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        let deadline = Date(timeIntervalSinceNow: 60)
        while !printed().contains("lyrics: 3 synced"), prompt.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        // The prompt is still waiting for input: the fetch did not hold it.
        XCTAssertTrue(prompt.isRunning)
        try input.fileHandleForWriting.close()
        prompt.waitUntilExit()
        XCTAssertTrue(printed().contains("fetching lyrics for 3 songs in the background"), printed())
        XCTAssertTrue(printed().contains("lyrics: 3 synced, 0 plain, 0 instrumental, 0 not found, 0 failed"), printed())
        XCTAssertTrue(try xzmusic(["info", "B"]).stdout.contains("lyrics      synced"))
    }
}
