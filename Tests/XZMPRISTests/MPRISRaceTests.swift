import CSystemdBus
import Foundation
import XCTest
import XZCatalogue
import XZHostCore
import XZHostAssembly
@testable import XZMPRIS
import XZServer
import XZSystem
import XZTestSupport

/// Media keys and MPD clients at the same moment: 10,000 MPRIS calls from one bus connection while two MPD
/// clients edit the queue, against a real host. Every change takes its turn under the host's one rule, so
/// a command list sees only its own changes, nothing acknowledged is lost, and afterwards `status`, the
/// queue, MPRIS's properties and the state file all say the same.
@MainActor
final class MPRISRaceTests: XCTestCase {
    private var temp: TemporaryFolder!
    private var bus: RunningProcess!
    private var address = ""

    override func setUp() async throws {
        for tool in ["dbus-daemon", "busctl"] where !FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)") {
            throw XCTSkip("\(tool) is not installed")
        }
        temp = try TemporaryFolder("mpris-race")
        bus = try RunningProcess("/usr/bin/dbus-daemon", ["--session", "--print-address=1", "--nofork"],
                                 environment: ProcessInfo.processInfo.environment)
        XCTAssertTrue(bus.waitForOutput("\n"), "dbus-daemon prints its address: \(bus.stderr)")
        address = bus.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    override func tearDown() async throws {
        bus?.signal(SIGTERM)
        _ = bus?.finish()
        bus = nil
        temp = nil
    }

    func testMediaKeysAndTwoMPDClientsTakeTurnsAndAgreeAfterwards() async throws {
        let music = temp.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("album"), withIntermediateDirectories: true)
        for index in 1...3 {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("album/\(index).mp3").path, seconds: 30, rate: 8000, channels: 1,
                                      tags: .init(title: "Song \(index)", artist: "Artist", album: "Album", track: index),
                                      lameOptions: ["-b", "32"])
        }
        let stateFile = temp.url.appendingPathComponent("state").path
        let library = LibraryFolder(url: temp.url.appendingPathComponent("library"))
        let database = try library.open(seedingDemoFrom: nil)
        var configuration = try HostConfiguration(config: ConfigFile(parsing: "music_directory = \(music.path)\nport = 0\nstate_file = \(stateFile)\n"),
                                                  output: .null)
        configuration.mpris.busAddress = address
        configuration.mpris.coverFolder = temp.url.appendingPathComponent("covers")
        let host = try await LibraryHost.start(configuration, library: library, database: database, listening: .socketAndTCP)
        host.host.updates.wait()
        let port = try XCTUnwrap(host.tcpPort)
        let seeding = try MPDClient.connect(host: "127.0.0.1", port: port)
        try seeding.run("add", "album/1.mp3")
        try seeding.run("add", "album/2.mp3")
        try seeding.run("play")

        let race = RaceLog()
        let openedURI = music.appendingPathComponent("album/3.mp3").absoluteString
        let address = self.address
        let started = Date()
        await runTogether([
            // The media keys: one long-lived sd-bus connection, 10,000 calls in a row (a busctl process per
            // call would take minutes on this machine).
            {
                do {
                    let keys = try BusClient(address: address)
                    for number in 0..<10_000 {
                        if let error = keys.mediaKey(number, openingURI: openedURI) { race.fail("MPRIS call \(number): \(error)") }
                    }
                } catch {
                    race.fail("MPRIS client: \(error)")
                }
                race.finish()
            },
            // MPD client A: command lists that clear the queue and add their own songs, then read it back: a
            // list holds the host's turn throughout, so it sees exactly its own entries.
            {
                do {
                    let client = try MPDClient.connect(host: "127.0.0.1", port: port)
                    var round = 0
                    while !race.isFinished {
                        round += 1
                        let count = 2 + round % 5
                        let lines = ["clear"] + (0..<count).map { "addid album/\(1 + ($0 + round) % 2).mp3" } + ["status", "playlistinfo"]
                        let answer = try client.list(lines)
                        let ids = answer.filter { $0.key == "Id" }.map(\.value)
                        let listed = answer.filter { $0.key == "Id" }.dropFirst(count).map(\.value)
                        let length = answer.first { $0.key == "playlistlength" }?.value
                        guard let version = answer.first(where: { $0.key == "playlist" }).flatMap({ Int($0.value) }) else {
                            race.fail("list \(round): no playlist version in \(answer)")
                            continue
                        }
                        if length != String(count) || Array(ids.prefix(count)) != Array(listed) {
                            race.fail("list \(round) of \(count) adds saw \(length ?? "?") entries: \(listed) after adding \(ids.prefix(count))")
                        }
                        race.cleared(atVersion: version, keeping: Array(ids.prefix(count)))
                    }
                } catch {
                    race.fail("MPD client A: \(error)")
                }
            },
            // MPD client B: single adds (each read back with its version), deletes of its own, and moves.
            {
                do {
                    let client = try MPDClient.connect(host: "127.0.0.1", port: port)
                    var mine: [String] = []
                    var round = 0
                    while !race.isFinished {
                        round += 1
                        switch round % 4 {
                        case 0 where !mine.isEmpty:
                            let id = mine.removeFirst()
                            do { try client.run("deleteid", id) } catch { /* cleared by A meanwhile */ }
                            race.deleted(id)
                        case 1 where !mine.isEmpty:
                            do { try client.run("moveid", mine[round % mine.count], "0") } catch { /* cleared by A meanwhile */ }
                        default:
                            let answer = try client.list(["addid album/\(1 + round % 2).mp3", "status"])
                            guard let id = answer.first(where: { $0.key == "Id" })?.value,
                                  let version = answer.first(where: { $0.key == "playlist" }).flatMap({ Int($0.value) }) else {
                                race.fail("add \(round): \(answer)")
                                continue
                            }
                            mine.append(id)
                            race.added(id, atVersion: version)
                        }
                    }
                } catch {
                    race.fail("MPD client B: \(error)")
                }
            },
        ])
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(race.failures, [], "\(race.failures.count) failures")
        print("MPRIS race: 10,000 MPRIS calls and \(race.changes) MPD changes in \(String(format: "%.1f", elapsed)) s")

        // Quiet now: the music paused, so nothing moves on while the four views are read.
        let mpd = try MPDClient.connect(host: "127.0.0.1", port: port)
        try mpd.run("pause", "1")
        let status = Dictionary(try mpd.run("status").map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let queue = try mpd.run("playlistinfo")
        let queueIds = queue.filter { $0.key == "Id" }.map(\.value)
        let queueFiles = queue.filter { $0.key == "file" }.map(\.value)
        XCTAssertEqual(status["playlistlength"], String(queueIds.count))
        let lost = race.acknowledged.subtracting(queueIds)
        XCTAssertTrue(lost.isEmpty, "acknowledged adds lost: \(lost.sorted())")

        let properties = try BusClient(address: address)
        let playbackStatus = try properties.busctlProperty("PlaybackStatus", address: address)
        let expectedStatus = ["play": "s \"Playing\"", "pause": "s \"Paused\"", "stop": "s \"Stopped\""][status["state"] ?? ""]
        XCTAssertEqual(playbackStatus, expectedStatus)
        let metadata = try properties.busctlProperty("Metadata", address: address)
        let trackId = status["songid"].map { "/org/xzmusic/track/\($0)" } ?? "/org/mpris/MediaPlayer2/TrackList/NoTrack"
        XCTAssertTrue(metadata.contains("\"mpris:trackid\" o \"\(trackId)\""), "\(metadata) names \(trackId)")
        let volume = try properties.busctlProperty("Volume", address: address)
        XCTAssertEqual(volume.split(separator: " ").last.flatMap { Double($0) }.map { Int(($0 * 100).rounded()) },
                       status["volume"].flatMap { Int($0) })

        // The state file, saved a second after the last change, says the same.
        let saved = try XCTUnwrap(eventuallySaved(stateFile) { saved in
            saved.queue.map(\.uri) == queueFiles && saved.playState != .play
        }, "the state file never matched the queue of \(queueFiles.count) entries")
        XCTAssertEqual(saved.volume, status["volume"].flatMap { Int($0) })
        XCTAssertEqual(saved.current, status["song"].flatMap { Int($0) })
        XCTAssertEqual(saved.playState == .pause ? "pause" : "stop", status["state"])
        await host.stop()
    }

    /// The state file once `matches` holds for it (10 s at most), or nil.
    private func eventuallySaved(_ path: String, _ matches: (HostState) -> Bool) -> HostState? {
        let deadline = Date(timeIntervalSinceNow: 10)
        repeat {
            if let data = FileManager.default.contents(atPath: path),
               case let state = HostState(parsing: String(decoding: data, as: UTF8.self)), matches(state) {
                return state
            }
            Thread.sleep(forTimeInterval: 0.1)
        } while Date() < deadline
        return nil
    }

    /// Runs each body on a thread of its own (they block on sockets) and returns when all have.
    private func runTogether(_ bodies: [@Sendable () -> Void]) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for body in bodies {
                group.enter()
                Thread { body(); group.leave() }.start()
            }
            group.notify(queue: .global()) { continuation.resume() }
        }
    }
}

