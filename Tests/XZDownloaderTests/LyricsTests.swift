import Foundation
import GRDB
import XCTest
import XZCatalogue
@testable import XZDownloader
import XZTestSupport

/// Lyrics lookups against a local server answering in LRCLIB's JSON shape.
final class LyricsTests: XCTestCase {
    static var notFound: [String: Any] { ["message": "Failed to find specified track", "name": "TrackNotFound", "statusCode": 404] }

    static func record(_ id: Int, duration: Double, synced: String? = nil, plain: String? = nil, instrumental: Bool = false) -> [String: Any] {
        ["id": id, "trackName": "Song", "artistName": "Singer", "albumName": "Album", "duration": duration,
         "instrumental": instrumental, "plainLyrics": plain ?? NSNull(), "syncedLyrics": synced ?? NSNull()]
    }

    /// A fixture whose audio always downloads and whose /api/ answers come from `lyrics`.
    func fixture(_ lyrics: @escaping @Sendable (TestHTTPServer.Request) -> TestHTTPServer.Response) throws -> DownloadFixture {
        let body = try MP3Bodies.small()
        return try DownloadFixture("lyrics") { request, _ in
            request.path.hasPrefix("/api/") || request.path.hasSuffix(".lrc") ? lyrics(request) : TestHTTPServer.file(body, request: request)
        }
    }

    func lyricsRequests(_ fixture: DownloadFixture) -> [TestHTTPServer.Request] {
        fixture.server.requests.filter { $0.path.hasPrefix("/api/") }
    }

    func testExactMatchSavesSyncedLyricsBesideTheSong() async throws {
        let fixture = try fixture { request in
            request.path == "/api/get"
                ? .json(200, Self.record(7, duration: 215, synced: "[00:01.00]你好 & more", plain: "你好 & more"))
                : .json(404, Self.notFound)
        }
        try fixture.addSongs([songFields("a", title: "Song & Dance", singer: "A+B", url: fixture.server.url("/a.mp3"),
                                         extra: ["duration_ms": 215_400])])
        let tasks = try await fixture.download(["a"])
        XCTAssertEqual(fixture.task(.lyrics, of: "a", in: tasks)?.state, .done)
        let song = try fixture.song("a")
        XCTAssertEqual(song.lyricsPath, fixture.library.url.appendingPathComponent("songs/A+B/Album/01 Song & Dance.lrc").path)
        XCTAssertEqual(try String(contentsOfFile: song.lyricsPath, encoding: .utf8), "[00:01.00]你好 & more")
        let get = try XCTUnwrap(lyricsRequests(fixture).first)
        XCTAssertEqual(get.path, "/api/get")
        XCTAssertEqual(get.query, ["artist_name": "A+B", "track_name": "Song & Dance", "album_name": "Album", "duration": "215"])
        XCTAssertEqual(get["user-agent"], "xzmusic/0.1.0")
        XCTAssertEqual(lyricsRequests(fixture).count, 1)
        XCTAssertEqual(fixture.partFiles(), [])
    }

    func testSearchFallbackKeepsToTheDurationWindowAndPrefersSynced() async throws {
        let fixture = try fixture { request in
            switch (request.path, request.query["track_name"]) {
            case ("/api/get", _): return .json(404, Self.notFound)
            case (_, "Both"):
                return .json(200, [Self.record(1, duration: 230, synced: "[00:00.00]far"),
                                   Self.record(2, duration: 216, plain: "plain near"),
                                   Self.record(3, duration: 213.5, synced: "[00:00.00]synced near")])
            case (_, "Plain"):
                return .json(200, [Self.record(1, duration: 200, synced: "[00:00.00]far"),
                                   Self.record(2, duration: 216.9, plain: "plain near")])
            default:
                return .json(200, [Self.record(1, duration: 218, synced: "[00:00.00]3 s off")])
            }
        }
        try fixture.addSongs([
            songFields("both", title: "Both", url: fixture.server.url("/a.mp3"), extra: ["duration_ms": 215_000]),
            songFields("plain", title: "Plain", url: fixture.server.url("/a.mp3"), extra: ["duration_ms": 215_000]),
            songFields("none", title: "None", url: fixture.server.url("/a.mp3"), extra: ["duration_ms": 215_000]),
        ])
        let tasks = try await fixture.download(["both", "plain", "none"])
        XCTAssertEqual(try String(contentsOfFile: try fixture.song("both").lyricsPath, encoding: .utf8), "[00:00.00]synced near")
        XCTAssertEqual(try String(contentsOfFile: try fixture.song("plain").lyricsPath, encoding: .utf8), "plain near")
        XCTAssertEqual(try fixture.song("none").lyricsPath, "")
        XCTAssertEqual(fixture.task(.lyrics, of: "none", in: tasks)?.note, "no lyrics found")
        let search = try XCTUnwrap(lyricsRequests(fixture).first { $0.path == "/api/search" && $0.query["track_name"] == "Both" })
        XCTAssertEqual(search.query, ["track_name": "Both", "artist_name": "Singer"])
    }

