import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport
import XZHostCore
import XZMPDCommands
#if canImport(Glibc)
import Glibc
#endif

/// Stored playlists on a real host over TCP: MPD's commands and ACKs, the name rules, idle, and the files
/// read back by `mpc` and by real MPD.
final class PlaylistTests: MusicFolderHostTestCase {
    private var playlistsFolder: String { library.url.appendingPathComponent("playlists").path }

    private func ack(_ client: MPDClient, _ name: String, _ arguments: String...) -> String {
        do {
            _ = try client.run(MPDRequest(name: name, arguments: arguments))
            return "OK"
        } catch let error as MPDError {
            return "\(error.code.rawValue) \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    private func files(_ client: MPDClient, _ name: String) throws -> [String] {
        try client.run("listplaylist", name).map(\.value)
    }

    /// The same requests to real MPD (its own playlist folder) and to this host get the same answers,
    /// for everything MPD 0.23 has (0.24's save modes and the stricter names are checked below).
    func testTheSameRequestsGetTheSameAnswersAsMPD() throws {
        let script = [
            "listplaylists", "listplaylist nope", "listplaylistinfo nope", "load nope", "add album/1.mp3",
            "add album/2.mp3", "save a", "save a", "listplaylist a", "listplaylistinfo a", "playlistadd a album/3.mp3",
            "playlistadd a album/3.mp3 0", "playlistadd a nothere.mp3", "playlistadd b album/1.mp3", "playlistadd b album",
            "listplaylist a", "listplaylist b", "playlistdelete a 9", "playlistdelete a 0", "playlistdelete a 1:2",
            "playlistdelete a 5:9", "playlistdelete a x", "listplaylist a", "playlistmove a 0 1", "playlistmove a 0 5",
            "playlistmove a 5 0", "playlistmove a 0:1 2", "listplaylist a", "rename a b", "rename nope d", "rename a c",
            "rm nope", "listplaylist c", "clear", "load b", "playlistinfo", "clear", "load b 1:3", "load b 9:12",
            "playlist", "load b 0:1 0", "load b 0:1 99", "load b 2:1", "load b x", "load b 0:1 +1", "playlist",
            "playlistadd b album/1.mp3 99", "playlistadd b album/1.mp3 x", "playlistadd nope album/1.mp3 1",
            "playlistmove nope 0 1", "playlistdelete nope 0", "playlistdelete b 2:", "listplaylist b",
            "playlistclear nope", "playlistclear b", "listplaylist b", "rm c", "listplaylist c",
            "save ../x", "save a/b", "save \"\"", "listplaylist ../x", "rm ../x", "rename b ../y", "rm b", "listplaylists",
        ]
        try compareWithRealMPD(script)
    }

    func testSaveModesNamesAndFiles() throws {
        let client = try client()
        _ = try client.run("add", "album/1.mp3")
        _ = try client.run("add", "album/2.mp3")
        XCTAssertEqual(ack(client, "save", "mix", "append"), "50 No such playlist")
        XCTAssertEqual(ack(client, "save", "mix", "replace"), "50 No such playlist")
        XCTAssertEqual(ack(client, "save", "mix", "create"), "OK")
        XCTAssertEqual(ack(client, "save", "mix"), "56 Playlist already exists")
        XCTAssertEqual(ack(client, "save", "mix", "append"), "OK")
        XCTAssertEqual(try files(client, "mix"), ["album/1.mp3", "album/2.mp3", "album/1.mp3", "album/2.mp3"])
        _ = try client.run("delete", "0")
        XCTAssertEqual(ack(client, "save", "mix", "replace"), "OK")
        XCTAssertEqual(try files(client, "mix"), ["album/2.mp3"])
        XCTAssertEqual(ack(client, "save", "mix", "overwrite"),
                       "2 Unrecognized save mode, expected one of: create, append, replace")

        // The file: extended M3U, one line per song relative to the music folder.
        let text = try String(contentsOfFile: playlistsFolder + "/mix.m3u", encoding: .utf8)
        XCTAssertEqual(text, "#EXTM3U\n#EXTINF:3,Artist - Song 2\nalbum/2.mp3\n")

        // Names are data: nothing is written outside the folder, and nothing changes.
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        for bad in ["../x", "../../escape", "/tmp/abs", "a/b", ".hidden", "..", "", "tab\there", "bell\u{7}"] {
            XCTAssertEqual(ack(client, "save", bad), "2 Bad playlist name", bad.debugDescription)
            XCTAssertEqual(ack(client, "playlistadd", bad, "album/1.mp3"), "2 Bad playlist name", bad.debugDescription)
            XCTAssertEqual(ack(client, "rename", "mix", bad), "2 Bad playlist name", bad.debugDescription)
            XCTAssertEqual(ack(client, "rm", bad), "2 Bad playlist name", bad.debugDescription)
            XCTAssertEqual(ack(client, "listplaylist", bad), "50 No such playlist", bad.debugDescription)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted(), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: playlistsFolder), ["mix.m3u"])
        XCTAssertEqual(try files(client, "mix"), ["album/2.mp3"])

        // Songs outside the music folder are written by absolute path and listed by their URI.
        let demo = library.url.appendingPathComponent("own/x.mp3")
        try FileManager.default.createDirectory(at: demo.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: folder.path("music/album/3.mp3"), toPath: demo.path)
        let local = try XCTUnwrap(try MPDClient.connect(unixPath: try unixSocket()))
        _ = try local.run("playlistadd", "mix", demo.path)
        XCTAssertEqual(try files(client, "mix"), ["album/2.mp3", "xzmusic/own/x.mp3"])
        XCTAssertTrue(try String(contentsOfFile: playlistsFolder + "/mix.m3u", encoding: .utf8).hasSuffix("\n\(demo.path)\n"))
        XCTAssertEqual(ack(client, "playlistadd", "mix", folder.path("music/album/1.mp3")), "4 Access denied",
                       "absolute paths are for local clients, in playlists too")
    }

