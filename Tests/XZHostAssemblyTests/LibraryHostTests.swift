import Foundation
import XCTest
import XZCatalogue
import XZHostCore
import XZHostAssembly
import XZMPDCommands
import XZPlaybackEngine
import XZServer
import XZSystem
import XZTestSupport

/// A library's host started from a configuration, as `serve`, a hosting prompt and `play --output` start
/// it: real sockets, a real state file, the command table in process.
@MainActor
final class LibraryHostTests: XCTestCase {
    private var temp: TemporaryFolder!
    private var library: LibraryFolder!
    private var database: LibraryDatabase!
    private var music: URL!

    override func setUp() async throws {
        temp = try TemporaryFolder("hosting")
        music = temp.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("album"), withIntermediateDirectories: true)
        for index in 1...2 {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("album/\(index).mp3").path, seconds: 2,
                                      tags: .init(title: "Song \(index)", artist: "Artist", album: "Album", track: index))
        }
        library = LibraryFolder(url: temp.url.appendingPathComponent("library"))
        database = try library.open(seedingDemoFrom: nil)
    }

    override func tearDown() async throws {
        database = nil
        temp = nil
    }

    private func configuration(_ extra: String = "") throws -> HostConfiguration {
        try HostConfiguration(config: ConfigFile(parsing: "music_directory = \(music.path)\nport = 0\n" + extra), output: .null)
    }

    private func start(_ configuration: HostConfiguration, _ listening: LibraryHost.Listening,
                       notes: @escaping @Sendable (String) -> Void = { _ in }) async throws -> LibraryHost {
        let host = try await LibraryHost.start(configuration, library: library, database: database, listening: listening,
                                               notes: notes)
        // A host that listens scans the music folder it has no songs of first, as MPD does.
        host.host.updates.wait()
        return host
    }

    /// Why the start failed; nil (and the host stopped) when it started.
    private func failure(_ configuration: HostConfiguration, _ listening: LibraryHost.Listening) async -> Error? {
        do {
            try await start(configuration, listening).stop()
            return nil
        } catch {
            return error
        }
    }

    /// `status` through the host's command table in this process, no socket.
    private func inProcess(_ line: String, _ host: LibraryHost) -> [String: String] {
        var session = ClientSession(peer: .local, passwordRequired: false)
        let answer = String(decoding: session.receive(line: line, service: host.service).bytes, as: UTF8.self)
        XCTAssertTrue(answer.hasSuffix("OK\n"), answer)
        return Dictionary(answer.split(separator: "\n").compactMap { line in
            line.firstIndex(of: ":").map { (String(line[..<$0]), String(line[line.index($0, offsetBy: 2)...])) }
        }, uniquingKeysWith: { first, _ in first })
    }

    func testAServingHostListensKeepsItsStateAndComesBackWithIt() async throws {
        let serving = try await start(try configuration(), .socketAndTCP)
        let socketPath = try XCTUnwrap(serving.socketPath)
        let overTCP = try MPDClient.connect(host: "127.0.0.1", port: try XCTUnwrap(serving.tcpPort))
        try overTCP.run("add", "album/1.mp3")
        let overSocket = try XCTUnwrap(try MPDClient.connect(unixPath: socketPath))
        try overSocket.run("add", "album/2.mp3")
        try overSocket.run("setvol", "40")
        XCTAssertEqual(inProcess("status", serving)["playlistlength"], "2", "one table behind every door")
        let second = await failure(try configuration(), .socket)
        XCTAssertTrue(second.map { ServerError.hostRunning ~= $0 } ?? false, "one host per library: \(String(describing: second))")
        overTCP.disconnect()
        overSocket.disconnect()
        await serving.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: socketPath), "the socket goes with the host")
        let state = try String(contentsOfFile: library.url.appendingPathComponent("host.state").path, encoding: .utf8)
        XCTAssertTrue(state.contains("album/1.mp3") && state.contains("album/2.mp3") && state.contains("sw_volume: 40"), state)

        // The lock went with the first host: a prompt's host (socket only) starts and restores the queue.
        let prompt = try await start(try configuration(), .socket)
        XCTAssertNil(prompt.tcpPort)
        let status = inProcess("status", prompt)
        XCTAssertEqual(status["playlistlength"], "2")
        XCTAssertEqual(status["volume"], "40")
        XCTAssertEqual(inProcess("playlistinfo", prompt)["file"], "album/1.mp3")
        await prompt.stop()
    }

    func testAHostThatListensNowhereTakesNoLockAndKeepsNoState() async throws {
        var saved = HostState()
        saved.volume = 30
        try saved.text.write(toFile: library.url.appendingPathComponent("host.state").path, atomically: true, encoding: .utf8)
        let serving = try await start(try configuration(), .socket)
        XCTAssertEqual(inProcess("status", serving)["volume"], "30", "the state file restored")
        let started = Mutex<[String]>([])
        let alone = try await LibraryHost.start(try configuration(), library: library, database: database, listening: .nowhere,
                                                events: { event in
                                                    if case .started(let item, _) = event { started.withLock { $0.append(item.title) } }
                                                })
        XCTAssertNil(alone.socketPath)
        XCTAssertNil(alone.tcpPort)
        XCTAssertEqual(inProcess("status", alone)["volume"], "100", "no state restored")
        XCTAssertEqual(inProcess("add album/1.mp3", alone).count, 0)
        XCTAssertEqual(inProcess("play", alone).count, 0)
        XCTAssertTrue(eventually { started.withLock { $0 } == ["Song 1"] }, "the events are heard")
        XCTAssertEqual(inProcess("status", alone)["playlistlength"], "1")
        XCTAssertEqual(inProcess("status", serving)["playlistlength"], "0", "two players, one each")
        await alone.stop()
        await serving.stop()
    }

    func testAnOpenAddressWithoutAPasswordIsRefusedBeforeAnythingStarts() async throws {
        var open = try configuration()
        open.settings.bindAddress = "0.0.0.0"
        let refused = await failure(open, .socketAndTCP)
        XCTAssertTrue(refused.map { HostingError.refusedAddress ~= $0 } ?? false, String(describing: refused))
        // Nothing held: the library's host starts at once.
        let serving = try await start(try configuration(), .socket)
        await serving.stop()
    }

    func testAPortInUseFailsTheStartAndLeavesNoSocketNorLock() async throws {
        let other = LibraryFolder(url: temp.url.appendingPathComponent("other"))
        let otherHost = try await LibraryHost.start(try configuration(), library: other, database: try other.open(seedingDemoFrom: nil),
                                                    listening: .socketAndTCP)
        var taken = try configuration()
        taken.settings.port = try XCTUnwrap(otherHost.tcpPort)
        let inUse = await failure(taken, .socketAndTCP)
        XCTAssertTrue(inUse.map { HostingError.cannotListen ~= $0 } ?? false, String(describing: inUse))
        XCTAssertFalse(FileManager.default.fileExists(atPath: LibraryHost.socketPath(of: library)))
        let serving = try await start(try configuration(), .socket)
        await serving.stop()
        await otherHost.stop()
    }

    func testKeysThePlayerCannotReadAreToldAndTheMusicStillStarts() async throws {
        let configuration = try configuration("crossfade_skip_albums = maybe\nreplay_gain_mode = loud\n")
        XCTAssertEqual(configuration.crossfade, CrossfadeSettings())
        XCTAssertEqual(configuration.replayGain.mode, .off)
        let told = Mutex<[String]>([])
        let alone = try await start(configuration, .nowhere) { note in told.withLock { $0.append(note) } }
        let notes = told.withLock { $0 }
        XCTAssertEqual(notes.count, 2, "\(notes)")
        XCTAssertTrue(notes.contains { $0.contains("crossfade_skip_albums must be yes or no") }, "\(notes)")
        XCTAssertTrue(notes.contains { $0.contains("replay_gain_mode must be off, track, album or auto") }, "\(notes)")
        await alone.stop()
        XCTAssertThrowsError(try HostConfiguration(config: ConfigFile(parsing: "port = many\n"), output: .null),
                             "the host's own keys must be valid")
    }
}
