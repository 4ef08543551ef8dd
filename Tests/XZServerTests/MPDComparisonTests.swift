import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Real MPD (null output, software mixer) and this host on the same folder, sent the same requests:
/// the answers must agree wherever the two hold the same facts.
final class MPDComparisonTests: XCTestCase {
    var folder: TemporaryFolder!
    var mpd: RunningProcess?
    var host: PlayerHost!
    var server: ProtocolServer!

    override func tearDown() {
        mpd?.signal(SIGTERM)
        _ = mpd?.finish()
        server?.shutdown()
        host?.shutdown()
        folder = nil
    }

    func testTheSameRequestsGetTheSameAnswers() throws {
        folder = try TemporaryFolder("compare")
        let music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("album"), withIntermediateDirectories: true)
        for index in 1...3 {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("album/\(index).mp3").path, seconds: 6,
                                      tags: .init(title: "Song \(index)", artist: "Artist", album: "Album", track: index))
        }
        let mpdPort = try RealMPD.freePort()
        let config = """
            music_directory "\(music.path)"
            db_file "\(folder.path("mpd.db"))"
            pid_file "\(folder.path("mpd.pid"))"
            bind_to_address "127.0.0.1"
            port "\(mpdPort)"
            audio_output {
                type "null"
                name "null"
                mixer_type "software"
            }
            """
        try config.write(toFile: folder.path("mpd.conf"), atomically: true, encoding: .utf8)
        mpd = try RunningProcess(try TestProcess.which("mpd"), ["--no-daemon", folder.path("mpd.conf")],
                                 environment: ProcessInfo.processInfo.environment)
        var reference: MPDClient?
        let deadline = Date(timeIntervalSinceNow: 10)
        while reference == nil, Date() < deadline {
            reference = try? MPDClient.connect(host: "127.0.0.1", port: mpdPort)
            if reference == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        let real = try XCTUnwrap(reference, "mpd did not start: \(mpd?.stderr ?? "")")
        try TestProcess.runChecked("mpc", ["-p", "\(mpdPort)", "update", "--wait"])

        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        host = PlayerHost(folder: library, database: try library.open(seedingDemoFrom: nil), output: .null,
                          musicDirectory: music) { _ in }
        server = ProtocolServer(host: host, password: nil)
        let ours = try MPDClient.connect(host: "127.0.0.1", port: try server.listen(host: "127.0.0.1", port: 0))

        /// Lines of both answers, or the ACK line, minus what only one side can know.
        func answer(_ client: MPDClient, _ line: String) -> [String] {
            do {
                try client.sendLine(line)
                return try client.readResponse().map { "\($0.key): \($0.value)" }
                    .filter { !["Format", "duration", "bitrate", "audio", "elapsed", "time", "Last-Modified",
                                "playlist", "uptime", "playtime", "db_update", "Id", "songid", "nextsongid"]
                        .contains(String($0.prefix { $0 != ":" })) }
            } catch let error as MPDError {
                return ["ACK \(error.code.rawValue) {\(error.command ?? "")} \(error.message)"]
            } catch {
                return ["\(error)"]
            }
        }
        let script = [
            "status", "add album/1.mp3", "add album/2.mp3", "addid album/3.mp3 0", "status", "playlistinfo",
            "play 1", "status", "currentsong", "pause 1", "status", "random 1", "repeat 1", "single oneshot",
            "consume 1", "setvol 40", "status", "random 0", "single 0", "consume 0", "move 0 2", "playlistinfo",
            "swap 0 1", "playlistfind Title \"Song 3\"", "playlistsearch title \"song\"", "delete 0:1", "status",
            "stop", "status", "clear", "status", "getvol", "playlistinfo 1:0", "play 9", "playid 999", "setvol 300",
            "seek 0 abc", "add \"x", "frobnicate", "add nothere.mp3", "repeat 2", "single 2", "delete 7",
        ]
        for line in script {
            XCTAssertEqual(answer(ours, line), answer(real, line), line)
            if line.hasPrefix("play ") || line.hasPrefix("pause") { Thread.sleep(forTimeInterval: 0.3) }
        }
    }
}
