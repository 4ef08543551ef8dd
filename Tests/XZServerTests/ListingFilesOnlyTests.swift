import Foundation
import XCTest
import XZCatalogue
import XZHostCore
import XZPlaybackValues
import XZProtocol
import XZServer
import XZTestSupport

/// Folder listings (listall, listallinfo, lsinfo) hold files only, as MPD's database does: on a host that
/// streams, a catalogue song that is not offline is found by its URL but is no file, and no folder is made
/// of its URL.
final class ListingFilesOnlyTests: MusicFolderHostTestCase {
    func testOnlineSongsAreNotListedAsFolders() throws {
        let feed = folder.url.appendingPathComponent("online.jsonl")
        try #"{"source_id": "qt", "title": "晴天", "singer": "周杰伦", "audio_url": "https://example.invalid/qt.mp3"}"#
            .write(to: feed, atomically: true, encoding: .utf8)
        _ = try host.database.importFeed(at: feed)
        _ = host.startUpdate(of: music, rescan: false)
        host.updates.wait()
        // The same library on a host that streams.
        let streaming = PlayerHost(folder: library, database: host.database, output: .null, musicDirectory: music,
                                   streams: { _ in throw PlaybackError.streamFailed("not in this test") }) { _ in }
        let server = ProtocolServer(host: streaming, password: nil)
        defer {
            server.shutdown()
            streaming.shutdown()
        }
        let client = try MPDClient.connect(host: "127.0.0.1", port: try server.listen(host: "127.0.0.1", port: 0))
        let songs = ["album/1.mp3", "album/2.mp3", "album/3.mp3"]
        XCTAssertEqual(try client.run("listall").map { "\($0.key): \($0.value)" },
                       ["directory: album"] + songs.map { "file: \($0)" })
        let full = try client.run("listallinfo")
        XCTAssertEqual(full.filter { $0.key == "directory" }.map(\.value), ["album"])
        XCTAssertEqual(full.filter { $0.key == "file" }.map(\.value), songs)
        let root = try client.run("lsinfo")
        XCTAssertEqual(root.filter { $0.key == "directory" }.map(\.value), ["album"])
        XCTAssertEqual(root.filter { $0.key == "file" }.count, 0)
        XCTAssertThrowsError(try client.run("listall", "https:"), "no folder is made of a URL")
        XCTAssertThrowsError(try client.run("lsinfo", "https:"))
        // Still found, by its URL.
        XCTAssertEqual(try client.run("search", "title", "晴天").first { $0.key == "file" }?.value, "https://example.invalid/qt.mp3")
    }
}
