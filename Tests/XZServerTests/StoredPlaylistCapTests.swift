import Foundation
import XCTest
import XZCatalogue
import XZProtocol
import XZServer
import XZTestSupport

/// Stored playlists hold at most `max_playlist_length` songs (MPD's 16,384): a change past it is refused
/// with MPD's ACK and changes nothing, and a longer file is read up to it.
final class StoredPlaylistCapTests: MusicFolderHostTestCase {
    private var playlistsFolder: URL { library.url.appendingPathComponent("playlists") }

    private func writeFile(_ name: String, songs: Int, in folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let text = String(repeating: "album/1.mp3\n", count: songs)
        try Data(text.utf8).write(to: folder.appendingPathComponent(name + ".m3u"))
    }

    private func ack(_ client: MPDClient, _ line: String...) -> String {
        do {
            _ = try client.run(MPDRequest(name: line[0], arguments: Array(line.dropFirst())))
            return "OK"
        } catch let error as MPDError {
            return "\(error.code.rawValue) \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    func testAFullPlaylistRefusesMoreAsMPDDoes() throws {
        let cap = StoredPlaylists.defaultMaxLength
        try writeFile("full", songs: cap, in: playlistsFolder)
        try writeFile("full", songs: cap, in: folder.url.appendingPathComponent("mpd-playlists"))
        // MPD 0.23 counts songs when it inserts at a position; appending, it guesses from the file's
        // bytes (and lets a playlist of short names grow past the cap), where this host counts too.
        try compareWithRealMPD(["playlistadd full album/2.mp3 0", "playlistdelete full 0", "playlistadd full album/2.mp3 5",
                                "playlistadd full album/3.mp3 0"])
        let client = try client()
        XCTAssertEqual(ack(client, "playlistadd", "full", "album/3.mp3"), "51 Stored playlist is too large")
        let songs = try client.run("listplaylist", "full").map(\.value)
        XCTAssertEqual(songs.count, cap)
        XCTAssertEqual(songs[5], "album/2.mp3", "the one song that fitted")
    }

    func testEveryWayOfGrowingAPlaylistStopsAtTheCap() throws {
        let cap = StoredPlaylists.defaultMaxLength
        try writeFile("full", songs: cap, in: playlistsFolder)
        let file = playlistsFolder.appendingPathComponent("full.m3u")
        let before = try Data(contentsOf: file)
        let client = try client()
        _ = try client.run("add", "album/2.mp3")
        XCTAssertEqual(ack(client, "playlistadd", "full", "album"), "51 Stored playlist is too large")
        XCTAssertEqual(ack(client, "playlistadd", "full", "album/3.mp3", "0"), "51 Stored playlist is too large")
        XCTAssertEqual(ack(client, "save", "full", "append"), "51 Stored playlist is too large")
        XCTAssertEqual(try Data(contentsOf: file), before, "a refused change leaves the file as it was")
        XCTAssertEqual(ack(client, "save", "full", "replace"), "OK", "replacing makes it short again")
        XCTAssertEqual(try client.run("listplaylist", "full").map(\.value), ["album/2.mp3"])
    }

    func testALongerFileIsReadUpToTheCap() throws {
        let cap = StoredPlaylists.defaultMaxLength
        try writeFile("long", songs: cap + 5_000, in: playlistsFolder)
        XCTAssertEqual(try client().run("listplaylist", "long").count, cap)

        // A smaller cap, and a file whose bytes run past what that many songs can take.
        let store = StoredPlaylists(library: library, maxLength: 3)
        XCTAssertEqual(try store.read("long").count, 3)
        XCTAssertThrowsError(try store.edit("long") { $0.append(PlaylistEntry(location: "album/2.mp3")) }) {
            XCTAssertEqual($0 as? CatalogueError, .playlistTooLarge)
        }
        let endless = playlistsFolder.appendingPathComponent("endless.m3u")
        let longLine = String(repeating: "x", count: 40_000)
        try Data("album/1.mp3\n\(longLine)\nalbum/2.mp3\n".utf8).write(to: endless)
        let read = try store.read("endless")
        XCTAssertEqual(read.map(\.location), ["album/1.mp3"], "the half-read line is no song")
    }
}
