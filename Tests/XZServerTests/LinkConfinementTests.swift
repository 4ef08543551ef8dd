import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport

/// Links in the music folder that lead out of it: a name behind one is queued only when the library holds
/// it as a song, and is refused in the same words whether a file is there or not, so no answer tells
/// anything of the files outside.
final class LinkConfinementTests: MusicFolderHostTestCase {
    var outside: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        // A folder beside the music folder with a real song and a file no client may see.
        outside = folder.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: outside.appendingPathComponent("outside.mp3").path, seconds: 1,
                                  tags: .init(title: "outside song", artist: "outsider"))
        try Data("shadow".utf8).write(to: outside.appendingPathComponent("secret"))
        try FileManager.default.createSymbolicLink(atPath: music.appendingPathComponent("outlink").path, withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: music.appendingPathComponent("outfile.mp3").path,
                                                   withDestinationPath: outside.appendingPathComponent("outside.mp3").path)
        try FileManager.default.createSymbolicLink(atPath: music.appendingPathComponent("env.mp3").path,
                                                   withDestinationPath: "/proc/self/environ")
        // The library has looked at the folder since the links came.
        _ = host.startUpdate(of: music, rescan: false)
        host.updates.wait()
    }

    /// Names behind the links, existing or not, that the library does not hold as songs.
    func namesOutside() throws -> [String] {
        var names = ["outlink/secret", "outlink/nonexistent", "outlink", "outlink/", "outlink/nowhere/x.mp3", "env.mp3", "nothing.mp3"]
        // Were the scan to follow links (as MPD does), the song behind one would be a song of the library.
        for name in ["outlink/outside.mp3", "outfile.mp3"]
        where try host.database.song(localPath: music.appendingPathComponent(name).path) == nil {
            names.append(name)
        }
        return names
    }

    func testAddAddidAndListsRefuseNamesBehindLinksAlike() throws {
        let client = try client()
        for name in try namesOutside() {
            XCTAssertEqual(RealMPD.answer(client, "add \"\(name)\""), ["ACK 50 {add} No such directory"], name)
            XCTAssertEqual(RealMPD.answer(client, "addid \"\(name)\""), ["ACK 50 {addid} No such song"], name)
            XCTAssertEqual(RealMPD.answer(client, "playlistadd kept \"\(name)\""), ["ACK 50 {playlistadd} No such directory"], name)
            try client.sendLine("command_list_begin\nadd album/1.mp3\nadd \"\(name)\"\ncommand_list_end")
            XCTAssertThrowsError(try client.readResponse(), name) { error in
                XCTAssertEqual((error as? MPDError)?.ackLine(index: 1), "ACK [50@1] {add} No such directory", name)
            }
        }
        // The lists' songs before the refused add were queued, and nothing else.
        let queued = try client.run("playlistinfo")
        XCTAssertEqual(Set(queued.filter { $0.key == "file" }.map(\.value)), ["album/1.mp3"])
        XCTAssertFalse(queued.contains { $0.value.contains("outside") || $0.value.contains(folder.url.path) }, "\(queued)")
        // What the library holds still adds, one by one and in a list.
        XCTAssertEqual(try client.run("addid", "album/2.mp3").first?.key, "Id")
        _ = try client.run("add", "album")
        XCTAssertEqual(try client.run("status").first { $0.key == "playlistlength" }?.value, String(try namesOutside().count + 4))
    }

    func testLoadSkipsStoredLinesBehindLinks() throws {
        let playlists = library.url.appendingPathComponent("playlists")
        try FileManager.default.createDirectory(at: playlists, withIntermediateDirectories: true)
        let lines = ["outlink/secret", "outlink/outside.mp3", "outfile.mp3", "env.mp3", "album/3.mp3"]
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: playlists.appendingPathComponent("mixed.m3u"))
        let client = try client()
        _ = try client.run("load", "mixed")
        let queued = try client.run("playlistinfo")
        let held = try lines.filter { try host.database.song(localPath: music.appendingPathComponent($0).path) != nil }
        XCTAssertEqual(queued.filter { $0.key == "file" }.map(\.value), held)
        // Listing the playlist reads nothing behind the links either.
        let listed = try client.run("listplaylistinfo", "mixed")
        if !held.contains("outfile.mp3"), !held.contains("outlink/outside.mp3") {
            XCTAssertFalse(listed.contains { $0.value == "outside song" || $0.value == "outsider" }, "\(listed)")
        }
    }

    /// A song that cannot be played is named in the error by its library name, never by the music folder's
    /// absolute path.
    func testAPlayErrorNamesTheSongNotTheMusicFolder() throws {
        let client = try client()
        _ = try client.run("add", "album/2.mp3")
        try FileManager.default.removeItem(at: music.appendingPathComponent("album/2.mp3"))
        _ = try client.run("play")
        var error: String?
        for _ in 0..<200 where error == nil {
            error = value(try client.run("status"), "error")
            if error == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        let text = try XCTUnwrap(error)
        XCTAssertFalse(text.contains(music.path), text)
        XCTAssertTrue(text.hasPrefix("album/2.mp3"), text)
    }

    /// Real MPD answers the same for names its database does not hold behind a link.
    func testRefusalsMatchRealMPD() throws {
        try compareWithRealMPD(["add \"outlink/secret\"", "add \"outlink/nonexistent\"", "addid \"outlink/secret\"",
                                "addid \"outlink/nonexistent\"", "add \"outlink/nowhere/x.mp3\"", "add nothing.mp3",
                                "playlistinfo"])
    }
}
