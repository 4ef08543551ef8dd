import Foundation
import XCTest
import XZCatalogue
import XZHostAssembly
import XZServer
import XZSystem
import XZTestSupport

/// As MPD with no database: a host started on a music folder the catalogue holds nothing of scans it at
/// start, in the background, while clients are answered; the scan ends with `idle database`.
@MainActor
final class FirstStartScanTests: XCTestCase {
    func testAHostOnAnUnscannedMusicFolderScansItAtStart() async throws {
        let temp = try TemporaryFolder("first-start")
        let music = temp.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("album"), withIntermediateDirectories: true)
        for index in 1...3 {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("album/\(index).mp3").path, seconds: 1,
                                      tags: .init(title: "Song \(index)", artist: "Artist", album: "Album", track: index))
        }
        let library = LibraryFolder(url: temp.url.appendingPathComponent("library"))
        let database = try library.open(seedingDemoFrom: nil)
        let configuration = try HostConfiguration(config: ConfigFile(parsing: "music_directory = \(music.path)\nport = 0\n"),
                                                  output: .null)
        let host = try await LibraryHost.start(configuration, library: library, database: database, listening: .socketAndTCP)
        let client = try MPDClient.connect(host: "127.0.0.1", port: try XCTUnwrap(host.tcpPort))
        // Answered while it scans; the scan's end wakes a client waiting for the database.
        let status = try client.run("status")
        if status.contains(where: { $0.key == "updating_db" }) {
            XCTAssertEqual(try client.run("idle", "database").map(\.value), ["database"])
        }
        host.host.updates.wait()
        XCTAssertEqual(try client.run("stats").first { $0.key == "songs" }?.value, "3")
        XCTAssertNil(host.host.scanMusicFolderIfUnscanned(), "a scanned folder is not scanned again at start")
        client.disconnect()
        await host.stop()

        // Started again on the same catalogue: no scan.
        let again = try await LibraryHost.start(configuration, library: library, database: database, listening: .socketAndTCP)
        let second = try MPDClient.connect(host: "127.0.0.1", port: try XCTUnwrap(again.tcpPort))
        XCTAssertNil(try second.run("status").first { $0.key == "updating_db" })
        second.disconnect()
        await again.stop()
    }
}
