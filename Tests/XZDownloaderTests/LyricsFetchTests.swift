import Foundation
import XCTest
import XZCatalogue
import XZSystem
@testable import XZDownloader
import XZTestSupport

/// How many times each path and title was asked before.
private final class TitleCounts: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    func next(_ key: String) -> Int {
        counts.withLock { counts in
            defer { counts[key, default: 0] += 1 }
            return counts[key, default: 0]
        }
    }
}

/// Bulk lookups against a local server answering in LRCLIB's JSON shapes.
final class LyricsFetchTests: XCTestCase {
    static var notFound: [String: Any] { ["message": "Failed to find specified track", "name": "TrackNotFound", "statusCode": 404] }

    static func record(_ title: String, duration: Double, synced: String? = nil, plain: String? = nil,
                       instrumental: Bool = false) -> [String: Any] {
        ["id": 1, "trackName": title, "artistName": "Singer", "albumName": "Album", "duration": duration,
         "instrumental": instrumental, "plainLyrics": plain ?? NSNull(), "syncedLyrics": synced ?? NSNull()]
    }

    static func song(_ title: String, seconds: Int = 200, album: String? = "Album") -> LyricsLookup {
        LyricsLookup(songKey: "key:\(title)", title: title, singer: "Singer", album: album, durationMs: seconds * 1000)
    }

    func settings(_ server: String) -> DownloadSettings {
        var settings = DownloadSettings()
        settings.lyricsServer = server
        settings.initialBackoff = 0.01
        settings.maxBackoff = 0.02
        settings.retries = 3
        return settings
    }

    func fetchAll(_ songs: [LyricsLookup], server: String, concurrency: Int = 2) async -> [String: LyricsLookupResult] {
        var settings = settings(server)
        settings.lyricsConcurrency = concurrency
        let fetch = LyricsFetch(settings: settings)
        var results: [String: LyricsLookupResult] = [:]
        for await (song, result) in fetch.results(for: songs) { results[song.title] = result }
        await fetch.shutdown()
        return results
    }

    func kind(_ result: LyricsLookupResult?) -> FetchedLyricsKind? {
        if case .found(let lyrics, _)? = result { return lyrics.kind }
        return nil
    }

    func text(_ result: LyricsLookupResult?) -> String? {
        if case .found(let lyrics, _)? = result { return lyrics.text }
        return nil
    }

    func testEachAnswerShape() async throws {
        let asked = TitleCounts()
        let server = try TestHTTPServer { request, _ in
            let title = request.query["track_name"] ?? ""
            let count = asked.next(request.path + " " + title)
            switch (request.path, title) {
            case ("/api/get", "Hit"):
                return .json(200, Self.record(title, duration: 200, synced: "[00:01.00]hit\n[03:10.00]end", plain: "hit"))
            case ("/api/get", "Instrumental"):
                return .json(200, Self.record(title, duration: 200, instrumental: true))
            case ("/api/get", "Busy") where count == 0:
                var response = TestHTTPServer.Response.json(429, ["message": "slow down"])
                response.headers.append(("Retry-After", "1"))
                return response
            case ("/api/get", "Busy"):
                return .json(200, Self.record(title, duration: 200, plain: "after the wait"))
            case ("/api/get", "Flaky") where count < 2:
                return .json(503, ["message": "unavailable"])
            case ("/api/get", "Flaky"):
                return .json(200, Self.record(title, duration: 200, synced: "[00:02.00]back"))
            case ("/api/get", "Long"):
                // Another version: its synced lyrics run past this song's 200 s.
                return .json(200, Self.record(title, duration: 201, synced: "[00:01.00]a\n[03:25.50]past the end", plain: "plain long"))
            case ("/api/get", _):
                return .json(404, Self.notFound)
            case ("/api/search", "Searched"):
                return .json(200, [Self.record(title, duration: 230, synced: "[00:00.00]far"),
                                   Self.record(title, duration: 201.5, synced: "[00:00.50]near")])
            case ("/api/search", "Mismatch"):
                return .json(200, [Self.record(title, duration: 203, synced: "[00:00.00]3 s off", plain: "3 s off")])
            case ("/api/search", "Bad"):
                return .text(400, "bad request")
            default:
                return .json(200, [] as [Any])
            }
        }
        let titles = ["Hit", "Instrumental", "Busy", "Flaky", "Long", "Searched", "Mismatch", "Bad"]
        let results = await fetchAll(titles.map { Self.song($0) }, server: server.base)

        XCTAssertEqual(kind(results["Hit"]), .synced)
        XCTAssertEqual(text(results["Hit"]), "[00:01.00]hit\n[03:10.00]end")
        XCTAssertEqual(kind(results["Instrumental"]), .instrumental)
        XCTAssertEqual(text(results["Busy"]), "after the wait")
        XCTAssertEqual(server.requests(path: "/api/get").filter { $0.query["track_name"] == "Busy" }.count, 2)
        XCTAssertEqual(text(results["Flaky"]), "[00:02.00]back")
        XCTAssertEqual(server.requests(path: "/api/get").filter { $0.query["track_name"] == "Flaky" }.count, 3)
        XCTAssertEqual(kind(results["Long"]), .plain)
        XCTAssertEqual(text(results["Long"]), "plain long")
        XCTAssertEqual(text(results["Searched"]), "[00:00.50]near")
        guard case .found(_, "search")? = results["Searched"] else { return XCTFail("\(String(describing: results["Searched"]))") }
        XCTAssertEqual(kind(results["Mismatch"]), .notFound)
        guard case .failed(let error, false)? = results["Bad"] else { return XCTFail("\(String(describing: results["Bad"]))") }
        XCTAssertEqual(error.httpStatus, 400)
        // Asked once: a 400 is not retried.
        XCTAssertEqual(server.requests(path: "/api/search").filter { $0.query["track_name"] == "Bad" }.count, 1)

        let get = try XCTUnwrap(server.requests(path: "/api/get").first { $0.query["track_name"] == "Hit" })
        XCTAssertEqual(get.query, ["artist_name": "Singer", "track_name": "Hit", "album_name": "Album", "duration": "200"])
        XCTAssertEqual(get["user-agent"], DownloadSettings().userAgent)
        XCTAssertLessThanOrEqual(server.maxConcurrentConnections, 2)
    }