    private func unixSocket() throws -> String {
        let path = folder.path("host.sock")
        if !FileManager.default.fileExists(atPath: path) { try server.listen(unixPath: path) }
        return path
    }

    func testMissingSongIsKeptListedAndSkippedOnLoad() throws {
        let client = try client()
        for index in 1...3 { _ = try client.run("playlistadd", "trip", "album/\(index).mp3") }
        try FileManager.default.removeItem(atPath: folder.path("music/album/2.mp3"))
        XCTAssertEqual(try files(client, "trip"), ["album/1.mp3", "album/2.mp3", "album/3.mp3"], "the entry stays")
        let info = try client.run("listplaylistinfo", "trip")
        XCTAssertEqual(info.filter { $0.key == "file" }.map(\.value), ["album/1.mp3", "album/2.mp3", "album/3.mp3"])
        // As MPD's database: the catalogue's record until the next update finds the file gone.
        XCTAssertEqual(info.filter { $0.key == "Title" }.map(\.value), ["Song 1", "Song 2", "Song 3"])
        _ = try client.run("load", "trip")
        XCTAssertEqual(try client.run("playlist").map { "\($0.key): \($0.value)" }, ["0:file: album/1.mp3", "1:file: album/3.mp3"])
        _ = try client.run("play")
        XCTAssertEqual(try client.run("currentsong").first { $0.key == "Title" }?.value, "Song 1")
        XCTAssertEqual(try files(client, "trip").count, 3, "loading changes nothing in the playlist")
    }

