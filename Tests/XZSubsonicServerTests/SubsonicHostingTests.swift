import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest
import XZAccounts
import XZCatalogue
import XZHostAssembly
import XZSystem
import XZTestSupport

/// The host answers the API when the config's `subsonic_port` is set — a hosting prompt as `serve` —
/// over the library's users, and stops answering when it stops; without the key the API is off.
@MainActor
final class SubsonicHostingTests: XCTestCase {
    func testTheConfigsPortTurnsTheAPIOnAndTheHostsStopTurnsItOff() async throws {
        let temp = try TemporaryFolder("subsonic-hosting")
        let music = temp.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        let library = LibraryFolder(url: temp.url.appendingPathComponent("library"))
        let database = try library.open(seedingDemoFrom: nil)
        try AccountStore(library: library, database: database).add(name: "anna", password: "pw")
        let keys = "music_directory = \(music.path)\nmpris = no\nzeroconf_enabled = no\n"

        let off = try HostConfiguration(config: ConfigFile(parsing: keys), output: .null)
        XCTAssertNil(off.settings.subsonic.port)
        let quiet = try await LibraryHost.start(off, library: library, database: database, listening: .socket)
        XCTAssertNil(quiet.subsonicPort)
        await quiet.stop()

        let on = try HostConfiguration(config: ConfigFile(parsing: keys + "subsonic_port = 0\nsubsonic_max_transcodes = 3\n"), output: .null)
        XCTAssertEqual(on.settings.subsonic.maxTranscodes, 3)
        let notes = Mutex<[String]>([])
        let host = try await LibraryHost.start(on, library: library, database: database, listening: .socket,
                                               notes: { note in notes.withLock { $0.append(note) } })
        let port = try XCTUnwrap(host.subsonicPort)
        XCTAssertGreaterThan(port, 0)
        let url = URL(string: "http://127.0.0.1:\(port)/rest/ping.view?u=anna&p=pw&v=1.16.1&c=test&f=json")!
        let (data, _) = try await URLSession.shared.data(from: url)
        XCTAssertTrue(String(decoding: data, as: UTF8.self).contains("\"status\":\"ok\""))
        XCTAssertFalse(notes.withLock { $0 }.contains { $0.contains("reachable from other machines") }, "loopback is not told")
        await host.stop()
        do {
            _ = try await URLSession.shared.data(from: url)
            XCTFail("the API still answers after the host stopped")
        } catch {}
    }
}
