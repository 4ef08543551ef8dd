import XCTest
import XZCatalogue
@testable import XZProtocol
@testable import XZServer
import XZTestSupport
import XZHostCore
@testable import XZMPDCommands

/// MPD's database commands on a real host over TCP: update in the background, find/search/count/list,
/// folder listings, adding what a filter finds, and cover art in binary chunks.
final class DatabaseCommandTests: XCTestCase {
    var folder: TemporaryFolder!
    var host: PlayerHost!
    var server: ProtocolServer!
    var client: MPDClient!
    let cover = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let embedded = Array("\u{89}PNG-not-really-but-bytes".utf8) + (0..<100).map { UInt8($0) }

    override func setUpWithError() throws {
        folder = try TemporaryFolder("database")
        let music = folder.url.appendingPathComponent("music")
        for sub in ["rock", "pop/live"] {
            try FileManager.default.createDirectory(at: music.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        func song(_ path: String, _ frames: [(String, [UInt8])]) throws {
            try ID3Builder.makeTaggedMP3(at: music.appendingPathComponent(path).path, frames: frames)
        }
        try song("rock/a1.mp3", [ID3Builder.list("TPE1", ["piman", "jzig"]), ID3Builder.list("TIT2", ["Stone"]),
                                 ID3Builder.list("TALB", ["Rocks"]), ID3Builder.list("TRCK", ["1"]),
                                 ID3Builder.list("TCON", ["Rock"])])
        try song("rock/a2.mp3", [ID3Builder.list("TPE1", ["piman"]), ID3Builder.list("TIT2", ["Pebble"]),
                                 ID3Builder.list("TALB", ["Rocks"]), ID3Builder.list("TRCK", ["2"]),
                                 ID3Builder.list("TPE2", ["Piman Band"]), ID3Builder.list("TCON", ["Rock"])])
        try song("pop/b.mp3", [ID3Builder.list("TPE1", ["Zed"]), ID3Builder.list("TIT2", ["Café Tune"]),
                               ID3Builder.list("TALB", ["Sweet"]), ID3Builder.list("TCON", ["Pop"]),
                               ID3Builder.picture(mimeType: "image/png", data: embedded)])
        try song("pop/live/c.mp3", [ID3Builder.list("TPE1", ["Zed"]), ID3Builder.list("TIT2", ["cafe live"])])
        try Data(cover).write(to: music.appendingPathComponent("rock/cover.jpg"))

        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        host = PlayerHost(folder: library, database: try library.open(seedingDemoFrom: nil), output: .null,
                          musicDirectory: music) { _ in }
        server = ProtocolServer(host: host, password: nil)
        client = try MPDClient.connect(host: "127.0.0.1", port: try server.listen(host: "127.0.0.1", port: 0))
    }

    override func tearDown() {
        server?.shutdown()
        host?.shutdown()
        folder = nil
    }

    private func updated() throws {
        XCTAssertEqual(try client.run("update").first?.key, "updating_db")
        host.updates.wait()
    }

    private func values(_ pairs: [(key: String, value: String)], _ key: String) -> [String] {
        pairs.filter { $0.key == key }.map(\.value)
    }

    private func ack(_ line: String) -> String {
        do {
            try client.sendLine(line)
            _ = try client.readResponse()
            return "OK"
        } catch let error as MPDError {
            return "\(error.code.rawValue) {\(error.command ?? "")} \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    func testUpdateRunsInTheBackgroundAndAnnouncesChanges() throws {
        let watcher = try MPDClient.connect(host: "127.0.0.1", port: try server.listen(host: "127.0.0.1", port: 0))
        try watcher.sendLine("idle database")
        let answer = try client.run("update")
        XCTAssertEqual(answer.map(\.key), ["updating_db"])
        XCTAssertEqual(try watcher.readResponse().map(\.value), ["database"])
        host.updates.wait()
        XCTAssertNil(values(try client.run("status"), "updating_db").first)
        XCTAssertEqual(values(try client.run("stats"), "songs"), ["4"])
        // Nothing changed: `update` is announced, `database` is not.
        try watcher.sendLine("idle database update")
        _ = try client.run("rescan")
        XCTAssertEqual(try watcher.readResponse().map(\.value), ["update"])
        host.updates.wait()
        XCTAssertEqual(ack("update ../etc"), "2 {update} Malformed path")
    }

    func testFindSearchCountAndList() throws {
        try updated()
        let stone = try client.run("find", "title", "Stone")
        XCTAssertEqual(values(stone, "file"), ["rock/a1.mp3"])
        XCTAssertEqual(values(stone, "Artist"), ["piman", "jzig"], "one line per artist")
        XCTAssertEqual(values(stone, "Genre"), ["Rock"])
        // As MPD lists it, and what the AudioFormat filter matches.
        XCTAssertEqual(values(stone, "Format"), ["44100:16:2"])
        XCTAssertEqual(values(try client.run("find", "(AudioFormat == '44100:16:2')"), "file").count, 4)
        XCTAssertEqual(values(try client.run("find", "artist", "jzig"), "file"), ["rock/a1.mp3"])
        XCTAssertEqual(values(try client.run("find", "(Artist == 'PIMAN')"), "file"), [])
        // Database order (a folder's files before its subfolders), then the folded-only extras.
        XCTAssertEqual(values(try client.run("search", "any", "CAFÉ"), "file"), ["pop/b.mp3", "pop/live/c.mp3"])
        XCTAssertEqual(values(try client.run("search", "(any contains 'e')", "sort", "-Title", "window", "0:2"), "Title"),
                       ["cafe live", "Stone"])
        XCTAssertEqual(values(try client.run("find", "(base 'pop')"), "file"), ["pop/b.mp3", "pop/live/c.mp3"])
        XCTAssertEqual(values(try client.run("find", "(file starts_with 'rock/')", "sort", "Track"), "Title"), ["Stone", "Pebble"])

        XCTAssertEqual(try client.run("count", "artist", "piman").map(\.key), ["songs", "playtime"])
        XCTAssertEqual(values(try client.run("count", "artist", "piman"), "songs"), ["2"])
        let grouped = try client.run("count", "(genre != 'x')", "group", "genre")
        XCTAssertEqual(values(grouped, "Genre"), ["", "Pop", "Rock"])
        XCTAssertEqual(values(grouped, "songs"), ["1", "1", "2"])

        XCTAssertEqual(values(try client.run("list", "artist"), "Artist"), ["Zed", "jzig", "piman"])
        XCTAssertEqual(values(try client.run("list", "album", "piman"), "Album"), ["Rocks"])
        let byAlbumArtist = try client.run("list", "album", "group", "albumartist")
        XCTAssertEqual(byAlbumArtist.map { "\($0.key)=\($0.value)" },
                       ["AlbumArtist=Piman Band", "Album=Rocks", "AlbumArtist=Zed", "Album=", "Album=Sweet",
                        "AlbumArtist=jzig", "Album=Rocks", "AlbumArtist=piman", "Album=Rocks"])
        XCTAssertEqual(values(try client.run("list", "file", "genre", "Pop"), "file"), ["pop/b.mp3"])

        XCTAssertEqual(ack("find \"(artist == 'x'\""), "2 {find} ')' expected")
        XCTAssertEqual(ack("find frob x"), "2 {find} Unknown filter type")
        XCTAssertEqual(ack("search title"), "2 {search} Incorrect number of filter arguments")
        XCTAssertEqual(ack("find title x sort frob"), "2 {find} Unknown sort tag")
        XCTAssertEqual(ack("list title x"), "2 {list} should be \"Album\" for 3 arguments")
        XCTAssertEqual(ack("list album group album"), "2 {list} Conflicting group")
        XCTAssertEqual(ack("count group frob"), "2 {count} Unknown tag type: frob")
    }

    /// Listings keep each song's record between requests; every change to the database, by the host or
    /// by another process, is seen by the next listing, and each client gets the tags it asked for.
    func testListingsFollowEveryDatabaseChange() throws {
        try updated()
        // One song kept first: the next listing mixes kept records with new ones.
        XCTAssertEqual(values(try client.run("find", "title", "Pebble"), "file"), ["rock/a2.mp3"])
        let first = try client.run("search", "any", "e")
        XCTAssertEqual(values(first, "Title"), ["Café Tune", "cafe live", "Stone", "Pebble"])
        XCTAssertEqual(try client.run("search", "any", "e").map { "\($0.key)=\($0.value)" },
                       first.map { "\($0.key)=\($0.value)" }, "the second answer is the first")
        XCTAssertEqual(values(try client.run("search", "any", "e", "window", "1:3"), "Title"), ["cafe live", "Stone"])

        // Another process imports a retagged file.
        try ID3Builder.makeTaggedMP3(at: folder.path("music/rock/a1.mp3"), frames: [
            ID3Builder.list("TPE1", ["piman", "jzig"]), ID3Builder.list("TIT2", ["Boulder"]),
            ID3Builder.list("TALB", ["Rocks"]), ID3Builder.list("TRCK", ["1"])])
        let other = try LibraryDatabase(path: host.database.path)
        _ = try other.importFolder(at: folder.url.appendingPathComponent("music"), rereadingUnchanged: false)
        XCTAssertEqual(values(try client.run("search", "any", "e"), "Title"), ["Café Tune", "cafe live", "Boulder", "Pebble"])

        // The host's own import retags a file.
        try ID3Builder.makeTaggedMP3(at: folder.path("music/rock/a2.mp3"),
                                     frames: [ID3Builder.list("TPE1", ["piman"]), ID3Builder.list("TIT2", ["Pebbles Galore"])])
        try updated()
        // Its album gone, it now comes first (no album sorts first).
        XCTAssertEqual(values(try client.run("find", "artist", "piman"), "Title"), ["Pebbles Galore", "Boulder"])

        // A client that turned Album off gets records without it, while the other keeps its own.
        let narrow = try MPDClient.connect(host: "127.0.0.1", port: try server.listen(host: "127.0.0.1", port: 0))
        _ = try narrow.run("tagtypes", "disable", "Album")
        XCTAssertEqual(values(try narrow.run("find", "title", "Boulder"), "Album"), [])
        XCTAssertEqual(values(try client.run("find", "title", "Boulder"), "Album"), ["Rocks"])
        XCTAssertEqual(values(try narrow.run("find", "title", "Boulder"), "Title"), ["Boulder"])
    }

    /// Small catalogues have every song's record made ahead of the first listing; larger ones only
    /// what listings made.
    func testRecordsAreMadeAheadForSmallCatalogues() throws {
        try updated()
        let everyTag = SongTags.held
        server.service.songRecords.warmLimit = 3
        try server.service.songRecords.warm(host: host)
        XCTAssertEqual(server.service.songRecords.keptCount(tags: everyTag), 0, "4 songs are over a limit of 3")
        server.service.songRecords.warmLimit = 4
        try server.service.songRecords.warm(host: host)
        XCTAssertEqual(server.service.songRecords.keptCount(tags: everyTag), 4)
        // Answers from the records made ahead are the listings' own.
        XCTAssertEqual(values(try client.run("search", "any", "e"), "Title"), ["Café Tune", "cafe live", "Stone", "Pebble"])
        XCTAssertEqual(values(try client.run("find", "artist", "jzig"), "file"), ["rock/a1.mp3"])
    }

    /// A watching host tells idle clients when another process changed the catalogue, once a change
    /// (its own `update` says so itself), and makes the records again after every change.
    func testAWatchingHostNoticesChangesByOtherProcesses() throws {
        try updated()
        let heard = Heard()
        _ = host.observeChanges { heard.add($0) }
        let everyTag = SongTags.held
        server.service.watchCatalogue(polling: .seconds(3600), makingRecordsAhead: true)
        XCTAssertTrue(eventually { self.server.service.songRecords.keptCount(tags: everyTag) == 4 }, "records made at the first check")
        XCTAssertEqual(heard.databaseChanges, 0, "the catalogue at start is no change")

        try ID3Builder.makeTaggedMP3(at: folder.path("music/pop/d.mp3"),
                                     frames: [ID3Builder.list("TPE1", ["Zed"]), ID3Builder.list("TIT2", ["Delta"])])
        let other = try LibraryDatabase(path: host.database.path)
        _ = try other.importFolder(at: folder.url.appendingPathComponent("music"), rereadingUnchanged: false)
        XCTAssertTrue(eventually { heard.databaseChanges == 1 }, "another process's import is announced")
        XCTAssertTrue(eventually { self.server.service.songRecords.keptCount(tags: everyTag) == 5 })
        XCTAssertEqual(values(try client.run("find", "artist", "Zed"), "Title"), ["Delta", "Café Tune", "cafe live"], "no album sorts first in its folder")

        try ID3Builder.makeTaggedMP3(at: folder.path("music/pop/d.mp3"),
                                     frames: [ID3Builder.list("TPE1", ["Zed"]), ID3Builder.list("TIT2", ["Echo"])])
        try updated()
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(heard.databaseChanges, 2, "the host's own update is announced once")
        XCTAssertEqual(values(try client.run("find", "artist", "Zed"), "Title"), ["Echo", "Café Tune", "cafe live"])
    }

    private final class Heard: @unchecked Sendable {
        private let lock = NSLock()
        private var changes: [HostChanges] = []
        func add(_ heard: HostChanges) { lock.withLock { changes.append(heard) } }
        var databaseChanges: Int { lock.withLock { changes.filter { $0.contains(.database) }.count } }
    }

    func testFindaddAndSearchaddFillTheQueue() throws {
        try updated()
        _ = try client.run("findadd", "album", "Rocks")
        _ = try client.run("searchadd", "title", "cafe", "position", "1")
        XCTAssertEqual(values(try client.run("playlistinfo"), "file"),
                       ["rock/a1.mp3", "pop/live/c.mp3", "pop/b.mp3", "rock/a2.mp3"], "MPD's match, then the folded one")
        // Queue answers carry every value too.
        let first = try client.run("playlistinfo", "0")
        XCTAssertEqual(values(first, "Artist"), ["piman", "jzig"])
        XCTAssertEqual(values(first, "Genre"), ["Rock"])
        XCTAssertEqual(values(first, "Format"), ["44100:16:2"])
    }

    func testFolderListings() throws {
        try updated()
        let root = try client.run("lsinfo")
        XCTAssertEqual(values(root, "directory"), ["pop", "rock"])
        XCTAssertEqual(values(root, "file"), [])
        let pop = try client.run("lsinfo", "pop")
        XCTAssertEqual(pop.filter { $0.key == "file" || $0.key == "directory" }.map(\.value), ["pop/b.mp3", "pop/live"])
        XCTAssertEqual(values(try client.run("lsinfo", "pop/b.mp3"), "Title"), ["Café Tune"])
        XCTAssertEqual(try client.run("listall").filter { $0.key == "file" || $0.key == "directory" }.map(\.value),
                       ["pop", "pop/b.mp3", "pop/live", "pop/live/c.mp3", "rock", "rock/a1.mp3", "rock/a2.mp3"])
        XCTAssertEqual(values(try client.run("listallinfo", "rock"), "Title"), ["Stone", "Pebble"])
        let files = try client.run("listfiles", "rock")
        XCTAssertEqual(values(files, "file"), ["a1.mp3", "a2.mp3", "cover.jpg"])
        XCTAssertEqual(values(files, "size").last, "300")
        XCTAssertEqual(ack("lsinfo nowhere"), "50 {lsinfo} No such directory")
        XCTAssertEqual(ack("lsinfo ../x"), "50 {lsinfo} No such directory")
    }

    func testCoverArtComesInChunksOfTheBinaryLimit() throws {
        try updated()
        _ = try client.run("binarylimit", "128")
        var received: [UInt8] = []
        while received.count < cover.count {
            try client.sendLine("albumart rock/a1.mp3 \(received.count)")
            let (pairs, data) = try client.readBinaryResponse()
            XCTAssertEqual(values(pairs, "size"), ["300"])
            XCTAssertLessThanOrEqual(data.count, 128)
            XCTAssertFalse(data.isEmpty)
            received += data
        }
        XCTAssertEqual(received, cover)
        try client.sendLine("readpicture pop/b.mp3 0")
        let (pairs, data) = try client.readBinaryResponse()
        XCTAssertEqual(values(pairs, "type"), ["image/png"])
        XCTAssertEqual(values(pairs, "size"), ["\(embedded.count)"])
        XCTAssertEqual(data, Array(embedded.prefix(128)))
        // Each falls back on the other source.
        try client.sendLine("albumart pop/b.mp3 100")
        XCTAssertEqual(try client.readBinaryResponse().data, Array(embedded[100...]))
        try client.sendLine("readpicture pop/live/c.mp3 0")
        XCTAssertTrue(try client.readBinaryResponse().data.isEmpty)
        XCTAssertEqual(ack("albumart pop/live/c.mp3 0"), "50 {albumart} No file exists")
        XCTAssertEqual(ack("albumart rock/a1.mp3 301"), "2 {albumart} Bad file offset")
        XCTAssertEqual(ack("albumart ../../etc/passwd 0"), "50 {albumart} Malformed URI")
    }
}
