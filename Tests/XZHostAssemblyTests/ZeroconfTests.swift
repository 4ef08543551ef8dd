import Foundation
import XCTest
import XZCatalogue
import XZHostAssembly
import XZServer
import XZSystem
import XZTestSupport
import XZZeroconf

/// Zeroconf with the real avahi-daemon: started for the test on a private system bus, in a network
/// namespace of its own (only loopback, so nothing reaches the machine's network), and found by the real
/// `avahi-browse`, as a phone's MPD client finds the host.
@MainActor
final class ZeroconfTests: XCTestCase {
    private var temp: TemporaryFolder!
    private var library: LibraryFolder!
    private var database: LibraryDatabase!
    private var music: URL!
    private var avahi: AvahiForTest?

    override func setUp() async throws {
        temp = try TemporaryFolder("zeroconf")
        music = temp.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        library = LibraryFolder(url: temp.url.appendingPathComponent("library"))
        database = try library.open(seedingDemoFrom: nil)
    }

    override func tearDown() async throws {
        avahi?.stop()
        avahi = nil
        database = nil
        temp = nil
    }

    /// A host on every address (with a password, as the host requires), so it is worth announcing.
    private func startHost(_ extra: String = "", notes: Notes? = nil) async throws -> LibraryHost {
        let config = try ConfigFile(parsing: """
            music_directory = \(music.path)
            port = 0
            bind_to_address = 0.0.0.0
            password = secret
            zeroconf_name = XZ Test @ %h

            """ + extra)
        let configuration = try HostConfiguration(config: config, output: .null)
        return try await LibraryHost.start(configuration, library: library, database: database, listening: .socketAndTCP,
                                           notes: { note in notes?.append(note) })
    }

    private var announcedName: String { ZeroconfName.expand("XZ Test @ %h") }

    private func zeroconfLines(_ notes: Notes) -> [String] {
        notes.all.filter { $0.hasPrefix("zeroconf:") }
    }

    func testAvahiBrowseFindsTheHostByItsNameAndPortAndNotOnceItStops() async throws {
        let avahi = try AvahiForTest.start(daemon: true)
        self.avahi = avahi
        let notes = Notes()
        let host = try await startHost(notes: notes)
        let port = try XCTUnwrap(host.tcpPort)
        var found: [AvahiForTest.Resolved] = []
        XCTAssertTrue(try eventually(timeout: 20) {
            found = try avahi.browse("_mpd._tcp")
            return found.contains { $0.name == announcedName }
        }, "avahi-browse found \(found); notes \(notes.all)")
        let ours = try XCTUnwrap(found.first { $0.name == announcedName })
        XCTAssertEqual(ours.port, port)
        XCTAssertEqual(host.announced.values.sorted(), [announcedName])
        XCTAssertTrue(zeroconfLines(notes).contains("zeroconf: announced \"\(announcedName)\" (_mpd._tcp, port \(port))"),
                      "\(notes.all)")
        // What was found answers as MPD does at the address and port found.
        let client = try MPDClient.connect(host: ours.address, port: ours.port)
        try client.run("password", "secret")
        XCTAssertTrue(try client.run("status").contains { $0.key == "state" })
        client.disconnect()

        await host.stop()
        XCTAssertTrue(try eventually(timeout: 10) { try avahi.browse("_mpd._tcp").isEmpty }, "withdrawn when the host stops")
    }

    func testANameTakenOnTheNetworkGetsAvahisAlternative() async throws {
        let avahi = try AvahiForTest.start(daemon: true)
        self.avahi = avahi
        // Another machine's (here, another program's) service holds the name first.
        let other = try avahi.publish(name: announcedName, type: "_mpd._tcp", port: 9)
        defer { other.signal(SIGTERM); _ = other.finish() }
        XCTAssertTrue(try eventually(timeout: 20) { try avahi.browse("_mpd._tcp").contains { $0.port == 9 } }, other.stderr)

        let notes = Notes()
        let host = try await startHost(notes: notes)
        let port = try XCTUnwrap(host.tcpPort)
        let alternative = announcedName + " #2"
        var found: [AvahiForTest.Resolved] = []
        XCTAssertTrue(try eventually(timeout: 20) {
            found = try avahi.browse("_mpd._tcp")
            return found.contains { $0.name == alternative && $0.port == port }
        }, "avahi-browse found \(found); notes \(notes.all)")
        XCTAssertTrue(found.contains { $0.name == announcedName && $0.port == 9 }, "the other service keeps its name")
        XCTAssertEqual(host.announced.values.sorted(), [alternative])
        XCTAssertTrue(zeroconfLines(notes).contains(
            "zeroconf: \"\(announcedName)\" is taken on the network; announcing \"\(alternative)\" instead"), "\(notes.all)")
        await host.stop()
    }