/// What the race's clients saw, to check afterwards what must have stayed.
private final class RaceLog: Sendable {
    private struct Log {
        var failures: [String] = []
        var finished = false
        /// Client B's adds, by id, with the queue version right after each.
        var added: [String: Int] = [:]
        var deleted: Set<String> = []
        /// The version after client A's last list, and the entries it left.
        var lastClear = 0
        var leftByClear: [String] = []
        var changes = 0
    }

    private let log = Mutex(Log())

    func fail(_ text: String) { log.withLock { if $0.failures.count < 20 { $0.failures.append(text) } } }
    func finish() { log.withLock { $0.finished = true } }
    var isFinished: Bool { log.withLock { $0.finished } }
    var failures: [String] { log.withLock { $0.failures } }
    var changes: Int { log.withLock { $0.changes } }

    func added(_ id: String, atVersion version: Int) { log.withLock { $0.added[id] = version; $0.changes += 1 } }
    func deleted(_ id: String) { log.withLock { _ = $0.deleted.insert(id); $0.changes += 1 } }

    func cleared(atVersion version: Int, keeping ids: [String]) {
        log.withLock { log in
            log.changes += 1
            guard version > log.lastClear else { return }
            log.lastClear = version
            log.leftByClear = ids
        }
    }

    /// Every entry an MPD client was told it added and that no client removed since: B's adds after A's
    /// last clear (lists are whole, so none falls inside one) and not deleted, and A's last list's.
    var acknowledged: Set<String> {
        log.withLock { log in
            Set(log.added.filter { $0.value > log.lastClear && !log.deleted.contains($0.key) }.keys).union(log.leftByClear)
        }
    }
}

