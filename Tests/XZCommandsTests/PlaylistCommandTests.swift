import Foundation
import XCTest
import XZCatalogue
import XZTestSupport

/// `playlist …`, `like` and `info` as real processes on a temporary library: playlists edited with or
/// without a host, an .m3u from another player imported, and likes seen by MPD clients as stickers.
final class PlaylistCommandTests: LibraryProcessTestCase {
    private var music: URL { temp.url.appendingPathComponent("music") }
    private var playlists: String { temp.path("library/playlists") }
    private let demoSong = "library/demo/songs/01-qingtian-xiaodiao.mp3"

    override func setUpWithError() throws {
        temp = try TemporaryFolder("playlist-cli")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: music.appendingPathComponent("a.mp3").path, seconds: 2,
                                  tags: .init(title: "Alpha", artist: "Band"))
        try AudioFixtures.makeMP3(at: music.appendingPathComponent("b.mp3").path, seconds: 2,
                                  tags: .init(title: "Beta", artist: "Band"))
        let config = temp.url.appendingPathComponent("config/xzmusic")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "music_directory = \"\(music.path)\"\n".write(to: config.appendingPathComponent("config"), atomically: true,
                                                          encoding: .utf8)
        XCTAssertEqual(try xzmusic(["info", "#1"]).status, 0)
    }

    private func serve() throws -> (RunningProcess, String) {
        let host = try RunningProcess(binary, ["serve", "--port", "0"], environment: environment)
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        let line = try XCTUnwrap(host.stdout.split(separator: "\n").first { $0.contains("hosting") })
        return (host, try XCTUnwrap(line.split(separator: ":").last.map(String.init)))
    }

    func testPlaylistsWithoutAHost() throws {
        XCTAssertEqual(try xzmusic(["playlist"]).stdout, "No playlists yet: 'playlist save NAME' keeps the queue.\n")
        let added = try xzmusic(["playlist", "add", "mix", "#1", music.appendingPathComponent("a.mp3").path])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(added.stdout, "added 2 to mix (2 in all)\n")
        // A file MPD and other players read: the music folder's song relative to it, the demo song by path.
        XCTAssertEqual(try String(contentsOfFile: playlists + "/mix.m3u", encoding: .utf8),
                       "#EXTM3U\n#EXTINF:50,林晓舟 - 晴天小调\n\(temp.path(demoSong))\n#EXTINF:2,Band - Alpha\na.mp3\n")
        XCTAssertEqual(try xzmusic(["playlist", "list"]).stdout, "mix  (2 songs)\n")
        let shown = try xzmusic(["playlist", "show", "mix"]).stdout
        XCTAssertEqual(shown, "  1  晴天小调 — 林晓舟  [0:50]\n  2  Alpha — Band  [0:02]\n")

        XCTAssertEqual(try xzmusic(["playlist", "rename", "mix", "混合"]).status, 0)
        XCTAssertEqual(try xzmusic(["playlist", "list"]).stdout, "混合  (2 songs)\n")
        for bad in ["../escape", "a/b", ".hidden", "bell\u{7}"] {
            let refused = try xzmusic(["playlist", "add", bad, "#2"])
            XCTAssertEqual(refused.status, 1, bad)
            XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
            XCTAssertTrue(refused.stderr.contains("bad playlist name"), refused.stderr)
        }
        XCTAssertEqual(try xzmusic(["playlist", "rename", "混合", "../up"]).status, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: playlists), ["混合.m3u"], "nothing else written")
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp.path("library/escape.m3u")))
        let missing = try xzmusic(["playlist", "show", "nope"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("no playlist named nope"), missing.stderr)
        XCTAssertEqual(try xzmusic(["playlist", "rm", "混合"]).status, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: playlists), [])
    }

    func testImportingAnotherPlayersFile() throws {
        // Written as other players write them: BOM-less UTF-8, CRLF, #EXTINF, relative and absolute paths.
        let lists = temp.url.appendingPathComponent("elsewhere/lists")
        try FileManager.default.createDirectory(at: lists, withIntermediateDirectories: true)
        let outside = temp.path("elsewhere/outside.mp3")
        try FileManager.default.copyItem(atPath: music.appendingPathComponent("b.mp3").path, toPath: outside)
        let lines = [
            "#EXTM3U", "#EXTINF:2,Band - Alpha", "../../music/a.mp3", "#EXTINF:50,林晓舟 - 晴天小调", temp.path(demoSong),
            "#EXTINF:200,Gone - Missing", "../../music/missing.mp3", "", "# a comment", outside,
            "http://radio.example/stream", "file://\(music.path)/b.mp3",
        ]
        let file = lists.appendingPathComponent("Road Trip.m3u8")
        try lines.joined(separator: "\r\n").write(to: file, atomically: true, encoding: .utf8)

        let imported = try xzmusic(["playlist", "import", file.path])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(imported.stdout, "imported 3 songs as Road Trip (3 left out)\n")
        XCTAssertEqual(imported.stderr.split(separator: "\n"), [
            "\(file.path) line 7: ../../music/missing.mp3: no such file",
            "\(file.path) line 10: \(outside): not in the library",
            "\(file.path) line 11: http://radio.example/stream: not a file",
        ])
        XCTAssertEqual(try xzmusic(["playlist", "show", "Road Trip"]).stdout,
                       "  1  Alpha — Band  [0:02]\n  2  晴天小调 — 林晓舟  [0:50]\n  3  Beta — Band  [0:02]\n")
        let again = try xzmusic(["playlist", "import", file.path])
        XCTAssertEqual(again.status, 1, "an existing playlist is not overwritten")
        XCTAssertTrue(again.stderr.contains("exists already"), again.stderr)
        XCTAssertEqual(try xzmusic(["playlist", "import", file.path, "--name", "trip 2"]).status, 0)

        // A song whose file vanished stays, shown as missing.
        try FileManager.default.removeItem(at: music.appendingPathComponent("a.mp3"))
        XCTAssertEqual(try xzmusic(["playlist", "show", "Road Trip"]).stdout,
                       "  1  missing  a.mp3\n  2  晴天小调 — 林晓舟  [0:50]\n  3  Beta — Band  [0:02]\n")
    }

    func testImportingPLSAndXSPFReadsThemByTheirOwnFormat() throws {
        let lists = temp.url.appendingPathComponent("elsewhere/lists")
        try FileManager.default.createDirectory(at: lists, withIntermediateDirectories: true)
        let pls = lists.appendingPathComponent("Radio.pls")
        try "[playlist]\nNumberOfEntries=3\nFile2=file://\(music.path)/b.mp3\nFile1=../../music/a.mp3\nFile3=http://radio.example/x\n"
            .write(to: pls, atomically: true, encoding: .utf8)
        let imported = try xzmusic(["playlist", "import", pls.path])
        XCTAssertEqual(imported.stdout, "imported 2 songs as Radio (1 left out)\n", imported.stderr)
        XCTAssertEqual(imported.stderr, "\(pls.path) line 5: http://radio.example/x: not a file\n")
        XCTAssertEqual(try xzmusic(["playlist", "show", "Radio"]).stdout,
                       "  1  Alpha — Band  [0:02]\n  2  Beta — Band  [0:02]\n")
        let xspf = lists.appendingPathComponent("Spiff.xspf")
        try """
            <?xml version="1.0"?><playlist xmlns="http://xspf.org/ns/0/"><trackList>
            <track><location>../../music/b.mp3</location></track><track><location>\(music.path)/a.mp3</location></track>
            </trackList></playlist>
            """.write(to: xspf, atomically: true, encoding: .utf8)
        XCTAssertEqual(try xzmusic(["playlist", "import", xspf.path]).stdout, "imported 2 songs as Spiff\n")
        XCTAssertEqual(try xzmusic(["playlist", "show", "Spiff"]).stdout,
                       "  1  Beta — Band  [0:02]\n  2  Alpha — Band  [0:02]\n")
    }

    /// A playlist's owner row (owner, public flag, comment) follows what the terminal's commands do to its
    /// file, with or without a host: renamed with it, removed with it, and a playlist saved under a name
    /// whose file another program removed does not take that name's old row.
    func testOwnerRowsFollowTheTerminalsChanges() throws {
        let database = try LibraryDatabase(path: temp.path("library/library.sqlite"))
        let owned = PlaylistOwnership(userId: 7, isPublic: false, comment: "road")
        XCTAssertEqual(try xzmusic(["playlist", "add", "mix", "#1"]).status, 0)
        try database.setPlaylistOwnership("mix", owned)
        XCTAssertEqual(try xzmusic(["playlist", "rename", "mix", "trip"]).status, 0)
        XCTAssertEqual(try database.playlistOwnerships(), ["trip": owned])
        XCTAssertEqual(try xzmusic(["playlist", "rm", "trip"]).status, 0)
        XCTAssertEqual(try database.playlistOwnerships(), [:])
        try database.setPlaylistOwnership("gone", owned)
        XCTAssertEqual(try xzmusic(["playlist", "add", "gone", "#1"]).status, 0)
        XCTAssertEqual(try database.playlistOwnership("gone"), .libraryOwners)

        let (host, _) = try serve()
        defer {
            host.signal(SIGTERM)
            _ = host.finish()
        }
        try database.setPlaylistOwnership("gone", owned)
        XCTAssertEqual(try xzmusic(["playlist", "rename", "gone", "back"]).status, 0)
        XCTAssertEqual(try database.playlistOwnerships(), ["back": owned])
        XCTAssertEqual(try xzmusic(["playlist", "save", "back", "--replace"]).status, 0)
        XCTAssertEqual(try database.playlistOwnerships(), ["back": owned], "a replaced playlist keeps its owner")
        XCTAssertEqual(try xzmusic(["playlist", "rm", "back"]).status, 0)
        XCTAssertEqual(try database.playlistOwnerships(), [:])
        try database.setPlaylistOwnership("queue", owned)
        XCTAssertEqual(try xzmusic(["playlist", "save", "queue"]).status, 0)
        XCTAssertEqual(try database.playlistOwnership("queue"), .libraryOwners)
    }

    func testLoadAndSaveThroughTheHostAndLikesAsStickers() throws {
        try xzmusic(["playlist", "add", "mix", music.appendingPathComponent("a.mp3").path, "#1",
                     music.appendingPathComponent("b.mp3").path])
        try FileManager.default.removeItem(at: music.appendingPathComponent("b.mp3"))
        let (host, port) = try serve()
        defer {
            host.signal(SIGTERM)
            _ = host.finish()
        }
        // An empty queue saves as an empty playlist, as MPD's save.
        XCTAssertEqual(try xzmusic(["playlist", "save", "empty"]).stdout, "saved 0 songs as empty\n")
        let loaded = try xzmusic(["playlist", "load", "mix"])
        XCTAssertEqual(loaded.stdout, "loaded 2 songs from mix (1 missing, skipped)\n", loaded.stderr)
        XCTAssertEqual(try TestProcess.runChecked("mpc", ["-p", port, "playlist", "-f", "%title%"]).stdout, "Alpha\n晴天小调\n")
        XCTAssertEqual(try xzmusic(["playlist", "save", "queue copy"]).stdout, "saved 2 songs as queue copy\n")
        XCTAssertEqual(try xzmusic(["playlist", "save", "queue copy"]).status, 1, "no silent overwrite")
        XCTAssertEqual(try xzmusic(["playlist", "save", "queue copy", "--append"]).status, 0)
        XCTAssertEqual(try xzmusic(["playlist", "list"]).stdout, "empty  (0 songs)\nmix  (3 songs)\nqueue copy  (4 songs)\n")
        XCTAssertEqual(try TestProcess.runChecked("mpc", ["-p", port, "playlist", "-f", "%title%", "queue copy"]).stdout,
                       "Alpha\n晴天小调\nAlpha\n晴天小调\n")

        // A like from the command line is a sticker MPD clients see, and wakes them.
        let uri = "xzmusic/demo/songs/01-qingtian-xiaodiao.mp3"
        let idle = try RunningProcess(try TestProcess.which("mpc"), ["-p", port, "idle", "sticker"],
                                      environment: ProcessInfo.processInfo.environment)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(try xzmusic(["like", "#1"]).status, 0)
        XCTAssertEqual(idle.finish(timeout: 10), 0)
        XCTAssertEqual(idle.stdout, "sticker\n")
        XCTAssertEqual(try TestProcess.runChecked("mpc", ["-p", port, "sticker", uri, "get", "like"]).stdout, "like=1\n")
        _ = try TestProcess.runChecked("mpc", ["-p", port, "sticker", uri, "set", "rating", "9"])
        let info = try xzmusic(["info", "#1"]).stdout
        XCTAssertTrue(info.contains("stickers    like=1, rating=9"), info)
        XCTAssertEqual(try xzmusic(["unlike", "#1"]).status, 0)
        XCTAssertEqual(try TestProcess.run("mpc", ["-p", port, "sticker", uri, "list"]).stdout, "lyrics=synced\nrating=9\n",
                       "the song's LRC file shows as the lyrics sticker")
    }
}
