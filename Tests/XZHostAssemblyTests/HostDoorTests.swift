import Foundation
import XCTest
import XZCatalogue
import XZHostCore
import XZHostAssembly
import XZMPDCommands
import XZProtocol
import XZServer
import XZSystem
import XZTestSupport

/// The door over a real host's socket and the door to the same host in process answer alike: the same
/// pairs, the same refusals; a list past the host's cap is not sent, and a host that goes is `lost`.
final class HostDoorTests: XCTestCase {
    private var folder: TemporaryFolder!
    private var host: PlayerHost!
    private var server: ProtocolServer!
    private var socketPath: String { folder.path("host.sock") }

    override func setUpWithError() throws {
        folder = try TemporaryFolder("host-door")
        let music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("album"), withIntermediateDirectories: true)
        for (index, title) in ["One", "Two", "Three"].enumerated() {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("album/\(index + 1).mp3").path, seconds: 3,
                                      tags: .init(title: title, artist: "Band", album: "LP", track: index + 1))
        }
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        host = PlayerHost(folder: library, database: try library.open(seedingDemoFrom: nil), output: .null,
                          musicDirectory: music, seed: 7) { _ in }
        // As a host started on the folder scans it first (MPD's database).
        host.scanMusicFolderIfUnscanned()
        host.updates.wait()
        server = ProtocolServer(host: host, password: nil)
        try server.listen(unixPath: socketPath)
    }

    override func tearDown() {
        server.shutdown()
        host.shutdown()
    }

    private func doors() throws -> [(name: String, door: HostDoor)] {
        guard let client = try MPDClient.connect(unixPath: socketPath) else { throw ServerError.cannotConnect }
        return [("socket", HostDoor(client: client)), ("in process", HostDoor(service: server.service))]
    }

    func testBothDoorsReadTheSameAnswers() throws {
        let doors = try doors()
        try doors[0].door.runList((1...3).map { MPDRequest(name: "add", arguments: ["album/\($0).mp3"]) })
        let answers = try doors.map { _, door in
            (try door.status(), try door.queue(window: 1..<3), try door.run("playlistinfo").map { "\($0.key): \($0.value)" },
             try door.musicDirectory())
        }
        XCTAssertEqual(answers[0].0, answers[1].0)
        XCTAssertEqual(answers[0].0.playlistLength, 3)
        XCTAssertEqual(answers[0].1, answers[1].1)
        XCTAssertEqual(answers[0].1.map(\.title), ["Two", "Three"])
        XCTAssertEqual(answers[0].1.map(\.position), [1, 2])
        XCTAssertEqual(answers[0].2, answers[1].2)
        XCTAssertEqual(answers[0].3, answers[1].3)
        for (name, door) in doors {
            XCTAssertNil(try door.currentSong(), name)
        }
        try doors[1].door.run("play", ["2"])
        for (name, door) in doors {
            XCTAssertEqual(try door.currentSong()?.title, "Three", name)
            XCTAssertEqual(try door.status().state, .play, name)
        }
    }

    func testARefusalIsTheHostsACK() throws {
        for (name, door) in try doors() {
            XCTAssertThrowsError(try door.run("setvol", ["300"]), name) { error in
                let failure = error as? HostDoor.Failure
                XCTAssertEqual(failure, .refused)
                XCTAssertEqual(failure?.ack, MPDError(.arg, "Number too large: 300", command: "setvol"))
                XCTAssertEqual(failure?.ack?.command, "setvol")
                XCTAssertEqual(failure?.message, "Number too large: 300")
            }
            // A list stops at its first refusal, as MPD's: what came before it stays done.
            XCTAssertThrowsError(try door.runList([
                MPDRequest(name: "clear"), MPDRequest(name: "add", arguments: ["album/1.mp3"]),
                MPDRequest(name: "add", arguments: ["album/none.mp3"]), MPDRequest(name: "add", arguments: ["album/2.mp3"]),
            ]), name) { error in
                guard let ack = (error as? HostDoor.Failure)?.ack else { return XCTFail("\(error)") }
                XCTAssertEqual(ack.code, .noExist)
                XCTAssertEqual(ack.command, "add")
            }
            XCTAssertEqual(try door.status().playlistLength, 1, name)
            XCTAssertEqual(try door.run("ping").count, 0, "the door answers on after a refusal (\(name))")
        }
    }

    func testAListPastTheHostsCapIsNotSent() throws {
        let adds = Array(repeating: MPDRequest(name: "add", arguments: ["album/1.mp3"]), count: 200_000)
        for (name, door) in try doors() {
            XCTAssertThrowsError(try door.runList(adds), name) { error in
                guard let failure = error as? HostDoor.Failure, failure == .listTooLarge else { return XCTFail("\(error)") }
                XCTAssertTrue(failure.message.hasPrefix("a command list of 3600000 bytes"), failure.message)
                XCTAssertTrue(failure.message.hasSuffix("more than the host takes at once (2097152, max_command_list_size)"), failure.message)
            }
            XCTAssertEqual(try door.status().playlistLength, 0, "nothing was sent (\(name))")
        }
    }

    func testAHostThatGoesIsLost() throws {
        let door = try doors()[0].door
        XCTAssertEqual(try door.status().playlistLength, 0)
        server.shutdown()
        XCTAssertThrowsError(try door.status()) { error in
            guard (error as? HostDoor.Failure) == .lost else { return XCTFail("\(error)") }
        }
    }

    func testADoorFindsTheLibrarysHostOnItsSocketAndHangsUpAWaitingIdle() throws {
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        XCTAssertNil(try HostDoor.connect(library: library), "no host answers for the library yet")
        let socketPath = LibraryHost.socketPath(of: library)
        try server.listen(unixPath: socketPath)
        defer { unlink(socketPath) }
        let door = try XCTUnwrap(try HostDoor.connect(library: library))
        XCTAssertFalse(door.isInProcess)
        XCTAssertEqual(try door.status().playlistLength, 0)

        // An idle answers a change another client makes, then waits until the door is hung up.
        let other = try XCTUnwrap(try HostDoor.connect(library: library))
        let outcome = Mutex<[String]>([])
        let done = expectation(description: "the idles ended")
        Thread.detachNewThread {
            do throws(HostDoor.Failure) {
                let changed = try door.run("idle", ["playlist"]).map(\.value)
                outcome.withLock { $0 += changed }
                try door.run("idle", ["playlist"])
                outcome.withLock { $0.append("the second idle answered") }
            } catch {
                let ending = error == .lost ? "lost" : "\(error)"
                outcome.withLock { $0.append(ending) }
            }
            done.fulfill()
        }
        try other.run("add", ["album/1.mp3"])
        XCTAssertTrue(eventually { !outcome.withLock { $0.isEmpty } })
        door.hangUp()
        wait(for: [done], timeout: 30)
        XCTAssertEqual(outcome.withLock { $0 }, ["playlist", "lost"])
        XCTAssertThrowsError(try door.status(), "a door hung up stays so")
    }
}