/// One connection to the private bus for many calls in a row.
private final class BusClient {
    private let bus: OpaquePointer
    private static let name = "org.mpris.MediaPlayer2.xzmusic"
    private static let path = "/org/mpris/MediaPlayer2"
    private static let player = "org.mpris.MediaPlayer2.Player"

    init(address: String) throws {
        var opened: OpaquePointer?
        var r = sd_bus_new(&opened)
        if r >= 0 { r = address.withCString { sd_bus_set_address(opened, $0) } }
        if r >= 0 { r = sd_bus_set_bus_client(opened, 1) }
        if r >= 0 { r = sd_bus_start(opened) }
        guard r >= 0, let opened else {
            sd_bus_unref(opened)
            throw NSError(domain: "bus", code: Int(-r), userInfo: [NSLocalizedDescriptionKey: "cannot join the bus: \(xz_systemd_error().map { String(cString: $0) } ?? "\(r)")"])
        }
        bus = opened
    }

    deinit { sd_bus_flush_close_unref(bus) }

    /// The `number`th call of the mix: Play, Pause, PlayPause, Next, Previous, Seek, Volume set, OpenUri.
    /// Nil when it was answered; else the D-Bus error. A refused OpenUri (a full queue) is no failure.
    func mediaKey(_ number: Int, openingURI uri: String) -> String? {
        switch number % 8 {
        case 0: return call(Self.player, "Play")
        case 1: return call(Self.player, "Pause")
        case 2: return call(Self.player, "PlayPause")
        case 3: return call(Self.player, "Next")
        case 4: return call(Self.player, "Previous")
        case 5: return call(Self.player, "Seek") { $0.appendInt64(Int64(number % 3 == 0 ? -2_000_000 : 1_500_000)) }
        case 6:
            return call("org.freedesktop.DBus.Properties", "Set") { message in
                message.appendString(Self.player)
                message.appendString("Volume")
                message.appendVariantDouble(Double(number % 101) / 100)
            }
        default: return call(Self.player, "OpenUri") { $0.appendString(uri) }
        }
    }

    private func call(_ interface: String, _ member: String, _ arguments: (inout BusMessage) -> Void = { _ in }) -> String? {
        var made: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &made, Self.name, Self.path, interface, member) >= 0, let message = made else {
            return "cannot make a call of \(member)"
        }
        defer { sd_bus_message_unref(message) }
        var appended = BusMessage(message)
        arguments(&appended)
        guard appended.result >= 0 else { return "cannot append the arguments of \(member)" }
        var error = sd_bus_error()
        var reply: OpaquePointer?
        let r = sd_bus_call(bus, message, 10_000_000, &error, &reply)
        defer {
            sd_bus_error_free(&error)
            sd_bus_message_unref(reply)
        }
        return r >= 0 ? nil : "\(member): \(error.name.map { String(cString: $0) } ?? "error \(r)")"
    }

    /// A property as busctl prints it (`s "Playing"`, `d 0.5`, `a{sv} …`).
    func busctlProperty(_ property: String, address: String) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        let result = try TestProcess.run("/usr/bin/busctl", ["--user", "get-property", Self.name, Self.path, Self.player, property],
                                         environment: environment)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

private extension BusMessage {
    mutating func appendVariantDouble(_ value: Double) {
        _ = sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), "d")
        appendDouble(value)
        _ = sd_bus_message_close_container(message)
    }
}

private extension MPDClient {
    /// Runs `lines` as one command list; the pairs of the whole answer.
    func list(_ lines: [String]) throws -> [(key: String, value: String)] {
        try sendLine("command_list_begin")
        for line in lines { try sendLine(line) }
        try sendLine("command_list_end")
        return try readResponse()
    }
}
