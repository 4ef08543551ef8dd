import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZHostAssembly
import XZTestSupport
import XZHostCore
import XZMPDCommands
#if canImport(Glibc)
import Glibc
#endif

/// A real host on a temporary Unix socket and on TCP port 0, driven by raw sockets and by `mpc`.
final class ServerTests: XCTestCase {
    var folder: TemporaryFolder!
    var host: PlayerHost!
    var server: ProtocolServer!
    var socketPath: String!
    var port = 0

    override func setUpWithError() throws {
        folder = try TemporaryFolder("server")
        let music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        for (index, title) in ["Alpha", "Beta"].enumerated() {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("\(index + 1).mp3").path, seconds: 4,
                                      tags: .init(title: title, artist: "晴天乐队", album: "Demo", track: index + 1))
        }
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let database = try library.open(seedingDemoFrom: nil)
        host = PlayerHost(folder: library, database: database, output: .null, musicDirectory: music) { _ in }
        // As a host started on the folder scans it first (MPD's database).
        host.scanMusicFolderIfUnscanned()
        host.updates.wait()
        try start(password: nil)
    }

    func start(password: String?, limits: ServerLimits = ServerLimits()) throws {
        server = ProtocolServer(host: host, password: password, limits: limits)
        socketPath = folder.path("host.sock")
        try server.listen(unixPath: socketPath)
        port = try server.listen(host: "127.0.0.1", port: 0)
    }

    override func tearDown() {
        server?.shutdown()
        host?.shutdown()
        folder = nil
    }

    func value(_ pairs: [(key: String, value: String)], _ key: String) -> String? {
        pairs.first { $0.key == key }?.value
    }

    func testSocketIsPrivateAndBothTransportsAnswer() throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: socketPath)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let local = try XCTUnwrap(MPDClient.connect(unixPath: socketPath))
        XCTAssertTrue(local.greeting.hasPrefix("OK MPD 0.23."))
        let remote = try MPDClient.connect(host: "127.0.0.1", port: port)
        try local.run("add", "1.mp3")
        XCTAssertEqual(value(try remote.run("status"), "playlistlength"), "1", "both see one queue")
        XCTAssertThrowsError(try remote.run("add", folder.path("music/2.mp3"))) { error in
            XCTAssertEqual((error as? MPDError)?.code, .permission, "absolute paths are for local clients only")
        }
        XCTAssertNoThrow(try local.run("add", folder.path("music/2.mp3")))
    }

    func testIdleWakesAcrossConnections() throws {
        let watcher = try MPDClient.connect(host: "127.0.0.1", port: port)
        let actor = try MPDClient.connect(host: "127.0.0.1", port: port)
        try watcher.sendLine("idle playlist player")
        try actor.run("add", "1.mp3")
        XCTAssertEqual(try watcher.readResponse().map(\.value), ["playlist"])
        try watcher.sendLine("idle player")
        try actor.run("play")
        XCTAssertEqual(try watcher.readResponse().map(\.value), ["player"])
        try watcher.sendLine("idle")
        try watcher.sendLine("noidle")
        XCTAssertNoThrow(try watcher.readResponse())
        XCTAssertEqual(value(try watcher.run("status"), "state"), "play")
    }

    func testJunkLongLinesAndHangupsNeverStallOthers() throws {
        let steady = try MPDClient.connect(host: "127.0.0.1", port: port)
        // Binary junk gets ACKs, and the connection goes on.
        let junk = try MPDClient.connect(host: "127.0.0.1", port: port)
        try junk.sendLine("\u{1}\u{2}\u{7F}\u{FFFD} \"")
        XCTAssertThrowsError(try junk.readResponse())
        XCTAssertNoThrow(try junk.run("ping"))
        // A 10 MB line drops that client only.
        let flood = try MPDClient.connect(host: "127.0.0.1", port: port)
        try? flood.sendLine(String(repeating: "a", count: 10_000_000))
        XCTAssertThrowsError(try flood.readLine(), "the host hangs up on an over-long line")
        // Half a command, then gone.
        let half = try MPDClient.connect(host: "127.0.0.1", port: port)
        try half.sendLine("command_list_begin")
        try half.sendLine("add 1.mp3")
        _ = half
        // Fifty clients waiting in idle.
        var idlers: [MPDClient] = []
        for _ in 0..<50 {
            let client = try MPDClient.connect(host: "127.0.0.1", port: port)
            try client.sendLine("idle")
            idlers.append(client)
        }
        let started = Date()
        XCTAssertEqual(value(try steady.run("status"), "playlistlength"), "0", "the unfinished list did not run")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        try steady.run("setvol", "55")
        for client in idlers { XCTAssertEqual(try client.readResponse().map(\.value), ["mixer"]) }
    }

    /// Requests sent together are answered in order though some are answered on the blocking pool
    /// (catalogue and file work) and others on the event loop at once.
    func testPipelinedRequestsAreAnsweredInOrder() throws {
        let client = try MPDClient.connect(host: "127.0.0.1", port: port)
        try client.sendLine("add 1.mp3\nstatus\nplaylistinfo\nsetvol 33\nlistfiles\nping\ncommand_list_begin\nadd 2.mp3\ngetvol\ncommand_list_end\nplaylist")
        XCTAssertEqual(try client.readResponse().count, 0)
        XCTAssertEqual(value(try client.readResponse(), "playlistlength"), "1")
        XCTAssertEqual(value(try client.readResponse(), "Title"), "Alpha")
        XCTAssertEqual(try client.readResponse().count, 0)
        XCTAssertEqual(try client.readResponse().filter { $0.key == "file" }.map(\.value), ["1.mp3", "2.mp3"])
        XCTAssertEqual(try client.readResponse().count, 0)
        XCTAssertEqual(value(try client.readResponse(), "volume"), "33")
        XCTAssertEqual(try client.readResponse().map(\.key), ["0:file", "1:file"])
    }

    func testConnectionLimitAndTimeout() throws {
        server.shutdown()
        var limits = ServerLimits()
        limits.maxConnections = 2
        limits.connectionTimeout = .milliseconds(300)
        try start(password: nil, limits: limits)
        let first = try MPDClient.connect(host: "127.0.0.1", port: port)
        let second = try MPDClient.connect(host: "127.0.0.1", port: port)
        XCTAssertThrowsError(try MPDClient.connect(host: "127.0.0.1", port: port), "a third client is turned away")
        try second.sendLine("idle")
        Thread.sleep(forTimeInterval: 0.8)
        XCTAssertThrowsError(try first.run("ping"), "a silent client outside idle is dropped")
        try MPDClient.connect(host: "127.0.0.1", port: port).run("setvol", "20")
        XCTAssertEqual(try second.readResponse().map(\.value), ["mixer"], "a client in idle stays")
    }

    func testAClientThatNeverReadsIsDroppedAtTheOutputLimit() throws {
        server.shutdown()
        var limits = ServerLimits()
        limits.maxOutputBytes = 64 * 1024
        try start(password: nil, limits: limits)
        let steady = try MPDClient.connect(host: "127.0.0.1", port: port)
        let hoarder = try MPDClient.connect(host: "127.0.0.1", port: port)
        XCTAssertEqual(host.clientCount, 2)
        // About 50 MB of answers, far more than the socket buffers and the limit hold; the host hangs
        // up part way, so the rest of the requests may not go out.
        try? hoarder.sendLine(String(repeating: "status\n", count: 200_000))
        let deadline = Date().addingTimeInterval(10)
        while host.clientCount > 1, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertEqual(host.clientCount, 1, "the client that never reads was dropped")
        XCTAssertEqual(value(try steady.run("status"), "state"), "stop", "the other client is still served")
        _ = hoarder
    }

    func testPasswordOnTheNetwork() throws {
        server.shutdown()
        try start(password: "letmein")
        let client = try MPDClient.connect(host: "127.0.0.1", port: port)
        XCTAssertNoThrow(try client.run("ping"))
        XCTAssertThrowsError(try client.run("status")) { XCTAssertEqual(($0 as? MPDError)?.code, .permission) }
        XCTAssertThrowsError(try client.run("password", "nope")) { XCTAssertEqual(($0 as? MPDError)?.code, .password) }
        try client.run("password", "letmein")
        XCTAssertNotNil(value(try client.run("status"), "state"))
        var settings = HostSettings()
        settings.bindAddress = "0.0.0.0"
        XCTAssertThrowsError(try settings.validate(), "an open address needs a password")
        settings.password = "x"
        XCTAssertNoThrow(try settings.validate())
    }

    func testMpcDrivesTheHost() throws {
        let mpc = try TestProcess.which("mpc")
        func run(_ arguments: [String]) throws -> String {
            try TestProcess.runChecked(mpc, ["-h", "127.0.0.1", "-p", "\(port)"] + arguments).stdout
        }
        _ = try run(["add", "1.mp3"])
        _ = try run(["add", "2.mp3"])
        let playlist = try run(["playlist", "-f", "%position% %title% %artist%"])
        XCTAssertEqual(playlist, "1 Alpha 晴天乐队\n2 Beta 晴天乐队\n")
        _ = try run(["play", "2"])
        XCTAssertTrue(try run(["current", "-f", "%title%"]).hasPrefix("Beta"))
        _ = try run(["volume", "30"])
        _ = try run(["repeat", "on"])
        let status = try run(["status"])
        XCTAssertTrue(status.contains("volume: 30%"), status)
        XCTAssertTrue(status.contains("repeat: on"), status)
        XCTAssertTrue(status.contains("[playing] #2/2"), status)
        _ = try run(["pause"])
        XCTAssertTrue(try run(["status"]).contains("[paused]"))
        _ = try run(["prev"])
        _ = try run(["stop"])
        XCTAssertFalse(try run(["status"]).contains("[playing]"))
        // The Unix socket, as mpc names it by path.
        let local = try TestProcess.runChecked(mpc, ["-h", socketPath, "playlist"]).stdout
        XCTAssertEqual(local.split(separator: "\n").count, 2)
        _ = try run(["clear"])
        XCTAssertEqual(try run(["playlist"]), "")
    }

    func testSecondHostIsRefusedAndAStaleSocketIsReplaced() throws {
        let lockPath = folder.path("host.lock")
        var first: HostLock? = try HostLock(path: lockPath, description: "pid 1, socket x")
        XCTAssertThrowsError(try HostLock(path: lockPath, description: "pid 2")) { error in
            XCTAssertTrue("\(error)".contains("pid 1, socket x"), "\(error)")
        }
        first = nil
        XCTAssertNoThrow(try HostLock(path: lockPath, description: "pid 3"), "the lock goes with its holder")
        _ = first
        // A socket file with nobody behind it: clients see no host, and a new host binds over it.
        server.shutdown()
        XCTAssertNil(try MPDClient.connect(unixPath: socketPath))
        server = ProtocolServer(host: host, password: nil)
        try server.listen(unixPath: socketPath)
        XCTAssertNotNil(try MPDClient.connect(unixPath: socketPath))
    }
}
