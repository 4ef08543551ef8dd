import Foundation
import GRDB
import XCTest
import XZCatalogue
@testable import XZDownloader
import XZTestSupport

/// Audio downloads: verification, safe names, the queue, interruption and a full disk.
final class DownloadTests: XCTestCase {
    func testDownloadIsVerifiedAndMovedIntoSongs() async throws {
        let body = try MP3Bodies.small()
        let fixture = try DownloadFixture { request, _ in
            lyricsNotFound(request) ?? TestHTTPServer.file(body, request: request)
        }
        try fixture.addSongs([songFields("a", title: "晴天", singer: "周杰伦", album: "叶惠美", track: 3, url: fixture.server.url("/a.mp3"),
                                         extra: ["size": body.count, "sha256": sha256Hex(body).uppercased()])])
        let manager = fixture.manager()
        let collector = Task { () -> [DownloadEvent] in
            var events: [DownloadEvent] = []
            for await event in manager.events { events.append(event) }
            return events
        }
        let result = try await manager.enqueue(songs: [try fixture.song("a")])
        XCTAssertEqual(result.queued.count, 2)
        await manager.waitUntilIdle()
        let tasks = try await manager.tasks()
        await manager.shutdown()
        let events = await collector.value

        XCTAssertEqual(fixture.songFiles(), ["songs/周杰伦/叶惠美/03 晴天.mp3"])
        let song = try fixture.song("a")
        XCTAssertEqual(song.localPath, fixture.library.url.appendingPathComponent("songs/周杰伦/叶惠美/03 晴天.mp3").path)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: song.localPath)), body)
        XCTAssertEqual(fixture.partFiles(), [])
        XCTAssertEqual(fixture.task(.audio, of: "a", in: tasks)?.state, .done)
        XCTAssertEqual(fixture.task(.audio, of: "a", in: tasks)?.bytesDone, Int64(body.count))
        XCTAssertEqual(fixture.task(.lyrics, of: "a", in: tasks)?.note, "no lyrics found")
        XCTAssertTrue(events.contains { if case .finished(let info) = $0 { return info.kind == .audio } else { return false } })
        XCTAssertEqual(fixture.server.requests(path: "/a.mp3").first?["user-agent"], "xzmusic/0.1.0")

        // Already offline: only the lyrics are asked for again (the remembered miss answers them).
        let again = fixture.manager()
        let second = try await again.enqueue(songs: [song])
        await again.shutdown()
        XCTAssertEqual(second.queued, [try XCTUnwrap(fixture.task(.lyrics, of: "a", in: tasks)?.id)])
    }

    /// The User-Agent names the program and its version, and a contact only when the config gives one.
    func testTheUserAgentIsTheProgramItsVersionAndTheConfiguredContact() async throws {
        let body = try MP3Bodies.small()
        for (config, expected) in [("", "xzmusic/0.1.0"),
                                   ("user_agent_contact = mailto:radio@example.org\n", "xzmusic/0.1.0 (mailto:radio@example.org)")] {
            let fixture = try DownloadFixture { request, _ in lyricsNotFound(request) ?? TestHTTPServer.file(body, request: request) }
            fixture.settings = try DownloadSettings.parse(config, base: fixture.settings)
            try fixture.addSongs([songFields("a", title: "Tone", singer: "Sine", url: fixture.server.url("/a.mp3"))])
            try await fixture.download(["a"])
            XCTAssertEqual(fixture.server.requests(path: "/a.mp3").first?["user-agent"], expected, config)
        }
        // A contact that would break the header's comment is refused with one line naming it.
        for bad in ["me (home)", "a\u{7}b", String(repeating: "x", count: 300)] {
            XCTAssertThrowsError(try DownloadSettings.parse("user_agent_contact = \(bad)\n")) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains("line 1") && text.contains("user_agent_contact"), text)
                XCTAssertFalse(text.contains("\n"), text)
            }
        }
    }

    /// A FLAC behind a URL that says nothing of its format is checked by the seam and named by its content.
    func testAnyFormatIsVerifiedAndNamedByItsContent() async throws {
        let folder = try TemporaryFolder("download-flac")
        let wav = folder.path("tone.wav")
        let flac = folder.path("tone.flac")
        try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "1", "sine", "440"])
        try TestProcess.runChecked("flac", ["-s", "-f", "-o", flac, wav])
        let body = try Data(contentsOf: URL(fileURLWithPath: flac))
        let fixture = try DownloadFixture { request, _ in lyricsNotFound(request) ?? TestHTTPServer.file(body, request: request) }
        try fixture.addSongs([songFields("f", title: "Tone", singer: "Sine", url: fixture.server.url("/stream?id=7"))])
        let tasks = try await fixture.download(["f"])
        XCTAssertEqual(fixture.task(.audio, of: "f", in: tasks)?.state, .done)
        XCTAssertEqual(fixture.songFiles(), ["songs/Sine/Album/01 Tone.flac"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try fixture.song("f").localPath)), body)
    }

    func testChecksumAndSizeMismatchAreRejected() async throws {
        let body = try MP3Bodies.small()
        let fixture = try DownloadFixture { request, _ in lyricsNotFound(request) ?? TestHTTPServer.file(body, request: request) }
        try fixture.addSongs([
            songFields("sum", title: "Sum", url: fixture.server.url("/a.mp3"), extra: ["sha256": String(repeating: "0", count: 64)]),
            songFields("size", title: "Size", url: fixture.server.url("/a.mp3"), extra: ["size": body.count + 1]),
        ])
        let tasks = try await fixture.download(["sum", "size"])
        XCTAssertTrue(fixture.task(.audio, of: "sum", in: tasks)?.lastError?.contains("SHA-256 \(sha256Hex(body)) does not match") == true)
        XCTAssertTrue(fixture.task(.audio, of: "size", in: tasks)?.lastError?.contains("catalogue says") == true)
        XCTAssertEqual(fixture.songFiles(), [])
        XCTAssertEqual(fixture.partFiles(), [])
        XCTAssertEqual(try fixture.song("sum").localPath, "")
    }

    func testNonMP3BodyIsRejected() async throws {
        let page = Data(("<html><body>" + String(repeating: "Please log in. ", count: 2000) + "</body></html>").utf8)
        let fixture = try DownloadFixture { request, _ in
            lyricsNotFound(request) ?? TestHTTPServer.Response(status: 200, headers: [("Content-Type", "text/html")], body: page)
        }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"))])
        let tasks = try await fixture.download(["a"])
        let audio = fixture.task(.audio, of: "a", in: tasks)
        XCTAssertEqual(audio?.state, .failed)
        XCTAssertTrue(audio?.lastError?.contains("not playable audio") == true, audio?.lastError ?? "")
        XCTAssertEqual(fixture.songFiles(), [])
    }

    func testHostileTitlesStayInsideTheLibrary() async throws {
        let body = try MP3Bodies.small()
        let fixture = try DownloadFixture { request, _ in lyricsNotFound(request) ?? TestHTTPServer.file(body, request: request) }
        try fixture.addSongs([
            songFields("dots", title: "../../x", singer: "../..", album: "../../..", url: fixture.server.url("/a.mp3")),
            songFields("ctl", title: "a\u{1}b\u{7F}c\u{202E}d", singer: "s\u{1B}[31m", album: nil, track: nil, url: fixture.server.url("/a.mp3")),
            songFields("long", title: String(repeating: "长", count: 300), url: fixture.server.url("/a.mp3")),
            songFields("long2", title: String(repeating: "长", count: 300), url: fixture.server.url("/a.mp3")),
        ])
        let tasks = try await fixture.download(["dots", "ctl", "long", "long2"])
        XCTAssertEqual(tasks.filter { $0.kind == .audio }.map(\.state), [.done, .done, .done, .done], tasks.compactMap(\.lastError).joined())
        let root = fixture.library.url.path + "/"
        for id in ["dots", "ctl", "long", "long2"] {
            let path = try fixture.song(id).localPath
            XCTAssertTrue(path.hasPrefix(root + "songs/"), path)
            XCTAssertEqual(URL(fileURLWithPath: path).standardizedFileURL.path, path)
            XCTAssertLessThanOrEqual(URL(fileURLWithPath: path).lastPathComponent.utf8.count, 255)
        }
        let long = String(repeating: "长", count: 66)
        XCTAssertEqual(fixture.songFiles(), [
            "songs/Singer/Album/01 \(String(repeating: "长", count: 65)) (2).mp3",
            "songs/Singer/Album/01 \(String(repeating: "长", count: 65)).mp3",
            "songs/_._../_._.._../01 _._.._x.mp3",
            "songs/s [31m/a b c d.mp3",
        ].sorted(), "\(long)")
        // Nothing appeared next to the library folder.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: fixture.temporary.url.path).filter { !$0.hasPrefix("feed-") },
                       ["library"])
    }

    func testConcurrencyLimit() async throws {
        let body = try MP3Bodies.small()
        let fixture = try DownloadFixture { request, _ in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            var response = TestHTTPServer.file(body, request: request)
            response.chunk = 4096
            response.delay = 0.01
            return response
        }
        fixture.settings.concurrency = 2
        let ids = (1 ... 5).map { "s\($0)" }
        try fixture.addSongs(ids.map { songFields($0, title: $0, url: fixture.server.url("/\($0).mp3")) })
        let tasks = try await fixture.download(ids)
        XCTAssertEqual(tasks.filter { $0.kind == .audio && $0.state == .done }.count, 5)
        XCTAssertEqual(fixture.server.maxConcurrentConnections, 2)
    }

    /// A server that sends a medium MP3 in 8 KiB pieces 20 ms apart, so downloads are caught running.
    private func slowServerFixture() throws -> DownloadFixture {
        let body = try MP3Bodies.medium()
        return try DownloadFixture { request, _ in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            var response = TestHTTPServer.file(body, request: request)
            response.chunk = 8192
            response.delay = 0.02
            return response
        }
    }

    func testPauseResumeAndCancel() async throws {
        let fixture = try slowServerFixture()
        try fixture.addSongs([songFields("a", title: "A", url: fixture.server.url("/a.mp3")),
                              songFields("b", title: "B", url: fixture.server.url("/b.mp3"))])
        let manager = fixture.manager()
        let result = try await manager.enqueue(songs: [try fixture.song("a"), try fixture.song("b")])
        await manager.run()
        try await waitFor { fixture.partSize("audio-\(result.queued[0]).part") > 50_000 && fixture.partSize("audio-\(result.queued[2]).part") > 0 }
        // JSONEncoder leaves unknown values out; `downloads --json` prints them as null.
        let json = try JSONEncoder().encode(try await manager.tasks())
        let first = try XCTUnwrap((try JSONSerialization.jsonObject(with: json) as? [[String: Any]])?.first)
        XCTAssertTrue(Set(first.keys).isSubset(of: ["id", "song_key", "title", "singer", "kind", "state", "bytes_done", "bytes_total",
                                                    "bytes_per_second", "eta_seconds", "last_error", "note", "path"]), "\(first.keys)")
        XCTAssertEqual(first["state"] as? String, "running")

        let paused = try await manager.pause(.task(result.queued[0]))
        let cancelled = try await manager.cancel(.task(result.queued[2]))
        XCTAssertEqual(paused, 1)
        XCTAssertEqual(cancelled, 1)
        await manager.waitUntilIdle()
        var tasks = try await manager.tasks()
        XCTAssertEqual(tasks.map(\.state), [.paused, .queued, .cancelled, .cancelled])
        let kept = fixture.partSize("audio-\(result.queued[0]).part")
        XCTAssertGreaterThan(kept, 50_000)
        XCTAssertEqual(fixture.partSize("audio-\(result.queued[2]).part"), -1, "cancel deletes the .part")

        try await manager.resume(.all)
        await manager.waitUntilIdle()
        tasks = try await manager.tasks()
        await manager.shutdown()
        XCTAssertEqual(tasks.map(\.state), [.done, .done, .cancelled, .cancelled])
        XCTAssertEqual(fixture.server.requests(path: "/a.mp3").last?["range"], "bytes=\(kept)-")
        XCTAssertEqual(fixture.songFiles(), ["songs/Singer/Album/01 A.mp3"])
    }

    /// `download pause all` straight followed by `download resume all`: the task must not end up paused.
    func testResumeRightAfterPauseKeepsTheTaskGoing() async throws {
        let fixture = try slowServerFixture()
        try fixture.addSongs([songFields("a", title: "A", url: fixture.server.url("/a.mp3"))])
        let manager = fixture.manager()
        let result = try await manager.enqueue(songs: [try fixture.song("a")])
        await manager.run()
        try await waitFor { fixture.partSize("audio-\(result.queued[0]).part") > 20_000 }
        let paused = try await manager.pause(.all)
        let resumed = try await manager.resume(.all)
        XCTAssertEqual(paused, 2, "the running audio and the queued lyrics")
        XCTAssertEqual(resumed, 2)
        await manager.waitUntilIdle()
        let tasks = try await manager.tasks()
        await manager.shutdown()
        XCTAssertEqual(tasks.map(\.state), [.done, .done])
        XCTAssertEqual(fixture.songFiles(), ["songs/Singer/Album/01 A.mp3"])
    }

    /// A row left `running` by a process that is gone, with its `.part`: resumed with Range.
    func testResumeInterruptedContinuesThePart() async throws {
        let body = try MP3Bodies.medium()
        let fixture = try DownloadFixture { request, _ in lyricsNotFound(request) ?? TestHTTPServer.file(body, request: request, etag: "\"e\"") }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"))])
        let store = DownloadStore(database: fixture.database)
        let id = try XCTUnwrap(try store.queue(songKey: "src:a", kind: .audio, url: fixture.server.url("/a.mp3")))
        _ = try store.claimNext(pid: try deadProcessId())
        try store.saveSource(id: id, url: fixture.server.url("/a.mp3"), validator: "\"e\"", bytesTotal: Int64(body.count), bytesDone: 0)
        try FileManager.default.createDirectory(at: fixture.library.url.appendingPathComponent("downloads"), withIntermediateDirectories: true)
        try body.prefix(200_000).write(to: fixture.library.url.appendingPathComponent("downloads/audio-\(id).part"))

        let manager = fixture.manager()
        let resumed = try await manager.resumeInterrupted()
        XCTAssertEqual(resumed, 1)
        await manager.waitUntilIdle()
        let tasks = try await manager.tasks()
        await manager.shutdown()
        XCTAssertEqual(tasks.first?.state, .done)
        XCTAssertEqual(fixture.server.requests(path: "/a.mp3").map { $0["range"] }, ["bytes=200000-"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try fixture.song("a").localPath)), body)
    }

    /// A full disk fails the task with a clear message and keeps the `.part` (a 256 KiB tmpfs
    /// mounted on the library's downloads folder; skipped where mounting is not allowed).
    func testFullDiskKeepsThePart() async throws {
        let body = try MP3Bodies.medium()
        let fixture = try DownloadFixture { request, _ in lyricsNotFound(request) ?? TestHTTPServer.file(body, request: request) }
        let downloads = fixture.library.url.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        guard (try? TestProcess.run("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", downloads.path]))?.status == 0 else {
            throw XCTSkip("cannot mount a tmpfs here; PartFileTests covers the ENOSPC mapping with /dev/full")
        }
        // Lazily: the failed task may still hold its `.part` open, which would keep the mount busy.
        defer { _ = try? TestProcess.run("umount", ["-l", downloads.path]) }
        try fixture.addSongs([songFields("a", url: fixture.server.url("/a.mp3"))])
        let tasks = try await fixture.download(["a"])
        let audio = fixture.task(.audio, of: "a", in: tasks)
        XCTAssertEqual(audio?.state, .failed)
        XCTAssertTrue(audio?.lastError?.contains("disk full") == true, audio?.lastError ?? "")
        XCTAssertEqual(fixture.server.requests(path: "/a.mp3").count, 1, "a full disk is not retried")
        XCTAssertGreaterThan(fixture.partSize("audio-\(audio?.id ?? 0).part"), 100_000)
        XCTAssertEqual(fixture.songFiles(), [])
    }
}

/// N of a request's `Range: bytes=N-`.
func rangeStart(_ request: TestHTTPServer.Request) -> Int? {
    guard let range = request["range"], range.hasPrefix("bytes="), range.hasSuffix("-") else { return nil }
    return Int(range.dropFirst(6).dropLast())
}

/// The id of a process that has exited.
func deadProcessId() throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    process.waitUntilExit()
    return process.processIdentifier
}

/// Polls `condition` for up to `seconds`.
func waitFor(_ seconds: Double = 10, _ condition: () throws -> Bool) async throws {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if try condition() { return }
        try await Task.sleep(nanoseconds: 20_000_000)
    }
    XCTFail("condition not met within \(seconds) s")
}
