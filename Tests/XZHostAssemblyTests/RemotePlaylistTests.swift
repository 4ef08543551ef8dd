import Foundation
import XCTest
import XZCatalogue
import XZHostCore
import XZHostAssembly
import XZProtocol
import XZServer
import XZSystem
import XZTestSupport

/// `load URL` of a remote .m3u, .pls or .xspf, through a started host's downloader against a loopback
/// server on port 0: its lines are queued as MPD's playlist plugins queue them, and a hostile server
/// (too large, silent, no playlist, a redirect loop, an error) gets one line and queues nothing.
@MainActor
final class RemotePlaylistTests: XCTestCase {
    private var temp: TemporaryFolder!
    private var server: TestHTTPServer!
    private var running: LibraryHost!
    private var client: MPDClient!

    override func setUp() async throws {
        temp = try TemporaryFolder("remote-playlists")
        let music = temp.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("album"), withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: music.appendingPathComponent("album/1.mp3").path, seconds: 1,
                                  tags: .init(title: "Song 1", artist: "Artist"))
        let musicPath = music.path
        server = try TestHTTPServer { request, _ in
            switch request.path {
            case "/lists/good.m3u":
                return .text(200, "#EXTM3U\n#EXTINF:-1,Radio\nhttp://127.0.0.1:9/radio.mp3\nrel/b.mp3\n/etc/passwd\n"
                             + "file://\(musicPath)/album/1.mp3\nfile:///etc/passwd\nalbum/1.mp3\n", type: "application/octet-stream")
            case "/radio":
                return .text(200, "[playlist]\nNumberOfEntries=1\nFile1=http://127.0.0.1:9/station\n", type: "audio/x-scpls")
            case "/list.xspf":
                return .text(200, "<playlist><trackList><track><location>x.ogg</location></track></trackList></playlist>",
                             type: "text/xml")
            case "/huge.m3u":
                var response = TestHTTPServer.Response.text(200, String(repeating: "http://127.0.0.1:9/a.mp3\n", count: 4_096),
                                                            type: "audio/x-mpegurl")
                response.endless = true
                return response
            case "/silent.m3u":
                var response = TestHTTPServer.Response.text(200, "http://127.0.0.1:9/a.mp3\n", type: "audio/x-mpegurl")
                response.stallAfter = 5
                response.stallSeconds = 30
                return response
            case "/page": return .text(200, "<html>not a list</html>", type: "text/html")
            case "/loop.m3u": return .redirect(to: "/loop.m3u")
            default: return .text(404, "no")
            }
        }
        let library = LibraryFolder(url: temp.url.appendingPathComponent("library"))
        let configuration = try HostConfiguration(
            config: ConfigFile(parsing: "music_directory = \(music.path)\nport = 0\ntimeout = 0.5\nretries = 0\n"), output: .null)
        running = try await LibraryHost.start(configuration, library: library, database: try library.open(seedingDemoFrom: nil),
                                              listening: .socketAndTCP)
        client = try MPDClient.connect(host: "127.0.0.1", port: try XCTUnwrap(running.tcpPort))
        _ = try client.run("update")
        running.host.updates.wait()
    }

    override func tearDown() async throws {
        client?.disconnect()
        await running?.stop()
        server?.stop()
        temp = nil
    }

    /// The answer's lines, or its ACK as one line.
    private func answer(_ line: String) -> [String] {
        do {
            try client.sendLine(line)
            return try client.readResponse().map { "\($0.key): \($0.value)" }
        } catch let error as MPDError {
            return ["ACK \(error.code.rawValue) {\(error.command ?? "")} \(error.message)"]
        } catch {
            return ["\(error)"]
        }
    }

    func testListsAreQueuedAsMPDsPlaylistPluginsQueueThem() async throws {
        let good = server.url("/lists/good.m3u")
        // By suffix (the server's type says nothing); relative lines against the list's address; local
        // files only where they are catalogue songs.
        XCTAssertEqual(answer("load \(good)"), [])
        XCTAssertEqual(answer("playlist"), ["0:file: http://127.0.0.1:9/radio.mp3", "1:file: \(server.url("/lists/rel/b.mp3"))",
                                            "2:file: album/1.mp3", "3:file: \(server.url("/lists/album/1.mp3"))"])
        XCTAssertEqual(answer("listplaylist \(good)"), ["file: http://127.0.0.1:9/radio.mp3", "file: \(server.url("/lists/rel/b.mp3"))",
                                                        "file: /etc/passwd", "file: album/1.mp3", "file: /etc/passwd",
                                                        "file: \(server.url("/lists/album/1.mp3"))"])
        // By Content-Type, whatever the address says.
        _ = answer("clear")
        XCTAssertEqual(answer("load \(server.url("/radio"))"), [])
        XCTAssertEqual(answer("load \(server.url("/list.xspf"))"), [])
        XCTAssertEqual(answer("playlist"), ["0:file: http://127.0.0.1:9/station", "1:file: \(server.url("/x.ogg"))"])
    }

    func testAHostileServerGetsOneLineAndQueuesNothing() async throws {
        _ = answer("clear")
        let cases: [(String, String)] = [
            ("/huge.m3u", "larger than"), ("/silent.m3u", "no data"), ("/page", "no .m3u, .pls or .xspf playlist"),
            ("/loop.m3u", "redirect"), ("/gone.m3u", "HTTP 404"),
        ]
        for (path, why) in cases {
            let lines = answer("load \(server.url(path))")
            XCTAssertEqual(lines.count, 1, path)
            XCTAssertTrue(lines.first?.hasPrefix("ACK 50 {load} No such playlist: ") ?? false, "\(path): \(lines)")
            XCTAssertTrue(lines.first?.contains(why) ?? false, "\(path): \(lines)")
            XCTAssertEqual(answer("playlist"), [], path)
        }
        XCTAssertEqual(answer("status").first { $0.hasPrefix("playlistlength") }, "playlistlength: 0")
    }
}
