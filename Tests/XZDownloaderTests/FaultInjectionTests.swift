import Foundation
import XCTest
import XZCatalogue
@testable import XZDownloader
import XZTestSupport

/// Transfers against a local server with injected faults: drops, errors, ignored or changed
/// ranges, wrong lengths, stalls and redirects.
final class FaultInjectionTests: XCTestCase {
    func testDroppedConnectionsResumeWithRange() async throws {
        let body = try MP3Bodies.medium()
        let fixture = try DownloadFixture { request, index in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            var response = TestHTTPServer.file(body, request: request, etag: "\"one\"")
            if index == 0 { response.dropAfter = 100_000 }
            if index == 1 { response.dropAfter = 50_000 }
            return response
        }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"), extra: ["sha256": sha256Hex(body)])])
        let tasks = try await fixture.download(["a"])
        XCTAssertEqual(fixture.task(.audio, of: "a", in: tasks)?.state, .done, fixture.task(.audio, of: "a", in: tasks)?.lastError ?? "")
        let requests = fixture.server.requests(path: "/a.mp3")
        XCTAssertEqual(requests.count, 3)
        XCTAssertNil(requests[0]["range"])
        // Every byte that arrived before a drop is kept, so each resume starts exactly where it broke.
        XCTAssertEqual(rangeStart(requests[1]), 100_000)
        XCTAssertEqual(rangeStart(requests[2]), 150_000)
        XCTAssertEqual(requests[1]["if-range"], "\"one\"")
        XCTAssertEqual(requests[2]["if-range"], "\"one\"")
        XCTAssertEqual(fixture.server.bytesSent(path: "/a.mp3"), body.count)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try fixture.song("a").localPath)), body)
    }

    /// Drops deep into a file of several megabytes, where the client lags the server and the
    /// kernel holds much of the response when the connection closes: every byte that arrived is
    /// kept, so each resume asks for exactly the bytes on disk and the file is sent once.
    func testSeveralLargeDropsRefetchNothing() async throws {
        let body = try MP3Bodies.make(seconds: 244, frequency: 440)
        XCTAssertGreaterThan(body.count, 3_800_000)
        let drops = [700_000, 1_900_000, 400_000, 65_536]
        let fixture = try DownloadFixture { request, index in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            var response = TestHTTPServer.file(body, request: request, etag: "\"big\"")
            if index < drops.count { response.dropAfter = drops[index] }
            return response
        }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"), extra: ["sha256": sha256Hex(body)])])
        let tasks = try await fixture.download(["a"])
        XCTAssertEqual(fixture.task(.audio, of: "a", in: tasks)?.state, .done, fixture.task(.audio, of: "a", in: tasks)?.lastError ?? "")
        let requests = fixture.server.requests(path: "/a.mp3")
        XCTAssertEqual(requests.count, drops.count + 1)
        XCTAssertNil(requests.first?["range"])
        let starts = requests.dropFirst().map { rangeStart($0) }
        XCTAssertEqual(starts, [700_000, 2_600_000, 3_000_000, 3_065_536])
        XCTAssertEqual(fixture.server.bytesSent(path: "/a.mp3"), body.count)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try fixture.song("a").localPath)), body)
    }

    func testServerErrorThenSuccess() async throws {
        let body = try MP3Bodies.small()
        let fixture = try DownloadFixture { request, index in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            return index == 0 ? .text(500, "oops") : TestHTTPServer.file(body, request: request)
        }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"))])
        let tasks = try await fixture.download(["a"])
        XCTAssertEqual(fixture.task(.audio, of: "a", in: tasks)?.state, .done)
        XCTAssertEqual(fixture.server.requests(path: "/a.mp3").count, 2)
    }

    func testTooManyRequestsHonoursRetryAfter() async throws {
        let body = try MP3Bodies.small()
        let fixture = try DownloadFixture { request, index in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            if index == 0 { return TestHTTPServer.Response(status: 429, headers: [("Retry-After", "1")]) }
            return TestHTTPServer.file(body, request: request)
        }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"))])
        let started = Date()
        let tasks = try await fixture.download(["a"])
        XCTAssertEqual(fixture.task(.audio, of: "a", in: tasks)?.state, .done)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.95, "waited for Retry-After")
        XCTAssertEqual(fixture.server.requests(path: "/a.mp3").count, 2)
    }

    func testServerThatIgnoresRangeRestartsFromZero() async throws {
        let body = try MP3Bodies.medium()
        let fixture = try DownloadFixture { request, index in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            var response = TestHTTPServer.file(body, request: request, honourRange: false)
            if index == 0 { response.dropAfter = 120_000 }
            return response
        }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"))])
        let tasks = try await fixture.download(["a"])
        XCTAssertEqual(fixture.task(.audio, of: "a", in: tasks)?.state, .done)
        XCTAssertNotNil(rangeStart(fixture.server.requests(path: "/a.mp3")[1]))
        XCTAssertEqual(fixture.server.bytesSent(path: "/a.mp3"), 120_000 + body.count)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try fixture.song("a").localPath)), body)
    }

    /// The file changes between attempts: If-Range no longer matches, so the server sends the new
    /// version whole and the two versions are never spliced.
    func testChangedFileRestartsFromZero() async throws {
        let first = try MP3Bodies.medium(frequency: 440)
        let second = try MP3Bodies.medium(frequency: 660)
        let fixture = try DownloadFixture { request, index in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            if index == 0 {
                var response = TestHTTPServer.file(first, request: request, etag: "\"A\"")
                response.dropAfter = 90_000
                return response
            }
            return TestHTTPServer.file(second, request: request, etag: "\"B\"")
        }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"))])
        let tasks = try await fixture.download(["a"])
        XCTAssertEqual(fixture.task(.audio, of: "a", in: tasks)?.state, .done)
        let requests = fixture.server.requests(path: "/a.mp3")
        XCTAssertEqual(requests[1]["if-range"], "\"A\"")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try fixture.song("a").localPath)), second)
    }

    /// Same, with a server that ignores If-Range but names the new version in its 206.
    func testChangedETagIn206IsNotSpliced() async throws {
        let first = try MP3Bodies.medium(frequency: 440)
        let second = try MP3Bodies.medium(frequency: 660)
        let fixture = try DownloadFixture { request, index in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            if index == 0 {
                var response = TestHTTPServer.file(first, request: request, etag: "\"A\"")
                response.dropAfter = 90_000
                return response
            }
            var plain = request
            plain.headers["if-range"] = nil
            return TestHTTPServer.file(second, request: plain, etag: "\"B\"")
        }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"))])
        let tasks = try await fixture.download(["a"])
        XCTAssertEqual(fixture.task(.audio, of: "a", in: tasks)?.state, .done)
        let ranges = fixture.server.requests(path: "/a.mp3").map { $0["range"] }
        XCTAssertEqual(ranges.count, 3)
        XCTAssertNil(ranges[0])
        XCTAssertNotNil(ranges[1])
        XCTAssertNil(ranges[2], "the mismatched 206 is dropped and the file asked for whole")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try fixture.song("a").localPath)), second)
    }

    func testBodyShorterThanContentLengthFails() async throws {
        let body = try MP3Bodies.small()
        let fixture = try DownloadFixture { request, _ in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            var response = TestHTTPServer.file(body, request: request, etag: nil, honourRange: false)
            response.declaredLength = body.count + 5000
            return response
        }
        fixture.settings.retries = 2
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"))])
        let tasks = try await fixture.download(["a"])
        let audio = fixture.task(.audio, of: "a", in: tasks)
        XCTAssertEqual(audio?.state, .failed)
        XCTAssertTrue(audio?.lastError?.contains("gave up after 3 attempts") == true, audio?.lastError ?? "")
        // The first attempt gets further than none and the next two no further, so three in all.
        XCTAssertEqual(fixture.server.requests(path: "/a.mp3").count, 3)
        XCTAssertEqual(fixture.songFiles(), [])
        XCTAssertEqual(try fixture.song("a").localPath, "")
    }

    /// HTTP framing stops at Content-Length, so a longer body arrives cut; the catalogue's size catches it.
    func testBodyLongerThanContentLengthIsRejectedBySize() async throws {
        let body = try MP3Bodies.small()
        let fixture = try DownloadFixture { request, _ in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            var response = TestHTTPServer.file(body, request: request)
            response.declaredLength = body.count - 1000
            return response
        }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"), extra: ["size": body.count])])
        let tasks = try await fixture.download(["a"])
        let audio = fixture.task(.audio, of: "a", in: tasks)
        XCTAssertEqual(audio?.state, .failed)
        XCTAssertTrue(audio?.lastError?.contains("catalogue says \(body.count)") == true, audio?.lastError ?? "")
        XCTAssertEqual(fixture.songFiles(), [])
        XCTAssertEqual(fixture.partFiles(), [], "a rejected file is not kept for resuming")
    }

    func testNotFoundFailsAtOnceAndResumesLater() async throws {
        let body = try MP3Bodies.small()
        let published = Flag()
        let fixture = try DownloadFixture { request, _ in
            lyricsNotFound(request) ?? (published.value ? TestHTTPServer.file(body, request: request) : .text(404, "no"))
        }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"))])
        let manager = fixture.manager()
        try await manager.enqueue(songs: [try fixture.song("a")])
        await manager.waitUntilIdle()
        var tasks = try await manager.tasks()
        let audio = fixture.task(.audio, of: "a", in: tasks)
        XCTAssertEqual(audio?.state, .failed)
        XCTAssertTrue(audio?.lastError?.contains("HTTP 404 Not Found from") == true, audio?.lastError ?? "")
        XCTAssertEqual(fixture.server.requests(path: "/a.mp3").count, 1)
        // Its lyrics have nowhere to go.
        XCTAssertEqual(fixture.task(.lyrics, of: "a", in: tasks)?.state, .failed)

        // Resuming the song also gives its lyrics another go.
        published.value = true
        try await manager.resume(.task(try XCTUnwrap(audio?.id)))
        await manager.waitUntilIdle()
        tasks = try await manager.tasks()
        await manager.shutdown()
        XCTAssertEqual(tasks.map(\.state), [.done, .done])
        XCTAssertEqual(fixture.task(.lyrics, of: "a", in: tasks)?.note, "no lyrics found")
    }

    func testStallHitsIdleTimeoutThenRetries() async throws {
        let body = try MP3Bodies.small()
        let fixture = try DownloadFixture { request, index in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            var response = TestHTTPServer.file(body, request: request)
            if index == 0 {
                response.stallAfter = 10_000
                response.stallSeconds = 5
            }
            return response
        }
        fixture.settings.idleTimeout = 0.5
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"))])
        let started = Date()
        let tasks = try await fixture.download(["a"])
        XCTAssertEqual(fixture.task(.audio, of: "a", in: tasks)?.state, .done)
        XCTAssertLessThan(Date().timeIntervalSince(started), 4, "gave up on the stall long before the server resumed")
        let requests = fixture.server.requests(path: "/a.mp3")
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests[1]["range"], "bytes=10000-")
    }

    func testTrickleForeverFailsWithTimeout() async throws {
        let body = try MP3Bodies.small()
        let fixture = try DownloadFixture { request, _ in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            var response = TestHTTPServer.file(body, request: request)
            response.stallAfter = 0
            response.stallSeconds = 3
            return response
        }
        fixture.settings.idleTimeout = 0.3
        fixture.settings.retries = 1
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"))])
        let tasks = try await fixture.download(["a"])
        let audio = fixture.task(.audio, of: "a", in: tasks)
        XCTAssertEqual(audio?.state, .failed)
        XCTAssertTrue(audio?.lastError?.contains("no data from 127.0.0.1 for 0.3 s") == true, audio?.lastError ?? "")
    }

    func testRedirectsAreFollowedAndLoopsStop() async throws {
        let body = try MP3Bodies.small()
        let fixture = try DownloadFixture { request, _ in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            switch request.path {
            case "/r1": return .redirect(301, to: "/r2")
            case "/r2": return .redirect(307, to: "/real.mp3")
            case "/loop-a": return .redirect(to: "/loop-b")
            case "/loop-b": return .redirect(to: "/loop-a")
            case "/to-ftp": return .redirect(to: "ftp://127.0.0.1/x.mp3")
            case let path where path.hasPrefix("/hop"):
                // /hopN-M redirects N more times before the file; M tells chains apart.
                let parts = path.dropFirst(4).split(separator: "-")
                let left = Int(parts[0]) ?? 0
                return .redirect(to: left == 0 ? "/real.mp3" : "/hop\(left - 1)-\(parts[1])")
            default: return TestHTTPServer.file(body, request: request)
            }
        }
        try fixture.addSongs([
            songFields("ok", title: "Ok", url: fixture.server.url("/r1")),
            songFields("loop", title: "Loop", url: fixture.server.url("/loop-a")),
            songFields("ftp", title: "Ftp", url: fixture.server.url("/to-ftp")),
            songFields("file", title: "File", url: fixture.server.url("/file")),
            songFields("five", title: "Five", url: fixture.server.url("/hop4-a")),
            songFields("six", title: "Six", url: fixture.server.url("/hop5-b")),
        ])
        // Feeds refuse such URLs now; a library imported before that rule may still hold one.
        try await fixture.database.pool.write { db in
            try db.execute(sql: "UPDATE song SET audio_url = 'file:///etc/passwd' WHERE song_key = 'src:file'")
        }
        let tasks = try await fixture.download(["ok", "loop", "ftp", "file", "five", "six"])
        XCTAssertEqual(fixture.task(.audio, of: "ok", in: tasks)?.state, .done)
        let loop = fixture.task(.audio, of: "loop", in: tasks)
        XCTAssertEqual(loop?.state, .failed)
        XCTAssertTrue(loop?.lastError?.contains("a redirect loop, starting at \(fixture.server.url("/loop-a"))") == true,
                      loop?.lastError ?? "")
        // The loop is seen as soon as an address comes round again, not after the redirect limit.
        XCTAssertEqual(fixture.server.requests(path: "/loop-a").count, 1)
        XCTAssertEqual(fixture.server.requests(path: "/loop-b").count, 1)
        XCTAssertTrue(fixture.task(.audio, of: "ftp", in: tasks)?.lastError?.contains("only http and https") == true)
        XCTAssertTrue(fixture.task(.audio, of: "file", in: tasks)?.lastError?.contains("only http and https") == true)
        // Five redirects are followed; a sixth is one too many.
        XCTAssertEqual(fixture.task(.audio, of: "five", in: tasks)?.state, .done)
        let six = fixture.task(.audio, of: "six", in: tasks)
        XCTAssertEqual(six?.state, .failed)
        XCTAssertTrue(six?.lastError?.contains("too many redirects: gave up after 5") == true, six?.lastError ?? "")
        XCTAssertEqual(fixture.server.requests.filter { $0.path.hasPrefix("/hop") && $0.path.hasSuffix("-b") }.count, 6)
        XCTAssertEqual(fixture.songFiles(), ["songs/Singer/Album/01 Five.mp3", "songs/Singer/Album/01 Ok.mp3"])
    }
}
