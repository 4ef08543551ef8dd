import Foundation
import XCTest
import XZCatalogue
import XZHostAssembly
import XZProtocol
import XZServer
import XZStats
import XZSystem
import XZTestSupport

/// Internet radio as MPD users have it, against a loopback ICY station sending real encoded audio: the
/// station's title and name in `currentsong` as they change (waking `idle`), a chained Ogg stream's comments
/// likewise, a dropped station called again a bounded number of times, and a hostile station told in one line.
@MainActor
final class InternetRadioTests: XCTestCase {
    private var temp: TemporaryFolder!
    private var library: LibraryFolder!
    private var database: LibraryDatabase!
    private var music: URL!
    private var host: LibraryHost?
    private var mpd: RealMPD?

    override func setUp() async throws {
        temp = try TemporaryFolder("radio")
        music = temp.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        library = LibraryFolder(url: temp.url.appendingPathComponent("library"))
        database = try library.open(seedingDemoFrom: nil)
    }

    override func tearDown() async throws {
        mpd?.stop()
        await host?.stop()
        host = nil
        database = nil
        temp = nil
    }

    /// A serving host (TCP port 0) with `extra` settings, and a client of it.
    private func serve(_ extra: String = "") async throws -> MPDClient {
        let config = try HostConfiguration(config: ConfigFile(parsing: "music_directory = \(music.path)\nport = 0\n" + extra), output: .null)
        let started = try await LibraryHost.start(config, library: library, database: database, listening: .socketAndTCP)
        host = started
        return try MPDClient.connect(host: "127.0.0.1", port: try XCTUnwrap(started.tcpPort))
    }

