import Foundation
import XCTest
import XZAudio
import XZCatalogue
@testable import XZDownloader
import XZPlaybackEngine
import XZPlaybackValues
import XZTestSupport

/// Playing catalogue songs and URLs while they download, on the loopback server with throttling and faults.
final class OnlinePlayTests: XCTestCase {
    /// A player whose stream items come through `manager`: catalogue songs by their audio URL, others not kept.
    private func player(_ fixture: DownloadFixture, _ manager: DownloadManager, out: String, log: StreamEventLog,
                        prebuffer: Double = 1) -> Player {
        let database = fixture.database
        let player = Player(output: RawFileOutput(path: out), streams: { item in
            if let song = try? database.song(audioURL: item.path) { return try manager.openStream(song: song) }
            return try manager.openStream(url: item.path)
        }, onEvent: { log.append($0) })
        player.prebufferSeconds = prebuffer
        return player
    }

    /// Plays `items` through a player streaming from `manager` until it finishes, then shuts the player and,
    /// once its downloads settle, the manager down; false when the player did not finish in time.
    private func playToEnd(_ items: [QueueItem], _ fixture: DownloadFixture, _ manager: DownloadManager, out: String,
                           log: StreamEventLog) async -> Bool {
        let player = player(fixture, manager, out: out, log: log)
        player.play(items)
        let done = await finished(player)
        player.shutdown()
        await manager.waitUntilIdle()
        await manager.shutdown()
        return done
    }

    private func item(_ song: Song) -> QueueItem {
        QueueItem(songId: song.id, songKey: song.songKey, path: song.audioURL, title: song.title, singer: song.singer)
    }

    private func mpg123(_ data: Data, in folder: TemporaryFolder) throws -> Data {
        let path = folder.path("reference-\(UUID().uuidString).mp3")
        try data.write(to: URL(fileURLWithPath: path))
        return try TestProcess.runChecked("mpg123", ["-q", "-s", path]).stdoutData
    }

    /// A 60 s 128 kbps song served at 32 KB/s (30 s to download) is heard well under a second after play.
    func testFirstSampleComesLongBeforeTheDownloadEnds() async throws {
        let body = try MP3Bodies.make(seconds: 60, frequency: 440)
        let fixture = try DownloadFixture { request, _ in
            var response = TestHTTPServer.file(body, request: request)
            response.chunk = 4096
            response.delay = 0.125
            return response
        }
        try fixture.addSongs([songFields("slow", url: fixture.server.url("/slow.mp3"))])
        let manager = fixture.manager()
        let log = StreamEventLog()
        let folder = try TemporaryFolder("online-first")
        let player = player(fixture, manager, out: folder.path("out.raw"), log: log, prebuffer: 0.5)
        let asked = Date()
        player.play([item(try fixture.song("slow"))])
        let started = await log.wait(timeout: 10) { $0.contains { if case .started = $0 { return true } else { return false } } }
        XCTAssertTrue(started)
        let firstSample = Date().timeIntervalSince(asked)
        XCTAssertLessThan(firstSample, 1.0, "first sample after \(firstSample) s")
        XCTAssertLessThan(fixture.server.bytesSent(path: "/slow.mp3"), body.count / 10, "long before the download completes")
        player.shutdown()
        await manager.shutdown()
    }