    func testZeroconfEnabledNoAnnouncesNothing() async throws {
        let avahi = try AvahiForTest.start(daemon: true)
        self.avahi = avahi
        let notes = Notes()
        let quiet = try await startHost("zeroconf_enabled = no\n", notes: notes)
        XCTAssertNotNil(quiet.tcpPort)
        XCTAssertEqual(try avahi.browse("_mpd._tcp"), [])
        XCTAssertEqual(quiet.announced, [:])
        quiet.announce(httpStreams: [ListeningPort(address: "0.0.0.0", port: 8000)])
        XCTAssertEqual(try avahi.browse("_http._tcp"), [])
        XCTAssertEqual(zeroconfLines(notes), [])
        await quiet.stop()

        // The same host with zeroconf on is found by the same browser.
        let found = try await startHost("zeroconf_enabled = yes\n")
        XCTAssertTrue(try eventually(timeout: 20) { try avahi.browse("_mpd._tcp").contains { $0.name == announcedName } })
        await found.stop()
    }

    func testWithoutADaemonOneLineAndAWorkingHostThenAnnouncedWhenTheDaemonStartsAndRestarts() async throws {
        let avahi = try AvahiForTest.start(daemon: false)
        self.avahi = avahi
        let notes = Notes()
        let host = try await startHost(notes: notes)
        let port = try XCTUnwrap(host.tcpPort)
        XCTAssertTrue(eventually(timeout: 10) { !zeroconfLines(notes).isEmpty })
        XCTAssertEqual(zeroconfLines(notes), ["zeroconf: avahi-daemon is not running; the host is not announced until it starts"])
        let client = try MPDClient.connect(host: "127.0.0.1", port: port)
        try client.run("password", "secret")
        XCTAssertTrue(try client.run("status").contains { $0.key == "state" })
        client.disconnect()
        XCTAssertEqual(host.announced, [:])

        // The daemon starting later finds the host announced, and so does the daemon restarted.
        for _ in 1...2 {
            try avahi.startDaemon()
            XCTAssertTrue(try eventually(timeout: 20) { try avahi.browse("_mpd._tcp").contains { $0.port == port } },
                          "\(notes.all)")
            XCTAssertEqual(host.announced.values.sorted(), [announcedName])
            avahi.stopDaemon()
            XCTAssertTrue(eventually(timeout: 10) { host.announced.isEmpty })
        }
        XCTAssertTrue(zeroconfLines(notes).contains("zeroconf: avahi-daemon stopped; the host is announced again when it is back"))
        await host.stop()
    }

    func testWithoutASystemBusOneLineAndAWorkingHost() async throws {
        try AvahiForTest.withoutBus()
        let notes = Notes()
        let host = try await startHost(notes: notes)
        XCTAssertTrue(eventually(timeout: 10) { !zeroconfLines(notes).isEmpty })
        let lines = zeroconfLines(notes)
        XCTAssertEqual(lines.count, 1, "\(lines)")
        XCTAssertTrue(lines.first?.hasPrefix("zeroconf: cannot reach avahi-daemon (") == true, "\(lines)")
        XCTAssertTrue(lines.first?.hasSuffix("); the host is not announced") == true, "\(lines)")
        let client = try MPDClient.connect(host: "127.0.0.1", port: try XCTUnwrap(host.tcpPort))
        try client.run("password", "secret")
        XCTAssertTrue(try client.run("status").contains { $0.key == "state" })
        client.disconnect()
        await host.stop()
    }