    func testIdleHearsStoredPlaylistChanges() throws {
        let watcher = try client()
        let actor = try client()
        for change in [["playlistadd", "x", "album/1.mp3"], ["playlistmove", "x", "0", "0"], ["rename", "x", "y"],
                       ["playlistclear", "y"], ["rm", "y"]] {
            try watcher.sendLine("idle stored_playlist")
            _ = try actor.run(MPDRequest(name: change[0], arguments: Array(change.dropFirst())))
            XCTAssertEqual(try watcher.readResponse().map(\.value), ["stored_playlist"], change.joined(separator: " "))
        }
        // A refused change announces nothing; a playlist another process writes is noticed by the watch.
        server.service.watchCatalogue(polling: .seconds(3600), makingRecordsAhead: false)
        Thread.sleep(forTimeInterval: 0.2)
        try watcher.sendLine("idle stored_playlist")
        XCTAssertThrowsError(try actor.run("rm", "y"))
        let playlists = host.folder.url.appendingPathComponent("playlists")
        try FileManager.default.createDirectory(at: playlists, withIntermediateDirectories: true)
        try "album/1.mp3\n".write(to: playlists.appendingPathComponent("elsewhere.m3u"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try watcher.readResponse().map(\.value), ["stored_playlist"])
        XCTAssertThrowsError(try actor.run("xzmusic_changed", "stored_playlist"), "no command asks for wake-ups")
    }

    func testMpcAndRealMPDReadOurPlaylists() throws {
        let client = try client()
        _ = try client.run("add", "album")
        _ = try client.run("save", "全部 songs")
        _ = try client.run("playlistadd", "two", "album/3.mp3")
        _ = try client.run("playlistadd", "two", "album/1.mp3")
        let mpc = try TestProcess.which("mpc")
        XCTAssertEqual(try client.run("listplaylists").filter { $0.key == "playlist" }.map(\.value), ["two", "全部 songs"])
        // mpc lsplaylists reads them from lsinfo of the root.
        XCTAssertEqual(Set(try TestProcess.runChecked(mpc, ["-p", "\(port)", "lsplaylists"]).stdout.split(separator: "\n")),
                       ["two", "全部 songs"])
        XCTAssertEqual(try TestProcess.runChecked(mpc, ["-p", "\(port)", "playlist", "two"]).stdout,
                       "Artist - Song 3\nArtist - Song 1\n")
        XCTAssertEqual(try TestProcess.runChecked(mpc, ["-p", "\(port)", "playlist", "-f", "%file%", "全部 songs"]).stdout,
                       "album/1.mp3\nalbum/2.mp3\nalbum/3.mp3\n")

        // Real MPD with its playlist_directory on our folder reads the same songs, and loads them.
        let real = try RealMPD(folder: folder, music: music, playlists: playlistsFolder)
        mpd = real
        let theirs = try real.connect()
        for name in ["two", "全部 songs"] {
            XCTAssertEqual(try files(theirs, name), try files(client, name), name)
        }
        XCTAssertEqual(Set(try theirs.run("listplaylists").filter { $0.key == "playlist" }.map(\.value)), ["two", "全部 songs"])
        _ = try theirs.run("load", "two")
        XCTAssertEqual(try theirs.run("playlistinfo").filter { $0.key == "Title" }.map(\.value), ["Song 3", "Song 1"])
        // And what real MPD writes there, this host reads.
        _ = try theirs.run("save", "from-mpd")
        XCTAssertEqual(try files(client, "from-mpd"), ["album/3.mp3", "album/1.mp3"])
        // searchaddpl appends what search finds, on both hosts alike.
        _ = try client.run("update")
        host.updates.wait()
        _ = try theirs.run("searchaddpl", "found-mpd", "title", "song 2")
        _ = try theirs.run("searchaddpl", "found-mpd", "(Title contains '3')", "position", "0")
        _ = try client.run("searchaddpl", "found-ours", "title", "song 2")
        _ = try client.run("searchaddpl", "found-ours", "(Title contains '3')", "position", "0")
        XCTAssertEqual(try files(client, "found-ours"), try files(theirs, "found-mpd"))
        XCTAssertEqual(try files(client, "found-ours"), ["album/3.mp3", "album/2.mp3"])
    }
}