    /// MP3 as a station sends it: CBR 128 kbit/s, no Xing header (its length would be the file's, not the stream's).
    private func mp3(seconds: Double) throws -> [UInt8] {
        let path = temp.path("station.mp3")
        defer { unlink(path) }
        try AudioFixtures.makeMP3(at: path, seconds: seconds, lameOptions: ["-b", "128", "-t"])
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// One Ogg stream per (title, artist), by oggenc (Vorbis) or opusenc, chained one after the other as a station does.
    private func chainedOgg(_ links: [(title: String, artist: String)], seconds: Double, opus: Bool = false) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for (index, link) in links.enumerated() {
            let wav = temp.path("link\(index).wav"), ogg = temp.path("link\(index).ogg")
            defer { unlink(wav); unlink(ogg) }
            try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "\(seconds)", "sine", "\(440 + 220 * index)", "vol", "0.5"])
            if opus {
                try TestProcess.runChecked("opusenc", ["--quiet", "--title", link.title, "--artist", link.artist, wav, ogg])
            } else {
                try TestProcess.runChecked("oggenc", ["--quiet", "-q", "1", "-t", link.title, "-a", link.artist, "-o", ogg, wav])
            }
            bytes += Array(try Data(contentsOf: URL(fileURLWithPath: ogg)))
        }
        return bytes
    }

    private func answer(_ client: MPDClient, _ command: String) -> [String: String] {
        Dictionary((try? client.run(command))?.map { ($0.key, $0.value) } ?? [], uniquingKeysWith: { first, _ in first })
    }

    private func waitFor(_ client: MPDClient, _ command: String, timeout: TimeInterval = 20,
                         _ condition: ([String: String]) -> Bool) -> [String: String] {
        var last: [String: String] = [:]
        _ = eventually(timeout: timeout) {
            last = answer(client, command)
            return condition(last)
        }
        return last
    }

    private nonisolated static let stationHead = "HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\nicy-name: Loopback FM\r\nicy-br: 128"

    func testTheStationsTitleAndNameShowInCurrentSongAndAChangeWakesIdle() async throws {
        let audio = try mp3(seconds: 3)
        // The first title at once, the second after 48 KiB of audio (3 s), with control characters to strip.
        let station = try ICYStation { _, _ in
            ICYStation.Broadcast(head: Self.stationHead, audio: audio, metaint: 4096, block: { n in
                n == 0 ? ICYStation.titleBlock("Artist One - Song A") : n == 12 ? ICYStation.titleBlock("\u{1B}[31mArtist Two\u{7} – Song B") : nil
            })
        }
        let client = try await serve()
        try client.run("add", station.url())
        try client.run("play")
        let first = waitFor(client, "currentsong") { $0["Title"] != nil }
        XCTAssertEqual(first["Title"], "Artist One - Song A")
        XCTAssertEqual(first["Name"], "Loopback FM")
        XCTAssertEqual(first["file"], station.url())
        XCTAssertNil(first["Time"], "a station has no length: \(first)")
        XCTAssertNil(first["duration"])
        XCTAssertTrue(station.requests.first?.contains("Icy-MetaData: 1") ?? false, "the metadata is asked for: \(station.requests)")

        let version = Int(answer(client, "status")["playlist"] ?? "") ?? 0
        // Each idle returns what changed since the last; the one that brings the new title wakes both, as MPD's.
        var woken: [String] = []
        var second: [String: String] = [:]
        for _ in 0 ..< 20 where second["Title"] == nil || second["Title"] == first["Title"] {
            try client.sendLine("idle")
            woken = []
            while let line = try? client.readLine(), line != "OK" { woken.append(line) }
            second = answer(client, "currentsong")
        }
        XCTAssertTrue(woken.contains("changed: player") && woken.contains("changed: playlist"), "as MPD: \(woken)")
        XCTAssertEqual(second["Title"], "[31mArtist Two – Song B", "the control characters go (ESC, BEL)")
        XCTAssertEqual(second["Name"], "Loopback FM")
        XCTAssertGreaterThan(Int(answer(client, "status")["playlist"] ?? "") ?? 0, version, "a new queue version, as MPD's")
        XCTAssertEqual(answer(client, "playlistinfo")["Title"], "[31mArtist Two – Song B", "kept on the queue entry")
        XCTAssertNil(answer(client, "status")["error"])
        try client.run("stop")
        XCTAssertEqual(answer(client, "playlistinfo")["Title"], "[31mArtist Two – Song B", "and still there after it stops, as MPD's")
        station.stop()
    }

    /// A station that says the title in every block (as many SHOUTcast servers do), sent as fast as the host takes
    /// it: the host's buffer runs far ahead of the audio heard, and the title still shows, and changes, with it.
    func testATitleSaidInEveryBlockShowsAndChangesWhileTheBufferRunsAhead() async throws {
        let audio = try mp3(seconds: 3)
        // 12 runs of 4096 bytes make the 3 s of audio: the title changes each time the station goes round.
        let station = try ICYStation { _, _ in
            ICYStation.Broadcast(head: Self.stationHead, audio: audio, metaint: 4096, block: { n in
                ICYStation.titleBlock(n / 12 % 2 == 0 ? "Every Block - Song A" : "Every Block - Song B")
            })
        }
        let client = try await serve()
        try client.run("add", station.url())
        try client.run("play")
        XCTAssertEqual(waitFor(client, "currentsong") { $0["Title"] != nil }["Title"], "Every Block - Song A")
        XCTAssertEqual(waitFor(client, "currentsong") { $0["Title"] == "Every Block - Song B" }["Title"], "Every Block - Song B")
        XCTAssertEqual(waitFor(client, "currentsong") { $0["Title"] == "Every Block - Song A" }["Title"], "Every Block - Song A",
                       "and back as the station goes round again")
        XCTAssertEqual(answer(client, "currentsong")["Name"], "Loopback FM")
        station.stop()
    }

    func testAChainedOggStreamsCommentsAreItsTitleAndArtist() async throws {
        try await checkChainedOgg(opus: false)
    }

    func testAChainedOpusStreamsTagsAreItsTitleAndArtist() async throws {
        try await checkChainedOgg(opus: true)
    }

    private func checkChainedOgg(opus: Bool) async throws {
        let audio = try chainedOgg([("First Title", "First Artist"), ("Second Title", "Second Artist")], seconds: 2, opus: opus)
        let station = try ICYStation { _, _ in
            ICYStation.Broadcast(head: "HTTP/1.0 200 OK\r\nContent-Type: application/ogg\r\nicy-name: Ogg Radio", audio: audio)
        }
        let client = try await serve()
        try client.run("add", station.url())
        try client.run("play")
        let first = waitFor(client, "currentsong") { $0["Title"] != nil }
        XCTAssertEqual(first["Title"], "First Title")
        XCTAssertEqual(first["Artist"], "First Artist")
        XCTAssertEqual(first["Name"], "Ogg Radio")
        let second = waitFor(client, "currentsong") { $0["Title"] == "Second Title" }
        XCTAssertEqual(second["Artist"], "Second Artist", "the next link's comments: \(second)")
        let again = waitFor(client, "currentsong") { $0["Title"] == "First Title" }
        XCTAssertEqual(again["Artist"], "First Artist", "and the first link's again as the station goes round")
        XCTAssertNil(answer(client, "status")["error"])
        station.stop()
    }

    func testADroppedStationIsCalledAgainAndOneThatKeepsDroppingStopsWithAnError() async throws {
        let audio = try mp3(seconds: 3)
        // The first connection ends after 64 KiB; the second plays on.
        let station = try ICYStation { connection, _ in
            ICYStation.Broadcast(head: Self.stationHead, audio: audio, metaint: 4096, block: { n in
                n == 0 ? ICYStation.titleBlock("Connection \(connection)") : nil
            }, dropAfter: connection == 0 ? 64 << 10 : nil)
        }
        let client = try await serve()
        try client.run("add", station.url())
        try client.run("play")
        let reconnected = waitFor(client, "currentsong") { $0["Title"] == "Connection 1" }
        XCTAssertEqual(reconnected["Title"], "Connection 1", "called again after the drop: \(station.requests.count) requests")
        let status = answer(client, "status")
        XCTAssertEqual(status["state"], "play")
        XCTAssertNil(status["error"])
        station.stop()

        // A station that drops every connection after a few bytes is called `retries` more times, then given up.
        let flapping = try ICYStation { _, _ in
            ICYStation.Broadcast(head: Self.stationHead, audio: audio, metaint: 4096, dropAfter: 2048)
        }
        try client.run("clear")
        try client.run("add", flapping.url())
        try client.run("play")
        let stopped = waitFor(client, "status", timeout: 30) { $0["error"] != nil }
        XCTAssertEqual(flapping.requests.count, 6, "the first call and 5 more (retries)")
        let error = try XCTUnwrap(stopped["error"])
        XCTAssertTrue(error.contains("closed the connection") && error.contains("gave up after 6 attempts"), error)
        XCTAssertEqual(waitFor(client, "status") { $0["state"] == "stop" }["state"], "stop")
        flapping.stop()
    }

    func testAHostileStationGetsOneLineAndNoCrash() async throws {
        let audio = try mp3(seconds: 3)
        let client = try await serve("retries = 0\nmin_rate_window = 1\n")
        func play(_ station: ICYStation) throws {
            try client.run("clear")
            try client.run("clearerror")
            try client.run("add", station.url())
            try client.run("play")
        }
        // icy-metaint that is no byte count: one line naming it, and nothing plays.
        for bad in ["-5", "abc", "99999999999999999999999", "2000000"] {
            let station = try ICYStation { _, _ in
                ICYStation.Broadcast(head: Self.stationHead + "\r\nicy-metaint: \(bad)", audio: audio)
            }
            try play(station)
            let status = waitFor(client, "status") { $0["error"] != nil }
            let error = try XCTUnwrap(status["error"], bad)
            XCTAssertTrue(error.contains("icy-metaint") && error.contains("no byte count"), error)
            XCTAssertFalse(error.contains("\n"))
            station.stop()
        }
        // metaint 0 is a station that sends no metadata: it plays.
        let plain = try ICYStation { _, _ in
            ICYStation.Broadcast(head: Self.stationHead + "\r\nicy-metaint: 0", audio: audio)
        }
        try play(plain)
        let playing = waitFor(client, "currentsong") { $0["Name"] != nil }
        XCTAssertEqual(playing["Name"], "Loopback FM")
        XCTAssertNil(playing["Title"])
        plain.stop()

        // Garbage blocks of the largest size, then a title: the garbage is no title, the audio still decodes.
        let garbage = try ICYStation { _, _ in
            ICYStation.Broadcast(head: Self.stationHead, audio: audio, metaint: 4096, block: { n in
                n == 8 ? ICYStation.titleBlock("After Garbage") : [255] + (0 ..< 16 * 255).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ n) }
            })
        }
        try play(garbage)
        let titled = waitFor(client, "currentsong") { $0["Title"] != nil }
        XCTAssertEqual(titled["Title"], "After Garbage")
        XCTAssertNil(answer(client, "status")["error"])
        garbage.stop()

        // Headers without end: the client's cap ends it with one line.
        let endless = try ICYStation { _, _ in
            let junk = (0 ..< 4000).map { "X-Junk-\($0): " + String(repeating: "j", count: 40) }.joined(separator: "\r\n")
            return ICYStation.Broadcast(head: Self.stationHead + "\r\n" + junk, audio: audio)
        }
        try play(endless)
        let refused = waitFor(client, "status") { $0["error"] != nil }
        XCTAssertNotNil(refused["error"])
        XCTAssertFalse(refused["error"]?.contains("\n") ?? true)
        endless.stop()

        // A drip of 200 bytes a second: under the minimum rate (1024), one line.
        let drip = try ICYStation { _, _ in
            ICYStation.Broadcast(head: Self.stationHead, audio: audio, metaint: 4096, bytesPerSecond: 200)
        }
        try play(drip)
        let slow = waitFor(client, "status") { $0["error"] != nil }
        XCTAssertTrue(slow["error"]?.contains("sent less than 1024 bytes a second") ?? false, "\(slow)")
        drip.stop()
        XCTAssertEqual(answer(client, "ping"), [:], "the host goes on")
    }

    func testAStationIsNoPlayButItsListeningTimeIsKept() async throws {
        let audio = try mp3(seconds: 3)
        let station = try ICYStation { _, _ in
            ICYStation.Broadcast(head: Self.stationHead, audio: audio, metaint: 4096, block: { n in
                n == 0 ? ICYStation.titleBlock("Artist One - Song A") : nil
            })
        }
        let client = try await serve()
        try client.run("add", station.url())
        try client.run("play")
        _ = waitFor(client, "status") { (Double($0["elapsed"] ?? "") ?? 0) >= 2 }
        try client.run("stop")
        let stats = StatsStore(database: database)
        var stations: [StationListening] = []
        XCTAssertTrue(eventually(timeout: 10) {
            stations = (try? stats.stations()) ?? []
            return stations.first.map { $0.listenedMs >= 2000 } ?? false
        }, "\(stations)")
        XCTAssertEqual(stations.map(\.url), [station.url()])
        XCTAssertEqual(stations.first?.name, "Loopback FM")
        XCTAssertEqual(stations.first?.sessions, 1)
        let summary = try stats.summary()
        XCTAssertEqual(summary.plays, 0, "a station is never a song play")
        XCTAssertEqual(summary.listenedMs, 0)
        XCTAssertEqual(try stats.history(limit: 10).count, 0, "nor a play session")
        XCTAssertEqual(summary.stations, stations)
        let text = StatsText.summary(summary)
        XCTAssertTrue(text.contains("Radio stations") && text.contains { $0.contains("Loopback FM") }, "\(text)")
        station.stop()
    }

    /// A SHOUTcast v1 server's `ICY 200 OK` status line is taken as `HTTP/1.0 200 OK` (as libcurl, and so MPD, take
    /// it): the station plays with its name and title, as real MPD 0.23 shows them.
    func testAStationAnsweringICY200OKPlaysWithItsNameAndTitleAsMPDs() async throws {
        let audio = try mp3(seconds: 3)
        let station = try ICYStation { _, _ in
            ICYStation.Broadcast(head: ICYStation.shoutcastV1Head(name: "Loopback FM"), audio: audio, metaint: 4096, block: { n in
                n == 0 ? ICYStation.titleBlock("Artist One - Song A") : nil
            }, bytesPerSecond: 32000)
        }
        let ours = try await serve()
        try ours.run("add", station.url())
        try ours.run("play")
        let playing = waitFor(ours, "currentsong") { $0["Title"] != nil }
        XCTAssertEqual(playing["Title"], "Artist One - Song A")
        XCTAssertEqual(playing["Name"], "Loopback FM")
        func elapsed(_ status: [String: String]) -> Double { Double(status["elapsed"] ?? "") ?? 0 }
        let first = waitFor(ours, "status") { elapsed($0) > 0 }
        let later = waitFor(ours, "status") { elapsed($0) >= elapsed(first) + 1 }
        XCTAssertEqual(later["state"], "play")
        XCTAssertGreaterThanOrEqual(elapsed(later), elapsed(first) + 1, "elapsed advances: \(first) then \(later)")
        XCTAssertNil(later["error"])

        let real = try RealMPD(folder: temp, music: music, playlists: temp.path("mpd-playlists"))
        mpd = real
        let theirs = try real.connect()
        try theirs.run("add", station.url())
        try theirs.run("play")
        _ = waitFor(theirs, "currentsong") { $0["Title"] != nil }
        XCTAssertEqual(answer(theirs, "status")["state"], "play")
        XCTAssertEqual(RealMPD.answer(ours, "currentsong"), RealMPD.answer(theirs, "currentsong"))
        station.stop()
    }

    /// Real MPD 0.23 and our host list the same `currentsong` for one station.
    func testCurrentSongOfAStationIsMPDs() async throws {
        let audio = try mp3(seconds: 3)
        let station = try ICYStation { _, _ in
            ICYStation.Broadcast(head: Self.stationHead, audio: audio, metaint: 4096, block: { n in
                n == 0 ? ICYStation.titleBlock("Artist One - Song A") : nil
            }, bytesPerSecond: 32000)
        }
        let ours = try await serve()
        let real = try RealMPD(folder: temp, music: music, playlists: temp.path("mpd-playlists"))
        mpd = real
        let theirs = try real.connect()
        for client in [ours, theirs] {
            try client.run("add", station.url())
            try client.run("play")
            _ = waitFor(client, "currentsong") { $0["Title"] != nil }
        }
        XCTAssertEqual(RealMPD.answer(ours, "currentsong"), RealMPD.answer(theirs, "currentsong"))
        XCTAssertEqual(RealMPD.answer(ours, "playlistinfo"), RealMPD.answer(theirs, "playlistinfo"))
        station.stop()
    }
}