    func testAHostOnLoopbackOnlyIsNotAnnouncedButItsStreamsOnEveryAddressAre() async throws {
        let avahi = try AvahiForTest.start(daemon: true)
        self.avahi = avahi
        let notes = Notes()
        let config = try ConfigFile(parsing: "music_directory = \(music.path)\nport = 0\nzeroconf_name = XZ Test @ %h\n")
        let host = try await LibraryHost.start(try HostConfiguration(config: config, output: .null), library: library,
                                               database: database, listening: .socketAndTCP,
                                               notes: { note in notes.append(note) })
        host.announce(httpStreams: [ListeningPort(address: "0.0.0.0", port: 8000), ListeningPort(address: "::", port: 8002),
                                    ListeningPort(address: "127.0.0.1", port: 8001)])
        var streams: [AvahiForTest.Resolved] = []
        XCTAssertTrue(try eventually(timeout: 20) {
            streams = try avahi.browse("_http._tcp")
            return streams.count == 2
        }, "\(streams); \(notes.all)")
        XCTAssertEqual(Set(streams.map(\.port)), [8000, 8002], "the loopback stream is not announced")
        XCTAssertEqual(Set(streams.map(\.name)), ["\(announcedName) (port 8000)", "\(announcedName) (port 8002)"])
        XCTAssertEqual(streams.map(\.text), ["\"path=/\"", "\"path=/\""])
        XCTAssertEqual(try avahi.browse("_mpd._tcp"), [], "the protocol port only this machine reaches is not announced")
        XCTAssertEqual(host.announced.keys.map(\.kind), [.http, .http])

        // One stream fewer: withdrawn, the other kept; one stream is announced by the host's name.
        host.announce(httpStreams: [ListeningPort(address: "0.0.0.0", port: 8000)])
        XCTAssertTrue(try eventually(timeout: 20) {
            streams = try avahi.browse("_http._tcp")
            return streams.map(\.port) == [8000] && streams.first?.name == announcedName
        }, "\(streams)")
        await host.stop()
    }

    func testTheNameIsMPDsWithTheHostNameAndFitsADNSLabel() {
        XCTAssertEqual(ZeroconfName.expand(ZeroconfName.defaultTemplate, hostName: "den"), "Music Player @ den")
        XCTAssertEqual(ZeroconfName.expand("%h's music, not %h", hostName: "den"), "den's music, not %h", "the first %h, as MPD")
        XCTAssertEqual(ZeroconfName.expand("a" + String(repeating: "é", count: 40), hostName: "den"),
                       "a" + String(repeating: "é", count: 31), "63 bytes")
        XCTAssertEqual(ZeroconfName.expand(String(repeating: "é", count: 40), hostName: "den"),
                       String(repeating: "é", count: 31), "62 bytes: cut at a character, never inside one")
        XCTAssertEqual(ZeroconfService(name: String(repeating: "x", count: 100), kind: .mpd, port: 1).name.utf8.count, 63)
    }
}

/// The host's notes, as they come from any thread.
final class Notes: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// A private system bus (`dbus-daemon` with a permissive policy) and, on it, `avahi-daemon` in network and
/// mount namespaces of its own (its runtime folder in the test's). This process reaches the bus through
/// DBUS_SYSTEM_BUS_ADDRESS, which libdbus reads once per process: the bus is at one path for every test.
final class AvahiForTest {
    struct Resolved: Equatable, CustomStringConvertible {
        var name: String
        var address: String
        var port: Int
        var text: String
        var description: String { "\(name) at \(address):\(port)" }
    }