    /// An `/api/get` answer of another length (a 55 s recording for a 40 s song) is not taken: the search
    /// is asked, and its results pass the same duration rule.
    func testGetAnswerOfAnotherLengthIsNotTaken() async throws {
        let server = try TestHTTPServer { request, _ in
            let title = request.query["track_name"] ?? ""
            switch (request.path, title) {
            case ("/api/get", _):
                return .json(200, Self.record(title, duration: 55, synced: "[00:01.00]the long version", plain: "long"))
            case ("/api/search", "Short"):
                return .json(200, [Self.record(title, duration: 55, synced: "[00:01.00]the long version"),
                                   Self.record(title, duration: 41.5, synced: "[00:01.00]this one")])
            case ("/api/search", "Instrumental"):
                return .json(200, [Self.record(title, duration: 40, instrumental: true)])
            default:
                return .json(200, [Self.record(title, duration: 55, plain: "long")])
            }
        }
        let results = await fetchAll(["Short", "Only long", "Instrumental"].map { Self.song($0, seconds: 40) }, server: server.base)
        XCTAssertEqual(text(results["Short"]), "[00:01.00]this one")
        guard case .found(_, "search")? = results["Short"] else { return XCTFail("\(String(describing: results["Short"]))") }
        XCTAssertEqual(kind(results["Only long"]), .notFound)
        XCTAssertEqual(kind(results["Instrumental"]), .instrumental)
        XCTAssertEqual(server.requests(path: "/api/get").count, 3)
        XCTAssertEqual(server.requests(path: "/api/search").count, 3)
        // A get answer of the song's length is still taken from the get.
        XCTAssertEqual(LyricsChoice.pick([LRCLIBRecord(duration: 41, plainLyrics: "p")], durationSeconds: 40), .lyrics("p", synced: false))
    }

    func testNoAlbumGoesStraightToSearch() async throws {
        let server = try TestHTTPServer { request, _ in
            request.path == "/api/search" ? .json(200, [Self.record("Loose", duration: 200, plain: "words")]) : .json(404, Self.notFound)
        }
        let results = await fetchAll([Self.song("Loose", album: nil)], server: server.base)
        XCTAssertEqual(text(results["Loose"]), "words")
        XCTAssertEqual(server.requests(path: "/api/get").count, 0)
    }

    /// Nothing listens on the server's port: the run stops after one song instead of asking for each.
    func testUnreachableServerStopsTheRun() async throws {
        let server = try TestHTTPServer { _, _ in .json(404, Self.notFound) }
        let base = server.base
        server.stop()
        let songs = (1...6).map { Self.song("Song \($0)") }
        let results = await fetchAll(songs, server: base, concurrency: 1)
        XCTAssertEqual(results.count, 6)
        let stopping = results.values.filter { if case .failed(_, true) = $0 { true } else { false } }
        XCTAssertEqual(stopping.count, 1, "\(results)")
        for result in results.values {
            guard case .failed(let error, _) = result else { return XCTFail("\(result)") }
            XCTAssertEqual(error, .network)
        }
    }

    func testStampsAndKinds() {
        XCTAssertEqual(LyricStamps.lastSeconds(in: "[ar:Someone]\n[00:01.50]a\n[01:02.25][03:04.00]b\n"), 184)
        XCTAssertNil(LyricStamps.lastSeconds(in: "[ar:Someone]\nplain words\n[chorus]"))
        XCTAssertEqual(LyricsChoice.from(LRCLIBRecord(syncedLyrics: "[03:21.00]x"), songSeconds: 200), .notFound)
        XCTAssertEqual(LyricsChoice.from(LRCLIBRecord(plainLyrics: "p", syncedLyrics: "[03:19.00]x"), songSeconds: 200),
                       .lyrics("[03:19.00]x", synced: true))
        XCTAssertEqual(LyricsChoice.pick([LRCLIBRecord(duration: 200, plainLyrics: "p", syncedLyrics: "[03:30.00]x")],
                                         durationSeconds: 200), .lyrics("p", synced: false))
    }

    func testConfigKeys() throws {
        let settings = try DownloadSettings.parse("lyrics_concurrency = 4\nlyrics_miss_days = 7\nlyrics_sidecar = yes\n")
        XCTAssertEqual(settings.lyricsConcurrency, 4)
        XCTAssertEqual(settings.lyricsMissDays, 7)
        XCTAssertTrue(settings.lyricsSidecar)
        XCTAssertEqual(DownloadSettings().lyricsConcurrency, 2)
        XCTAssertEqual(DownloadSettings().lyricsMissDays, 30)
        XCTAssertFalse(DownloadSettings().lyricsSidecar)
        XCTAssertThrowsError(try DownloadSettings.parse("lyrics_sidecar = maybe\n"))
        XCTAssertThrowsError(try DownloadSettings.parse("lyrics_concurrency = 0\n"))
    }
}