    /// The whole streamed song comes out exactly as `mpg123 -s` decodes the file; then the song is offline,
    /// its file byte-exact, and the file was sent once.
    func testStreamedSongPlaysExactlyAndBecomesTheOfflineCopy() async throws {
        let body = try MP3Bodies.make(seconds: 8, frequency: 520)
        let fixture = try DownloadFixture { request, _ in
            var response = TestHTTPServer.file(body, request: request)
            response.chunk = 16384
            response.delay = 0.02
            return response
        }
        try fixture.addSongs([songFields("s", url: fixture.server.url("/s.mp3"), extra: ["sha256": sha256Hex(body)])])
        let manager = fixture.manager()
        let log = StreamEventLog()
        let folder = try TemporaryFolder("online-exact")
        let out = folder.path("out.raw")
        let done = try await playToEnd([item(fixture.song("s"))], fixture, manager, out: out, log: log)
        XCTAssertTrue(done)

        XCTAssertEqual(log.errors, [])
        XCTAssertTrue(try Data(contentsOf: URL(fileURLWithPath: out)) == (try mpg123(body, in: folder)), "streamed output differs from mpg123 -s")
        let song = try fixture.song("s")
        XCTAssertTrue(song.isLocal, "the streamed song is offline now")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: song.localPath)), body)
        XCTAssertEqual(fixture.server.requests(path: "/s.mp3").count, 1)
        XCTAssertEqual(fixture.server.bytesSent(path: "/s.mp3"), body.count, "fetched once")
        XCTAssertEqual(fixture.partFiles(), [])
        // Played again, it is the offline file: nothing more is fetched.
        let again = Player(output: RawFileOutput(path: folder.path("again.raw")), streams: { _ in try manager.openStream(song: song) })
        again.play([item(song)])
        let doneagain = await finished(again)
        XCTAssertTrue(doneagain)
        again.shutdown()
        XCTAssertEqual(fixture.server.requests(path: "/s.mp3").count, 1)
    }

    /// A connection dropped mid-song and a 500 after it: the player hears at most a pause, the output and the
    /// offline file are exact, and the bytes fetched are the file's plus at most what the drop lost.
    func testDropAndServerErrorWhilePlayingAreSurvived() async throws {
        let body = try MP3Bodies.make(seconds: 8, frequency: 600)
        let fixture = try DownloadFixture { request, index in
            if index == 1 { return .text(500, "busy") }
            var response = TestHTTPServer.file(body, request: request)
            response.chunk = 16384
            response.delay = 0.01
            if index == 0 { response.dropAfter = body.count * 2 / 5 }
            return response
        }
        try fixture.addSongs([songFields("d", url: fixture.server.url("/d.mp3"), extra: ["sha256": sha256Hex(body)])])
        let manager = fixture.manager()
        let log = StreamEventLog()
        let folder = try TemporaryFolder("online-faults")
        let out = folder.path("out.raw")
        let done = try await playToEnd([item(fixture.song("d"))], fixture, manager, out: out, log: log)
        XCTAssertTrue(done)

        XCTAssertEqual(log.errors, [])
        XCTAssertTrue(try Data(contentsOf: URL(fileURLWithPath: out)) == (try mpg123(body, in: folder)), "output after faults differs")
        let song = try fixture.song("d")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: song.localPath)), body)
        let requests = fixture.server.requests(path: "/d.mp3")
        XCTAssertEqual(requests.count, 3)
        XCTAssertEqual(requests[2]["range"], "bytes=\(body.count * 2 / 5)-", "resumed where the drop left off")
        XCTAssertLessThanOrEqual(fixture.server.bytesSent(path: "/d.mp3"), body.count + 16384)
    }

    /// A seek to 90 % of a song on a slow link is answered from a Range request at once; the gap before it
    /// is filled afterwards, the file ends byte-exact and offline, and nothing is fetched twice.
    func testFarSeekIsAnsweredFromARangeRequest() async throws {
        let body = try MP3Bodies.make(seconds: 20, frequency: 480)
        let fixture = try DownloadFixture { request, index in
            var response = TestHTTPServer.file(body, request: request)
            // The first answer crawls (10 s for the file); the ones after the seek come quickly.
            response.chunk = 4096
            response.delay = index == 0 ? 0.125 : 0.002
            return response
        }
        try fixture.addSongs([songFields("far", url: fixture.server.url("/far.mp3"), extra: ["sha256": sha256Hex(body)])])
        let manager = fixture.manager()
        let log = StreamEventLog()
        let folder = try TemporaryFolder("online-seek")
        let player = player(fixture, manager, out: folder.path("out.raw"), log: log, prebuffer: 0.5)
        player.play([item(try fixture.song("far"))])
        let started = await log.wait(timeout: 10) { $0.contains { if case .started = $0 { return true } else { return false } } }
        XCTAssertTrue(started)
        player.pause()
        let seekAt = Date()
        player.seek(.percent(90))
        player.resume()
        let resumed = await log.wait(timeout: 10) { $0.contains { if case .buffered = $0 { return true } else { return false } } }
        XCTAssertTrue(resumed, "\(log.events)")
        XCTAssertLessThan(Date().timeIntervalSince(seekAt), 2, "resumed from the Range answer, not the whole file")
        let ranges = fixture.server.requests(path: "/far.mp3").compactMap { $0["range"] }
        let first = try XCTUnwrap(ranges.first.flatMap { Int($0.dropFirst(6).dropLast()) }, "\(ranges)")
        XCTAssertGreaterThan(first, body.count * 8 / 10, "the first Range asks near the seek point")
        let donePlaying = await finished(player)
        XCTAssertTrue(donePlaying)
        player.shutdown()
        await manager.waitUntilIdle()
        await manager.shutdown()
        XCTAssertEqual(log.errors, [])
        let song = try fixture.song("far")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: song.localPath)), body)
        XCTAssertLessThanOrEqual(fixture.server.bytesSent(path: "/far.mp3"), body.count + 64 * 1024, "the gaps were filled, nothing twice")
    }

    /// A server that ignores Range: after a drop the file comes again from its start; the player waits for
    /// its place to come round again and the output and the offline file are still exact.
    func testServerIgnoringRangeWhilePlaying() async throws {
        let body = try MP3Bodies.make(seconds: 6, frequency: 660)
        let fixture = try DownloadFixture { request, index in
            var response = TestHTTPServer.file(body, request: request, honourRange: false)
            response.chunk = 16384
            response.delay = 0.005
            if index == 0 { response.dropAfter = body.count / 2 }
            return response
        }
        try fixture.addSongs([songFields("i", url: fixture.server.url("/i.mp3"), extra: ["sha256": sha256Hex(body)])])
        let manager = fixture.manager()
        let log = StreamEventLog()
        let folder = try TemporaryFolder("online-norange")
        let out = folder.path("out.raw")
        let player = player(fixture, manager, out: out, log: log)
        player.play([item(try fixture.song("i"))])
        let done = await finished(player)
        XCTAssertTrue(done)
        player.shutdown()
        await manager.waitUntilIdle()
        await manager.shutdown()
        XCTAssertEqual(log.errors, [])
        XCTAssertTrue(try Data(contentsOf: URL(fileURLWithPath: out)) == (try mpg123(body, in: folder)))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try fixture.song("i").localPath)), body)
    }

    /// A far seek on a server that ignores Range: the whole file comes again and only what is missing is
    /// written; the file still ends exact.
    func testFarSeekOnAServerIgnoringRange() async throws {
        let body = try MP3Bodies.make(seconds: 12, frequency: 740)
        let fixture = try DownloadFixture { request, index in
            var response = TestHTTPServer.file(body, request: request, honourRange: false)
            response.chunk = 4096
            response.delay = index == 0 ? 0.1 : 0.001
            return response
        }
        try fixture.addSongs([songFields("n", url: fixture.server.url("/n.mp3"), extra: ["sha256": sha256Hex(body)])])
        let manager = fixture.manager()
        let log = StreamEventLog()
        let folder = try TemporaryFolder("online-norange-seek")
        let player = player(fixture, manager, out: folder.path("out.raw"), log: log, prebuffer: 0.5)
        player.play([item(try fixture.song("n"))])
        let started = await log.wait(timeout: 10) { $0.contains { if case .started = $0 { return true } else { return false } } }
        XCTAssertTrue(started)
        player.seek(.percent(80))
        let done = await finished(player, timeout: 20)
        XCTAssertTrue(done)
        player.shutdown()
        guard done else { return await manager.shutdown() }
        await manager.waitUntilIdle()
        await manager.shutdown()
        XCTAssertEqual(log.errors, [])
        XCTAssertTrue(log.events.contains { if case .seeked = $0 { return true } else { return false } })
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try fixture.song("n").localPath)), body)
    }

    /// A song already downloading plays from that download: one request, no second transfer.
    func testASongThatIsDownloadingPlaysFromThatDownload() async throws {
        let body = try MP3Bodies.make(seconds: 6, frequency: 700)
        let fixture = try DownloadFixture { request, _ in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            var response = TestHTTPServer.file(body, request: request)
            response.chunk = 8192
            response.delay = 0.02
            return response
        }
        try fixture.addSongs([songFields("w", url: fixture.server.url("/w.mp3"))])
        let manager = fixture.manager()
        try await manager.enqueue(songs: [try fixture.song("w")])
        await manager.run()
        let deadline = Date().addingTimeInterval(10)
        while fixture.server.bytesSent(path: "/w.mp3") == 0, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        let log = StreamEventLog()
        let folder = try TemporaryFolder("online-shared")
        let out = folder.path("out.raw")
        let done = try await playToEnd([item(fixture.song("w"))], fixture, manager, out: out, log: log)
        XCTAssertTrue(done)
        XCTAssertEqual(log.errors, [])
        XCTAssertEqual(fixture.server.requests(path: "/w.mp3").count, 1)
        XCTAssertTrue(try Data(contentsOf: URL(fileURLWithPath: out)) == (try mpg123(body, in: folder)))
        XCTAssertTrue(try fixture.song("w").isLocal)
    }

    /// A 404 and a host that refuses connections each fail with one line naming the host, and the queue goes
    /// on to the song after them.
    func testNotFoundAndNoNetworkFailWithOneLineAndTheQueueGoesOn() async throws {
        let body = try MP3Bodies.small()
        let fixture = try DownloadFixture { request, _ in
            if request.path == "/gone.mp3" { return .text(404, "no") }
            return TestHTTPServer.file(body, request: request)
        }
        // A port nothing listens on: a closed server's.
        let closed = try TestHTTPServer { _, _ in .text(200, "") }
        let deadURL = closed.url("/x.mp3")
        closed.stop()
        fixture.settings.idleTimeout = 1  // the refused connection is given up after one connect timeout
        try fixture.addSongs([songFields("gone", url: fixture.server.url("/gone.mp3")),
                              songFields("ok", url: fixture.server.url("/ok.mp3"))])
        let manager = fixture.manager()
        let log = StreamEventLog()
        let folder = try TemporaryFolder("online-fail")
        let done = try await playToEnd([item(fixture.song("gone")), QueueItem(path: deadURL), item(fixture.song("ok"))],
                                       fixture, manager, out: folder.path("out.raw"), log: log)
        XCTAssertTrue(done)
        let errors = log.errors
        XCTAssertEqual(errors.count, 2, "\(errors)")
        XCTAssertTrue(errors.allSatisfy { !$0.contains("\n") })
        XCTAssertTrue(errors.first?.contains("HTTP 404") == true, "\(errors)")
        XCTAssertTrue(errors.last?.contains("127.0.0.1") == true, "names the host: \(errors)")
        XCTAssertTrue(log.events.contains { if case .ended(let item, .completed, _) = $0 { return item.path.hasSuffix("/ok.mp3") } else { return false } })
        XCTAssertFalse(try fixture.song("gone").isLocal)
        XCTAssertTrue(fixture.partFiles().allSatisfy { !$0.hasPrefix("stream-") }, "a stream that is not kept leaves nothing")
    }
}