    /// The bus's folder and address for the whole process, set in its environment before any client.
    private static let busAddress: Result<(folder: URL, address: String), Error> = Result {
        let folder = try TestTemporaryRoot.url().appendingPathComponent("system-bus")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let address = "unix:path=\(folder.path)/bus"
        setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1)
        return (folder, address)
    }

    /// No system bus at all: the process's bus address leads nowhere.
    static func withoutBus() throws {
        let (folder, _) = try busAddress.get()
        try? FileManager.default.removeItem(atPath: folder.appendingPathComponent("bus").path)
    }

    private let folder: TemporaryFolder
    private let bus: RunningProcess
    private var daemon: RunningProcess?
    private let environment: [String: String]

    /// The bus, and the daemon on it when `daemon`; skips the test, with one line, where they cannot start.
    static func start(daemon: Bool) throws -> AvahiForTest {
        for tool in ["dbus-daemon", "avahi-daemon", "avahi-browse", "avahi-publish", "unshare", "ip"] where (try? TestProcess.which(tool)) == nil
            && !FileManager.default.isExecutableFile(atPath: "/usr/sbin/\(tool)") {
            throw XCTSkip("zeroconf: \(tool) is not installed")
        }
        let (busFolder, address) = try busAddress.get()
        try? FileManager.default.removeItem(atPath: busFolder.appendingPathComponent("bus").path)
        let folder = try TemporaryFolder("avahi")
        let policy = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*"/>
                <allow receive_sender="*"/>
              </policy>
            </busconfig>
            """
        try policy.write(toFile: folder.path("bus.conf"), atomically: true, encoding: .utf8)
        try """
            [server]
            use-ipv4=yes
            use-ipv6=no
            enable-dbus=yes
            [publish]
            publish-hinfo=no
            publish-workstation=no
            """.write(toFile: folder.path("avahi-daemon.conf"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: folder.path("run"), withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        let bus = try RunningProcess(try TestProcess.which("dbus-daemon"),
                                     ["--config-file=\(folder.path("bus.conf"))", "--nofork", "--nopidfile"], environment: environment)
        let avahi = AvahiForTest(folder: folder, bus: bus, environment: environment)
        guard eventually(timeout: 10, { FileManager.default.fileExists(atPath: busFolder.appendingPathComponent("bus").path) }) else {
            avahi.stop()
            throw XCTSkip("zeroconf: the test's dbus-daemon did not start: \(bus.stderr)")
        }
        if daemon { try avahi.startDaemon() }
        return avahi
    }

    private init(folder: TemporaryFolder, bus: RunningProcess, environment: [String: String]) {
        self.folder = folder
        self.bus = bus
        self.environment = environment
    }

    /// avahi-daemon, root in namespaces of its own: only loopback, and its pid file and socket in the
    /// test's folder mounted over /run. Under a shell that passes SIGTERM on: the daemon closes the
    /// descriptors it inherits, which Foundation's Process takes for its end (and then waits for it, so
    /// no other child would be reaped).
    func startDaemon() throws {
        let namespaces = getuid() == 0 ? "-mn" : "-rmn"
        let script = "ip link set lo up && mount --bind \(folder.path("run")) /run && mkdir -p /run/avahi-daemon && { "
            + "avahi-daemon --no-drop-root --no-chroot --no-rlimits --no-proc-title -f \(folder.path("avahi-daemon.conf")) & "
            + "daemon=$!; trap 'kill $daemon; wait $daemon' TERM; wait $daemon; }"
        let started = try RunningProcess(try TestProcess.which("unshare"), [namespaces, "sh", "-c", script], environment: environment)
        daemon = started
        guard eventually(timeout: 15, { started.stderr.contains("Server startup complete") || !started.process.isRunning }),
              started.process.isRunning else {
            let why = started.stderr.split(separator: "\n").last.map(String.init) ?? "no output"
            stop()
            throw XCTSkip("zeroconf: avahi-daemon cannot start here: \(why)")
        }
    }

    func stopDaemon() {
        guard let daemon else { return }
        daemon.signal(SIGTERM)
        _ = daemon.finish(timeout: 10)
        self.daemon = nil
    }

    func stop() {
        stopDaemon()
        bus.signal(SIGTERM)
        _ = bus.finish(timeout: 10)
        if let (folder, _) = try? Self.busAddress.get() {
            try? FileManager.default.removeItem(atPath: folder.appendingPathComponent("bus").path)
        }
    }

    /// The services of `type` the daemon knows, resolved (`avahi-browse -rpt`).
    func browse(_ type: String) throws -> [Resolved] {
        let result = try TestProcess.run(try TestProcess.which("avahi-browse"), ["-rpt", type], environment: environment)
        return result.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 10, fields[0] == "=", let port = Int(fields[8]) else { return nil }
            return Resolved(name: Self.unescaped(fields[3]), address: fields[7], port: port, text: fields[9])
        }
    }

    /// Another program's service (`avahi-publish -s`), until it is signalled.
    func publish(name: String, type: String, port: Int) throws -> RunningProcess {
        try RunningProcess(try TestProcess.which("avahi-publish"), ["-s", name, type, String(port)], environment: environment)
    }

    /// avahi-browse's `-p` escaping: `\DDD` (decimal) for a byte, `\c` for a character.
    static func unescaped(_ text: String) -> String {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "\\"), let next = input.first else { bytes.append(byte); continue }
            let digits = input.prefix(3)
            if digits.count == 3, digits.allSatisfy({ (48...57).contains($0) }), let value = UInt8(String(decoding: digits, as: UTF8.self)) {
                bytes.append(value)
                input = input.dropFirst(3)
            } else {
                bytes.append(next)
                input = input.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
