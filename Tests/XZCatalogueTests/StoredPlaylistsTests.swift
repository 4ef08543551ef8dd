import Foundation
import XCTest
@testable import XZCatalogue
import XZTestSupport

/// Playlist names, the M3U text other players write and read, and whole-file writes in a real folder.
final class StoredPlaylistsTests: XCTestCase {
    func testNamesCannotLeaveThePlaylistFolder() throws {
        for good in ["mix", "周杰伦 精选", "a b.c", "x..y", "Rock & Roll (2026)", String(repeating: "é", count: 125)] {
            XCTAssertEqual(try StoredPlaylists.validate(good), good)
        }
        for bad in ["", "../x", "..", ".", ".hidden", "a/b", "/abs", "a\0b", "a\nb", "tab\there", "bell\u{7}",
                    "esc\u{1B}[31m", "del\u{7F}", String(repeating: "é", count: 126)] {
            XCTAssertThrowsError(try StoredPlaylists.validate(bad), bad.debugDescription) { error in
                XCTAssertEqual(error as? CatalogueError, .badPlaylistName)
            }
        }
    }

    func testParsesWhatOtherPlayersWrite() {
        let text = "\u{FEFF}#EXTM3U\r\n#EXTINF:269,周杰伦 - 晴天\r\n../Music/晴天.mp3\r\n\r\n# a comment\r\n"
            + "#EXTINF:-1 tvg-id=\"x\",Radio\r\nhttp://example.com/stream\r\n/abs/song.mp3\r\n  spaced.mp3  \r\n"
            + "#EXTINF:junk\r\nlast.mp3"
        let entries = M3U.parse(Data(text.utf8))
        XCTAssertEqual(entries.map(\.location), ["../Music/晴天.mp3", "http://example.com/stream", "/abs/song.mp3",
                                                 "spaced.mp3", "last.mp3"])
        XCTAssertEqual(entries.map(\.line), [3, 7, 8, 9, 11])
        XCTAssertEqual(entries[0].title, "周杰伦 - 晴天")
        XCTAssertEqual(entries[0].durationMs, 269_000)
        XCTAssertEqual(entries[1].title, "Radio")
        XCTAssertNil(entries[1].durationMs)
        XCTAssertNil(entries[2].title, "#EXTINF describes only the next line")
        XCTAssertNil(entries[4].title)
    }

    func testRenderedTextReadsBackAndKeepsOneEntryALine() {
        let entries = [
            PlaylistEntry(location: "album/1.mp3", title: "Artist - Song\nwith a break", durationMs: 180_400),
            PlaylistEntry(location: "/abs/two.mp3", title: nil, durationMs: nil),
        ]
        let text = M3U.render(entries)
        XCTAssertEqual(text, "#EXTM3U\n#EXTINF:180,Artist - Song with a break\nalbum/1.mp3\n#EXTINF:-1,\n/abs/two.mp3\n")
        let back = M3U.parse(Data(text.utf8))
        XCTAssertEqual(back.map(\.location), entries.map(\.location))
        XCTAssertEqual(back[0].title, "Artist - Song with a break")
    }

    func testLocationsRelativeToTheMusicFolder() {
        XCTAssertEqual(StoredPlaylists.location(forPath: "/home/u/Music/a/b.mp3", musicDirectory: "/home/u/Music"), "a/b.mp3")
        XCTAssertEqual(StoredPlaylists.location(forPath: "/home/u/Musical/b.mp3", musicDirectory: "/home/u/Music"),
                       "/home/u/Musical/b.mp3")
        XCTAssertEqual(StoredPlaylists.path(forLocation: "a/b.mp3", base: "/m"), "/m/a/b.mp3")
        XCTAssertEqual(StoredPlaylists.path(forLocation: "/x/./y.mp3", base: "/m"), "/x/y.mp3")
        XCTAssertEqual(StoredPlaylists.path(forLocation: "file:///x/a%20b.mp3", base: "/m"), "/x/a b.mp3")
        XCTAssertNil(StoredPlaylists.path(forLocation: "../etc/passwd", base: "/m"), "stored lines stay in the music folder")
        XCTAssertEqual(StoredPlaylists.path(forLocation: "../Music/x.mp3", base: "/home/u/lists", climbing: true),
                       "/home/u/Music/x.mp3")
        XCTAssertNil(StoredPlaylists.path(forLocation: "https://example.com/a.mp3", base: "/m"))
    }

    func testReadersNeverSeeHalfAPlaylist() throws {
        let folder = try TemporaryFolder("playlists-atomic")
        let store = StoredPlaylists(library: LibraryFolder(url: folder.url))
        let long = (0..<3_000).map { PlaylistEntry(location: "a/\($0).mp3", title: "Song \($0)", durationMs: 1_000) }
        let short = [PlaylistEntry(location: "b.mp3")]
        try store.write("big", long)
        let writer = Thread {
            for round in 0..<100 { try? store.write("big", round % 2 == 0 ? short : long) }
        }
        writer.start()
        for _ in 0..<300 {
            let count = try store.read("big").count
            XCTAssertTrue(count == long.count || count == short.count, "a reader saw \(count) entries")
        }
        while writer.isExecuting || !writer.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store.folder.path), ["big.m3u"])
    }

    func testWritesAreWholeFilesAndEditsKeepTheRest() throws {
        let folder = try TemporaryFolder("playlists")
        let store = StoredPlaylists(library: LibraryFolder(url: folder.url))
        XCTAssertEqual(try store.list().count, 0, "no folder yet: no playlists")
        try store.write("mix", [PlaylistEntry(location: "a.mp3"), PlaylistEntry(location: "b.mp3")])
        try store.edit("mix") { $0.insert(PlaylistEntry(location: "c.mp3"), at: 1) }
        XCTAssertEqual(try store.read("mix").map(\.location), ["a.mp3", "c.mp3", "b.mp3"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store.folder.path), ["mix.m3u"],
                       "no temporary file is left behind")
        XCTAssertThrowsError(try store.edit("new") { _ in }) { XCTAssertEqual($0 as? CatalogueError, .noSuchPlaylist) }
        try store.edit("new", create: true) { $0.append(PlaylistEntry(location: "z.mp3")) }

        // A failing edit leaves the file as it was.
        struct Stop: Error {}
        XCTAssertThrowsError(try store.edit("mix") { entries in
            entries.removeAll()
            throw Stop()
        })
        XCTAssertEqual(try store.read("mix").count, 3)

        XCTAssertThrowsError(try store.rename("mix", to: "new")) { XCTAssertEqual($0 as? CatalogueError, .playlistExists) }
        XCTAssertThrowsError(try store.rename("mix", to: "../mix")) { XCTAssertEqual($0 as? CatalogueError, .badPlaylistName) }
        XCTAssertThrowsError(try store.rename("gone", to: "other")) { XCTAssertEqual($0 as? CatalogueError, .noSuchPlaylist) }
        try store.rename("mix", to: "混音")
        try store.remove("new")
        XCTAssertThrowsError(try store.remove("new")) { XCTAssertEqual($0 as? CatalogueError, .noSuchPlaylist) }
        // Files that are no playlist are not listed.
        try Data().write(to: store.folder.appendingPathComponent("notes.txt"))
        try Data().write(to: store.folder.appendingPathComponent(".hidden.m3u"))
        XCTAssertEqual(try store.list().map(\.name), ["混音"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path), ["playlists"],
                       "nothing is written outside the playlists folder")
    }
}
