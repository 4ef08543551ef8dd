import Foundation
import XCTest
import XZCatalogue
import XZHostCore
import XZHostAssembly
@testable import XZMPRIS
import XZServer
import XZSystem
import XZTestSupport

/// A real host on a private session bus, driven and read by the real clients: playerctl, busctl and
/// dbus-monitor, with the host's MPD status alongside.
@MainActor
final class MPRISTests: XCTestCase {
    private var temp: TemporaryFolder!
    private var library: LibraryFolder!
    private var database: LibraryDatabase!
    private var music: URL!
    private var bus: RunningProcess!
    private var address = ""
    /// Stopped in `tearDown`, before the bus and the folder go.
    private var hosts: [LibraryHost] = []

    override func setUp() async throws {
        for tool in ["dbus-daemon", "playerctl", "busctl", "dbus-monitor"] where !FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)") {
            throw XCTSkip("\(tool) is not installed")
        }
        temp = try TemporaryFolder("mpris")
        music = temp.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("album"), withIntermediateDirectories: true)
        for index in 1...3 {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("album/\(index).mp3").path, seconds: 30, rate: 8000, channels: 1,
                                      tags: .init(title: "Song \(index)", artist: "Artist \(index)", album: "Album", track: index),
                                      lameOptions: ["-b", "32"])
        }
        try "[00:01.00]First words\n[00:02.00]Second words\n".write(to: music.appendingPathComponent("album/1.lrc"), atomically: true, encoding: .utf8)
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10] + Array("JFIF".utf8) + [0, 1, 2, 3]).write(to: music.appendingPathComponent("album/cover.jpg"))
        library = LibraryFolder(url: temp.url.appendingPathComponent("library"))
        database = try library.open(seedingDemoFrom: nil)
        bus = try RunningProcess("/usr/bin/dbus-daemon", ["--session", "--print-address=1", "--nofork"],
                                 environment: ProcessInfo.processInfo.environment)
        XCTAssertTrue(bus.waitForOutput("\n"), "dbus-daemon prints its address: \(bus.stderr)")
        address = bus.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    override func tearDown() async throws {
        for host in hosts { await host.stop() }
        hosts = []
        bus?.signal(SIGTERM)
        _ = bus?.finish()
        bus = nil
        database = nil
        temp = nil
    }

    private func configuration(busAddress: String? = nil) throws -> HostConfiguration {
        var configuration = try HostConfiguration(config: ConfigFile(parsing: "music_directory = \(music.path)\nport = 0\n"), output: .null)
        configuration.mpris.busAddress = busAddress ?? address
        configuration.mpris.coverFolder = temp.url.appendingPathComponent("covers")
        return configuration
    }

    private func start(_ configuration: HostConfiguration, library: LibraryFolder? = nil, database: LibraryDatabase? = nil,
                       notes: @escaping @Sendable (String) -> Void = { _ in }) async throws -> LibraryHost {
        let host = try await LibraryHost.start(configuration, library: library ?? self.library, database: database ?? self.database,
                                               listening: .socketAndTCP, notes: notes)
        hosts.append(host)
        host.host.updates.wait()
        return host
    }

    private var clientEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        return environment
    }

    /// playerctl's answer, trimmed; its error output when it failed.
    @discardableResult
    private func playerctl(_ arguments: String...) throws -> String {
        let result = try TestProcess.run("/usr/bin/playerctl", ["-p", "xzmusic"] + arguments, environment: clientEnvironment)
        return (result.status == 0 ? result.stdout : "failed: " + result.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func busctl(_ arguments: String...) throws -> ProcessResult {
        try TestProcess.run("/usr/bin/busctl", ["--user"] + arguments, environment: clientEnvironment)
    }

    private func busctlCall(_ method: String, _ signature: String, _ values: String...) throws -> ProcessResult {
        // `--`: a negative number is no option.
        try TestProcess.run("/usr/bin/busctl", ["--user", "call", "--", "org.mpris.MediaPlayer2.xzmusic", "/org/mpris/MediaPlayer2",
                                                "org.mpris.MediaPlayer2.Player", method, signature] + values, environment: clientEnvironment)
    }

    private func status(_ client: MPDClient) throws -> [String: String] {
        Dictionary(try client.run("status").map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// Waits (a few seconds at most) until `condition` holds; the assertion then says what was seen.
    private func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date(timeIntervalSinceNow: 5)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }

    func testPlayerctlReadsAndDrivesTheHostAsItsMPDStatusSays() async throws {
        let host = try await start(try configuration())
        XCTAssertEqual(host.mpris?.busName, "org.mpris.MediaPlayer2.xzmusic")
        let mpd = try MPDClient.connect(host: "127.0.0.1", port: try XCTUnwrap(host.tcpPort))
        for index in 1...3 { try mpd.run("add", "album/\(index).mp3") }

        XCTAssertEqual(try playerctl("status"), "Stopped")
        try playerctl("play")
        XCTAssertTrue(try eventually { try playerctl("status") == "Playing" })
        XCTAssertEqual(try status(mpd)["state"], "play")
        let fields = try playerctl("metadata", "--format",
                                   "{{mpris:trackid}}|{{xesam:title}}|{{artist}}|{{xesam:album}}|{{mpris:length}}|{{xesam:url}}|{{mpris:artUrl}}|{{xesam:trackNumber}}")
            .split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        let songId = try XCTUnwrap(status(mpd)["songid"])
        // playerctl quotes an object path.
        XCTAssertEqual(Array(fields.prefix(4)), ["'/org/xzmusic/track/\(songId)'", "Song 1", "Artist 1", "Album"])
        XCTAssertEqual(Double(fields[4]).map { ($0 / 1_000_000).rounded() }, 30, "length in µs: \(fields[4])")
        XCTAssertEqual(fields[5], music.appendingPathComponent("album/1.mp3").absoluteString)
        let cover = try XCTUnwrap(URL(string: fields[6]), fields[6])
        XCTAssertTrue(cover.isFileURL && cover.path.hasPrefix(temp.url.appendingPathComponent("covers").path), fields[6])
        XCTAssertEqual(try Data(contentsOf: cover), try Data(contentsOf: music.appendingPathComponent("album/cover.jpg")))
        XCTAssertEqual(fields[7], "1")
        XCTAssertEqual(try playerctl("metadata", "xesam:asText"), "First words\nSecond words")

        try playerctl("pause")
        XCTAssertTrue(try eventually { try playerctl("status") == "Paused" })
        XCTAssertEqual(try status(mpd)["state"], "pause")
        try playerctl("play-pause")
        XCTAssertTrue(try eventually { try status(mpd)["state"] == "play" })
        XCTAssertEqual(try playerctl("status"), "Playing")

        try playerctl("next")
        XCTAssertTrue(try eventually { try playerctl("metadata", "xesam:title") == "Song 2" })
        XCTAssertEqual(try status(mpd)["song"], "1")
        XCTAssertFalse(try playerctl("metadata").contains("xesam:asText"), "the second song has no lyrics")
        try playerctl("previous")
        XCTAssertTrue(try eventually { try playerctl("metadata", "xesam:title") == "Song 1" })
        XCTAssertEqual(try status(mpd)["song"], "0")

        // Position: absolute, then forward and back; MPD's elapsed agrees.
        func position() throws -> Double { Double(try playerctl("position")) ?? -1 }
        func elapsed() throws -> Double { Double(try status(mpd)["elapsed"] ?? "") ?? -1 }
        try playerctl("position", "10")
        XCTAssertTrue(try eventually { abs(try position() - 10) < 1.5 }, "position")
        XCTAssertEqual(try elapsed(), try position(), accuracy: 1.5)
        try playerctl("position", "5+")
        XCTAssertTrue(try eventually { abs(try position() - 15) < 1.5 }, "position")
        try playerctl("position", "3-")
        XCTAssertTrue(try eventually { abs(try position() - 12) < 1.5 }, "position")
        XCTAssertEqual(try elapsed(), try position(), accuracy: 1.5)

        try playerctl("volume", "0.4")
        XCTAssertTrue(try eventually { try status(mpd)["volume"] == "40" })
        XCTAssertEqual(Double(try playerctl("volume")), 0.4)
        try mpd.run("setvol", "70")
        XCTAssertEqual(Double(try playerctl("volume")), 0.7)

        try playerctl("loop", "Track")
        XCTAssertTrue(try eventually { try status(mpd)["repeat"] == "1" && status(mpd)["single"] == "1" })
        try playerctl("loop", "Playlist")
        XCTAssertTrue(try eventually { try status(mpd)["repeat"] == "1" && status(mpd)["single"] == "0" })
        XCTAssertEqual(try playerctl("loop"), "Playlist")
        try playerctl("loop", "None")
        XCTAssertTrue(try eventually { try status(mpd)["repeat"] == "0" })
        try playerctl("shuffle", "On")
        XCTAssertTrue(try eventually { try status(mpd)["random"] == "1" })
        try mpd.run("random", "0")
        XCTAssertEqual(try playerctl("shuffle"), "Off")

        try playerctl("stop")
        XCTAssertTrue(try eventually { try status(mpd)["state"] == "stop" })
        XCTAssertEqual(try playerctl("status"), "Stopped")
    }

    /// CanGoNext and CanGoPrevious as the player's next and previous would do.
    func testNextAndPreviousAreHonestAtTheQueuesEnds() async throws {
        let host = try await start(try configuration())
        let mpd = try MPDClient.connect(host: "127.0.0.1", port: try XCTUnwrap(host.tcpPort))
        for index in 1...2 { try mpd.run("add", "album/\(index).mp3") }
        func can(_ what: String) throws -> String {
            try busctl("get-property", "org.mpris.MediaPlayer2.xzmusic", "/org/mpris/MediaPlayer2",
                       "org.mpris.MediaPlayer2.Player", what).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        XCTAssertEqual(try can("CanGoNext"), "b false", "stopped")
        XCTAssertEqual(try can("CanPlay"), "b true")
        try mpd.run("play", "0")
        XCTAssertTrue(try eventually { try can("CanGoNext") == "b true" })
        XCTAssertEqual(try can("CanGoPrevious"), "b false", "the first song")
        try mpd.run("play", "1")
        XCTAssertTrue(try eventually { try can("CanGoNext") == "b false" }, "the last song without repeat")
        XCTAssertEqual(try can("CanGoPrevious"), "b true")
        try mpd.run("repeat", "1")
        XCTAssertTrue(try eventually { try can("CanGoNext") == "b true" }, "repeat wraps")
        try mpd.run("clear")
        XCTAssertTrue(try eventually { try can("CanPlay") == "b false" })
        XCTAssertEqual(try busctl("get-property", "org.mpris.MediaPlayer2.xzmusic", "/org/mpris/MediaPlayer2",
                                  "org.mpris.MediaPlayer2.Player", "Metadata").stdout,
                       "a{sv} 1 \"mpris:trackid\" o \"/org/mpris/MediaPlayer2/TrackList/NoTrack\"\n")
    }

    /// Changes are told as they happen: PropertiesChanged for what changed, Seeked for a jump.
    func testChangesAndSeeksAreSignalled() async throws {
        let host = try await start(try configuration())
        let mpd = try MPDClient.connect(host: "127.0.0.1", port: try XCTUnwrap(host.tcpPort))
        try mpd.run("add", "album/1.mp3")
        let monitor = try RunningProcess("/usr/bin/dbus-monitor", ["--address", address, "path=/org/mpris/MediaPlayer2"],
                                         environment: clientEnvironment)
        defer { monitor.signal(SIGTERM); _ = monitor.finish() }
        XCTAssertTrue(monitor.waitForOutput("NameAcquired"), monitor.stderr)
        try mpd.run("play", "0")
        XCTAssertTrue(monitor.waitForOutput("\"PlaybackStatus\""), monitor.stdout)
        XCTAssertTrue(monitor.waitForOutput("\"Playing\""), monitor.stdout)
        try mpd.run("seekcur", "20")
        XCTAssertTrue(monitor.waitForOutput("member=Seeked"), monitor.stdout)
        let seeked = try XCTUnwrap(monitor.stdout.components(separatedBy: "member=Seeked").last)
        let micros = seeked.split(separator: "\n").first.flatMap { $0.split(separator: " ").last }.flatMap { Int64($0) }
        XCTAssertEqual(Double(micros ?? 0) / 1_000_000, 20, accuracy: 1, seeked)
        try mpd.run("setvol", "30")
        XCTAssertTrue(monitor.waitForOutput("double 0.3"), monitor.stdout)
    }

    func testBusctlIntrospectListsTheSpecificationsMembers() async throws {
        let host = try await start(try configuration())
        defer { withExtendedLifetime(host) {} }  // on the bus for the whole test
        let result = try busctl("introspect", "org.mpris.MediaPlayer2.xzmusic", "/org/mpris/MediaPlayer2")
        XCTAssertEqual(result.status, 0, result.stderr)
        // NAME TYPE SIGNATURE RESULT FLAGS, one member a line.
        let members = Set(result.stdout.split(separator: "\n").map { line in
            line.split(separator: " ", omittingEmptySubsequences: true).prefix(3).joined(separator: " ")
        })
        let expected = [
            ".Quit method -", ".Raise method -", ".CanQuit property b", ".CanRaise property b", ".HasTrackList property b",
            ".Identity property s", ".DesktopEntry property s", ".SupportedMimeTypes property as", ".SupportedUriSchemes property as",
            ".Next method -", ".OpenUri method s", ".Pause method -", ".Play method -", ".PlayPause method -", ".Previous method -",
            ".Seek method x", ".SetPosition method ox", ".Stop method -", ".CanControl property b", ".CanGoNext property b",
            ".CanGoPrevious property b", ".CanPause property b", ".CanPlay property b", ".CanSeek property b",
            ".LoopStatus property s", ".MaximumRate property d", ".Metadata property a{sv}", ".MinimumRate property d",
            ".PlaybackStatus property s", ".Position property x", ".Rate property d", ".Shuffle property b", ".Volume property d",
            ".Seeked signal x",
        ]
        for member in expected { XCTAssertTrue(members.contains(member), "\(member) in\n\(result.stdout)") }
        XCTAssertTrue(result.stdout.contains("org.mpris.MediaPlayer2.Player"))
        XCTAssertEqual(try busctl("get-property", "org.mpris.MediaPlayer2.xzmusic", "/org/mpris/MediaPlayer2",
                                  "org.mpris.MediaPlayer2", "Identity").stdout, "s \"XZMusic\"\n")
    }

    /// Any number, type or name a caller sends is clamped or refused with a D-Bus error; the host goes on.
    func testHostileCallersGetErrorsOrClampedValuesNeverATrap() async throws {
        let host = try await start(try configuration())
        let mpd = try MPDClient.connect(host: "127.0.0.1", port: try XCTUnwrap(host.tcpPort))
        for index in 1...2 { try mpd.run("add", "album/\(index).mp3") }
        try mpd.run("play", "0")
        for offset in ["9223372036854775807", "-9223372036854775808", "-1", "0"] {
            XCTAssertEqual(try busctlCall("Seek", "x", offset).status, 0, offset)
        }
        XCTAssertTrue(try eventually { try status(mpd)["song"] == "1" }, "a seek past the end is next, as the spec says")
        let id = try XCTUnwrap(status(mpd)["songid"])
        XCTAssertEqual(try busctlCall("SetPosition", "ox", "/org/xzmusic/track/999999", "5000000").status, 0)
        XCTAssertEqual(try busctlCall("SetPosition", "ox", "/org/xzmusic/track/\(id)", "-9223372036854775808").status, 0)
        XCTAssertEqual(try busctlCall("SetPosition", "ox", "/org/xzmusic/track/\(id)", "9223372036854775807").status, 0)
        XCTAssertLessThan(Double(try status(mpd)["elapsed"] ?? "") ?? 99, 4, "a stale id or a place outside the song does nothing")
        XCTAssertEqual(try busctlCall("SetPosition", "ox", "/org/xzmusic/track/\(id)", "20000000").status, 0)
        XCTAssertTrue(try eventually { (Double(try status(mpd)["elapsed"] ?? "") ?? 0) >= 19 })

        func setVolume(_ value: String) throws -> ProcessResult {
            try busctl("set-property", "--", "org.mpris.MediaPlayer2.xzmusic", "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player",
                       "Volume", "d", value)
        }
        XCTAssertNotEqual(try setVolume("nan").status, 0, "NaN is refused")
        XCTAssertEqual(try setVolume("-5").status, 0)
        XCTAssertEqual(try status(mpd)["volume"], "0")
        XCTAssertEqual(try setVolume("1e300").status, 0)
        XCTAssertEqual(try status(mpd)["volume"], "100")
        XCTAssertEqual(try setVolume("inf").status, 0)
        XCTAssertEqual(try status(mpd)["volume"], "100")
        let wrongType = try busctl("set-property", "org.mpris.MediaPlayer2.xzmusic", "/org/mpris/MediaPlayer2",
                                   "org.mpris.MediaPlayer2.Player", "Volume", "s", "loud")
        XCTAssertNotEqual(wrongType.status, 0)
        XCTAssertNotEqual(try busctl("set-property", "org.mpris.MediaPlayer2.xzmusic", "/org/mpris/MediaPlayer2",
                                     "org.mpris.MediaPlayer2.Player", "LoopStatus", "s", "Sometimes").status, 0)
        XCTAssertNotEqual(try busctl("set-property", "org.mpris.MediaPlayer2.xzmusic", "/org/mpris/MediaPlayer2",
                                     "org.mpris.MediaPlayer2.Player", "Rate", "d", "2").status, 0)
        XCTAssertNotEqual(try busctl("set-property", "org.mpris.MediaPlayer2.xzmusic", "/org/mpris/MediaPlayer2",
                                     "org.mpris.MediaPlayer2.Player", "Position", "x", "1").status, 0, "Position is read only")
        XCTAssertNotEqual(try busctlCall("Seek", "s", "far").status, 0, "a wrong signature is sd-bus's error")

        // OpenUri: a song of the music folder plays; nothing outside it opens.
        let outside = temp.url.appendingPathComponent("outside.mp3")
        try FileManager.default.copyItem(at: music.appendingPathComponent("album/3.mp3"), to: outside)
        try FileManager.default.createSymbolicLink(at: music.appendingPathComponent("escape.mp3"), withDestinationURL: outside)
        let outsideFolder = temp.url.appendingPathComponent("outside-folder")
        try FileManager.default.createDirectory(at: outsideFolder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: outside, to: outsideFolder.appendingPathComponent("outside.mp3"))
        try FileManager.default.createSymbolicLink(at: music.appendingPathComponent("escapes"), withDestinationURL: outsideFolder)
        // A file of the music folder the library has not scanned is no song of it, as for MPD's clients.
        try FileManager.default.copyItem(at: music.appendingPathComponent("album/3.mp3"), to: music.appendingPathComponent("album/unscanned.mp3"))
        for refused in ["file:///etc/passwd", outside.absoluteString, music.appendingPathComponent("escape.mp3").absoluteString,
                        music.appendingPathComponent("escapes/outside.mp3").absoluteString,
                        music.appendingPathComponent("escapes/nonexistent.mp3").absoluteString,
                        music.appendingPathComponent("album/unscanned.mp3").absoluteString,
                        music.appendingPathComponent("album/../../outside.mp3").absoluteString, "ftp://example.com/a.mp3",
                        "/etc/passwd", "file://otherhost" + music.appendingPathComponent("album/3.mp3").path,
                        String(repeating: "x", count: 100_000)] {
            let result = try busctlCall("OpenUri", "s", refused)
            XCTAssertNotEqual(result.status, 0, refused)
            XCTAssertFalse(result.stderr.isEmpty, refused)
        }
        XCTAssertEqual(try status(mpd)["playlistlength"], "2", "nothing refused was added")
        XCTAssertEqual(try busctlCall("OpenUri", "s", music.appendingPathComponent("album/3.mp3").absoluteString).status, 0)
        XCTAssertTrue(try eventually { try playerctl("metadata", "xesam:title") == "Song 3" })
        XCTAssertEqual(try status(mpd)["playlistlength"], "3")
    }

    func testWithoutASessionBusOneLineAndTheHostRuns() async throws {
        let notes = Mutex<[String]>([])
        var serving = try configuration(busAddress: "unix:path=" + temp.url.appendingPathComponent("no-bus").path)
        serving.notesMissingSessionBus = true
        let host = try await start(serving, notes: { line in notes.withLock { $0.append(line) } })
        XCTAssertNil(host.mpris)
        let lines = notes.withLock { $0 }.filter { $0.contains("session bus") }
        XCTAssertEqual(lines.count, 1, "\(lines)")
        XCTAssertTrue(lines.first?.hasPrefix("no session bus (") == true, "\(lines)")
        let mpd = try MPDClient.connect(host: "127.0.0.1", port: try XCTUnwrap(host.tcpPort))
        try mpd.run("add", "album/1.mp3")
        XCTAssertEqual(try status(mpd)["playlistlength"], "1")
    }

    /// A socket that takes the connection but never answers (a stuck bus daemon): the host starts and
    /// serves anyway; the name waits for an answer that does not come.
    func testABusThatNeverAnswersDoesNotHoldTheHost() async throws {
        let path = temp.url.appendingPathComponent("mute-bus").path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: Array(path.utf8).prefix(buffer.count - 1))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(listener, 4), 0)
        let host = try await start(try configuration(busAddress: "unix:path=" + path))
        XCTAssertNotNil(host.mpris)
        XCTAssertNil(host.mpris?.busName)
        let mpd = try MPDClient.connect(host: "127.0.0.1", port: try XCTUnwrap(host.tcpPort))
        try mpd.run("add", "album/1.mp3")
        XCTAssertEqual(try status(mpd)["playlistlength"], "1")
    }

    func testABusThatGoesAwayIsOneLineAndTheHostRunsOn() async throws {
        let notes = Mutex<[String]>([])
        let host = try await start(try configuration(), notes: { line in notes.withLock { $0.append(line) } })
        XCTAssertNotNil(host.mpris)
        bus.signal(SIGKILL)
        _ = bus.finish()
        XCTAssertTrue(eventually { notes.withLock { $0 }.contains { $0.hasPrefix("MPRIS left the session bus") } },
                      "\(notes.withLock { $0 })")
        let mpd = try MPDClient.connect(host: "127.0.0.1", port: try XCTUnwrap(host.tcpPort))
        try mpd.run("add", "album/1.mp3")
        try mpd.run("play", "0")
        XCTAssertEqual(try status(mpd)["state"], "play")
    }

    /// Covers are kept once per picture, and no more than the cache's cap of them.
    func testTheCoverCacheSharesPicturesAndStaysCapped() throws {
        let cache = CoverCache(folder: temp.url.appendingPathComponent("covers"))
        let picture = SongCover(mimeType: "image/png", data: [0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
        let first = try XCTUnwrap(cache.file(for: picture))
        XCTAssertEqual(cache.file(for: picture), first, "one file for an album's songs")
        XCTAssertTrue(first.hasSuffix(".png"))
        for index in 0..<(CoverCache.maxFiles + 5) {
            XCTAssertNotNil(cache.file(for: SongCover(mimeType: nil, data: [0xFF, 0xD8] + withUnsafeBytes(of: index) { Array($0) })))
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache.folder.path).count, CoverCache.maxFiles)
    }

    func testMprisNoKeepsTheHostOffTheBus() async throws {
        var configuration = try configuration()
        configuration.settings = try HostSettings(config: ConfigFile(parsing: "music_directory = \(music.path)\nport = 0\nmpris = no\n"))
        let host = try await start(configuration)
        XCTAssertNil(host.mpris)
        XCTAssertFalse(try TestProcess.run("/usr/bin/playerctl", ["-l"], environment: clientEnvironment).stdout.contains("xzmusic"))
    }

    /// A second host on the bus takes the spec's instance name; both are players to playerctl.
    func testASecondHostOnTheBusIsAnInstance() async throws {
        let first = try await start(try configuration())
        defer { withExtendedLifetime(first) {} }  // on the bus for the whole test
        let otherLibrary = LibraryFolder(url: temp.url.appendingPathComponent("library2"))
        let otherDatabase = try otherLibrary.open(seedingDemoFrom: nil)
        let second = try await start(try configuration(), library: otherLibrary, database: otherDatabase)
        XCTAssertEqual(second.mpris?.busName, "org.mpris.MediaPlayer2.xzmusic.instance\(getpid())")
        let players = try TestProcess.run("/usr/bin/playerctl", ["-l"], environment: clientEnvironment).stdout
        XCTAssertTrue(players.contains("xzmusic\n") && players.contains("xzmusic.instance\(getpid())"), players)
    }

    /// mpDris2, the bridge, beside the native player: two players of one host, as beside MPD.
    func testMpDris2AndTheNativePlayerBothShowOneHost() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/mpDris2") else { throw XCTSkip("mpDris2 is not installed") }
        let host = try await start(try configuration())
        let mpd = try MPDClient.connect(host: "127.0.0.1", port: try XCTUnwrap(host.tcpPort))
        try mpd.run("add", "album/2.mp3")
        try mpd.run("play", "0")
        var environment = clientEnvironment
        // Its own config file is not the user's.
        environment["HOME"] = temp.url.path
        environment["XDG_CONFIG_HOME"] = temp.url.appendingPathComponent("config").path
        let bridge = try RunningProcess("/usr/bin/mpDris2", ["--host=127.0.0.1", "--port=\(try XCTUnwrap(host.tcpPort))"],
                                        environment: environment)
        defer { bridge.signal(SIGTERM); _ = bridge.finish() }
        func players() throws -> [String] {
            try TestProcess.run("/usr/bin/playerctl", ["-l"], environment: clientEnvironment).stdout.split(separator: "\n").map(String.init)
        }
        XCTAssertTrue(try eventually { try players().contains("mpd") }, bridge.stderr)
        XCTAssertTrue(try players().contains("xzmusic"))
        for player in ["mpd", "xzmusic"] {
            let title = try TestProcess.run("/usr/bin/playerctl", ["-p", player, "metadata", "xesam:title"], environment: clientEnvironment)
            XCTAssertEqual(title.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "Song 2", player)
        }
    }
}