    func testInstrumentalIsRecordedAsNoLyrics() async throws {
        let fixture = try fixture { request in
            request.path == "/api/get" ? .json(200, Self.record(9, duration: 100, instrumental: true)) : .json(404, Self.notFound)
        }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"), extra: ["duration_ms": 100_000])])
        let tasks = try await fixture.download(["a"])
        let lyrics = fixture.task(.lyrics, of: "a", in: tasks)
        XCTAssertEqual(lyrics?.state, .done)
        XCTAssertEqual(lyrics?.note, "instrumental: no lyrics")
        XCTAssertEqual(try fixture.song("a").lyricsPath, "")
        XCTAssertEqual(fixture.songFiles(), ["songs/Singer/Album/01 Song.mp3"])
        // Asked once; an instrumental is not asked about again.
        try await fixture.download(["a"])
        XCTAssertEqual(lyricsRequests(fixture).count, 1)
    }

    func testMissIsRememberedForSevenDays() async throws {
        let fixture = try fixture { request in
            request.path == "/api/get" ? .json(404, Self.notFound) : .json(200, [Any]())
        }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"), extra: ["duration_ms": 100_000])])
        let tasks = try await fixture.download(["a"])
        XCTAssertEqual(fixture.task(.lyrics, of: "a", in: tasks)?.note, "no lyrics found")
        XCTAssertEqual(lyricsRequests(fixture).map(\.path), ["/api/get", "/api/search"])

        try await fixture.download(["a"])
        XCTAssertEqual(lyricsRequests(fixture).count, 2, "a miss within 7 days is not asked again")

        let eightDaysAgo = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-8 * 24 * 3600))
        try await fixture.database.pool.write { db in
            try db.execute(sql: "UPDATE lyrics_miss SET missed_at = ?", arguments: [eightDaysAgo])
        }
        try await fixture.download(["a"])
        XCTAssertEqual(lyricsRequests(fixture).count, 4, "an old miss is asked again")
    }

    func testSongLyricsURLComesFirst() async throws {
        let fixture = try fixture { request in
            request.path == "/l.lrc" ? .text(200, "\u{FEFF}[00:02.00]from the feed") : .json(404, Self.notFound)
        }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"), extra: ["lyrics_url": fixture.server.url("/l.lrc")])])
        try await fixture.download(["a"])
        XCTAssertEqual(try String(contentsOfFile: try fixture.song("a").lyricsPath, encoding: .utf8), "[00:02.00]from the feed")
        XCTAssertEqual(lyricsRequests(fixture).count, 0)
    }

    func testServerErrorsAreRetriedAndThenFail() async throws {
        let fixture = try fixture { _ in .text(500, "down") }
        fixture.settings.retries = 1
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"), extra: ["duration_ms": 100_000])])
        let tasks = try await fixture.download(["a"])
        let lyrics = fixture.task(.lyrics, of: "a", in: tasks)
        XCTAssertEqual(lyrics?.state, .failed)
        XCTAssertTrue(lyrics?.lastError?.contains("HTTP 500") == true, lyrics?.lastError ?? "")
        XCTAssertEqual(lyricsRequests(fixture).count, 2)
        let misses = try await fixture.database.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM lyrics_miss") }
        XCTAssertEqual(misses, 0, "only a real miss is remembered")
    }

    func testChoiceValues() {
        let synced = LRCLIBRecord(duration: 100, plainLyrics: "p", syncedLyrics: "[00:00.00]s")
        XCTAssertEqual(LyricsChoice.from(synced), .lyrics("[00:00.00]s", synced: true))
        XCTAssertEqual(LyricsChoice.from(LRCLIBRecord(plainLyrics: "p", syncedLyrics: " ")), .lyrics("p", synced: false))
        XCTAssertEqual(LyricsChoice.from(LRCLIBRecord(instrumental: true, plainLyrics: "p")), .instrumental)
        XCTAssertEqual(LyricsChoice.from(LRCLIBRecord()), .notFound)
        XCTAssertEqual(LyricsChoice.pick([LRCLIBRecord(duration: 103, syncedLyrics: "x")], durationSeconds: 100), .notFound)
        XCTAssertEqual(LyricsChoice.pick([LRCLIBRecord(duration: 103, syncedLyrics: "x")], durationSeconds: nil), .lyrics("x", synced: true))
        XCTAssertEqual(LyricsChoice.pick([LRCLIBRecord(duration: 98, instrumental: true)], durationSeconds: 100), .instrumental)
        XCTAssertEqual(try LyricsChoice.url(server: "http://h/", path: "/api/get", query: [("a", "x+y&z=1 ü")]).absoluteString,
                       "http://h/api/get?a=x%2By%26z%3D1%20%C3%BC")
    }
}