/// Events from the audio thread.
final class StreamEventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [PlayerEvent] = []

    func append(_ event: PlayerEvent) { lock.withLock { list.append(event) } }
    var events: [PlayerEvent] { lock.withLock { list } }

    var errors: [String] {
        events.compactMap { if case .error(let file, let message) = $0 { return "\(file): \(message)" } else { return nil } }
    }

    func wait(timeout: TimeInterval, until predicate: ([PlayerEvent]) -> Bool) async -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if predicate(events) { return true }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return predicate(events)
    }
}

/// Waits for the queue to finish without holding a thread of the cooperative pool.
func finished(_ player: Player, timeout: TimeInterval = 30) async -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while Date() < deadline {
        if player.waitUntilFinished(timeout: 0) { return true }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return false
}

/// `play --keep` on a URL outside the catalogue.
final class KeptStreamTests: XCTestCase {
    /// A kept URL plays, and its file lands under songs/ by its tags and is imported as a local song.
    func testAKeptURLBecomesALocalSong() async throws {
        let folder = try TemporaryFolder("online-keep")
        let path = try AudioFixtures.makeMP3(at: folder.path("kept.mp3"), seconds: 2,
                                            tags: AudioFixtures.Tags(title: "Kept Tune", artist: "Streamer", album: "Live"))
        let body = try Data(contentsOf: URL(fileURLWithPath: path))
        let fixture = try DownloadFixture { request, _ in TestHTTPServer.file(body, request: request) }
        let manager = fixture.manager()
        let log = StreamEventLog()
        let url = fixture.server.url("/radio/kept.mp3")
        let player = Player(output: RawFileOutput(path: folder.path("out.raw")), streams: { item in try manager.openStream(url: item.path, keep: true) },
                            onEvent: { log.append($0) })
        player.play([QueueItem(path: url)])
        let done = await finished(player)
        XCTAssertTrue(done)
        player.shutdown()
        await manager.finishKeptStreams()
        await manager.shutdown()
        XCTAssertEqual(log.errors, [])
        XCTAssertEqual(fixture.songFiles(), ["songs/Streamer/Live/Kept Tune.mp3"])
        let kept = fixture.library.url.appendingPathComponent("songs/Streamer/Live/Kept Tune.mp3").path
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: kept)), body)
        let song = try fixture.database.song(localPath: FileNaming.realPath(URL(fileURLWithPath: kept)))
        XCTAssertEqual(song?.title, "Kept Tune")
        XCTAssertEqual(fixture.partFiles(), [])
    }
}
