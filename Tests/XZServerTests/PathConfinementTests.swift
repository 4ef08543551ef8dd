import XCTest
import XZCatalogue
@testable import XZMPDCommands
import XZProtocol
@testable import XZServer
import XZTestSupport

/// Every command-table row that takes a path, sent every escaping name over TCP to a real host: each is
/// refused or answered from inside the music folder, the library's own files and the catalogue's songs;
/// nothing from outside is listed, read, queued, stored or imported.
final class PathConfinementTests: MusicFolderHostTestCase {
    var outside: URL!
    var catalogued: URL!
    let sentinel = "sentinel-outside"

    override func setUpWithError() throws {
        try super.setUpWithError()
        // A folder beside the music folder with a song, a cover and a file no client may see.
        outside = folder.url.appendingPathComponent(sentinel)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: outside.appendingPathComponent("secret.mp3").path, seconds: 1,
                                  tags: .init(title: "secret song", artist: "secret"))
        try Data("secret cover".utf8).write(to: outside.appendingPathComponent("cover.jpg"))
        try Data("secret".utf8).write(to: outside.appendingPathComponent("\(sentinel).txt"))
        // A catalogue song outside the music folder, imported by the host's owner.
        catalogued = folder.url.appendingPathComponent("catalogued")
        try FileManager.default.createDirectory(at: catalogued, withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: catalogued.appendingPathComponent("kept.mp3").path, seconds: 1,
                                  tags: .init(title: "kept", artist: "Artist"))
        _ = host.startUpdate(of: music, rescan: false)
        host.updates.wait()
        _ = host.startUpdate(of: catalogued, rescan: false)
        host.updates.wait()
        // Links from the library folder out of it.
        try FileManager.default.createDirectory(at: library.url, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: library.url.appendingPathComponent("link.mp3").path,
                                                   withDestinationPath: outside.appendingPathComponent("secret.mp3").path)
        try FileManager.default.createSymbolicLink(atPath: library.url.appendingPathComponent("linkdir").path,
                                                   withDestinationPath: outside.path)
    }

    /// Names that try to leave the music folder, the library folder or the catalogue's songs.
    var escapingNames: [String] {
        let out = String(outside.path.dropFirst()), kept = String(catalogued.path.dropFirst())
        return ["..", "../", "../..", "%2e%2e", "%2e%2e/%2e%2e/etc", "album/../..", "album/../../\(sentinel)", "./album",
                "xzmusic-catalogue/etc", "xzmusic-catalogue/etc/passwd", "xzmusic-catalogue/", "xzmusic-catalogue",
                "xzmusic-catalogue/\(out)", "xzmusic-catalogue/\(out)/secret.mp3", "xzmusic-catalogue/\(out)/cover.jpg",
                "xzmusic-catalogue/\(kept)", "xzmusic-catalogue/../etc", "xzmusic-catalogue//etc",
                "xzmusic/../..", "xzmusic/../../\(sentinel)/secret.mp3", "xzmusic/link.mp3", "xzmusic/linkdir",
                "xzmusic/linkdir/secret.mp3", "xzmusic/library.sqlite/..", "xzmusic", "xzmusic/",
                "/", "/etc", "/etc/passwd", outside.path, outside.path + "/secret.mp3", "//etc",
                "file:///etc/passwd", "file://\(outside.path)/secret.mp3", "file://etc/passwd", "file:/etc/passwd",
                "nfs://server/etc", "album/1.mp3\u{0}/../../etc", "album\r", "~", "~root"]
    }

    /// The table's own sample arguments of a row that takes a path, with `name` in each path argument
    /// (a stored playlist named `confined` for the others): only samples that give every path argument.
    static func lines(_ row: MPDCommand, naming name: String) -> [String] {
        (MPDCommands.sampleArguments[row.name] ?? []).filter { sample in row.paths.allSatisfy(sample.indices.contains) }
            .map { sample in
                let arguments = sample.indices.map { index in
                    row.paths.contains(index) ? name : sample[index] == "{playlist}" ? "confined" : sample[index]
                }
                return ([row.name] + arguments.map(quoted)).joined(separator: " ")
            }
    }

    /// The answer's text, or its ACK line.
    func answer(_ client: MPDClient, _ line: String) throws -> (ack: Bool, text: String) {
        try client.sendLine(line)
        do {
            let (pairs, data) = try client.readBinaryResponse()
            return (false, pairs.map { "\($0.key): \($0.value)" }.joined(separator: "\n") + String(decoding: data, as: UTF8.self))
        } catch let error as MPDError {
            return (true, error.message)
        }
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    func testEveryPathArgumentIsConfined() throws {
        let rows = MPDCommands.allCommands.filter { !$0.paths.isEmpty }
        for row in rows { XCTAssertFalse(Self.lines(row, naming: "x").isEmpty, "\(row.name): no sample names its path") }
        let client = try client()
        let songsBefore = try client.run("stats").first { $0.key == "songs" }?.value
        XCTAssertEqual(songsBefore, "4")
        var sent = 0
        for row in rows {
            for name in escapingNames {
                for line in Self.lines(row, naming: name) {
                    let (ack, text) = try answer(client, line)
                    sent += 1
                    for leak in [sentinel, "secret", "passwd", "root:", "hostname"] {
                        XCTAssertFalse(text.contains(leak), "\(line) answered \(text)")
                    }
                    // Nothing outside the music folder is a folder to list or update.
                    if ["listfiles", "albumart", "readpicture", "readcomments", "addid"].contains(row.name) {
                        XCTAssertTrue(ack, "\(line) answered \(text)")
                    }
                    if ["update", "rescan"].contains(row.name), !ack { host.updates.wait() }
                }
            }
        }
        XCTAssertGreaterThan(sent, 500)
        // Nothing was imported, nothing but the music folder's songs queued or stored ("/" is its root, as
        // in MPD), nothing stuck on.
        XCTAssertEqual(try client.run("stats").first { $0.key == "songs" }?.value, songsBefore)
        let queued = try client.run("playlistinfo").filter { $0.key == "file" }.map(\.value)
        XCTAssertEqual(Set(queued), ["album/1.mp3", "album/2.mp3", "album/3.mp3"])
        let stored = try client.run("listplaylist", "confined").map(\.value)
        XCTAssertEqual(Set(stored), ["album/1.mp3", "album/2.mp3", "album/3.mp3"])
        XCTAssertEqual(try client.run("sticker", "find", "song", "", "rating").count, 0)
    }

    /// The issue's own cases, by their answers.
    func testCatalogueNamesAreSongsNeverFolders() throws {
        let client = try client()
        XCTAssertEqual(try answer(client, "listfiles xzmusic-catalogue/etc").text, "No such song")
        XCTAssertEqual(try answer(client, "listfiles \"xzmusic-catalogue/\(catalogued.path.dropFirst())\"").text, "No such song")
        XCTAssertEqual(try answer(client, "update xzmusic-catalogue/").text, "No such song")
        XCTAssertEqual(try answer(client, "update \"xzmusic-catalogue/\(outside.path.dropFirst())\"").text, "No such song")
        XCTAssertEqual(try answer(client, "update xzmusic/").text, "No such directory")
        XCTAssertEqual(try answer(client, "listfiles /etc").text, "Access denied")
        XCTAssertEqual(try answer(client, "readcomments xzmusic/link.mp3").text, "No such song", "a link out of the library")
        // What the names are for still works: a catalogue song by its name, a music-folder file, a folder.
        let kept = "xzmusic-catalogue/\(catalogued.path.dropFirst())/kept.mp3"
        XCTAssertEqual(try client.run("addid", kept).first?.key, "Id")
        XCTAssertEqual(try client.run("sticker", "set", "song", kept, "rating", "5").count, 0)
        XCTAssertEqual(try client.run("listfiles", "album").filter { $0.key == "file" }.map(\.value), ["1.mp3", "2.mp3", "3.mp3"])
        XCTAssertEqual(try client.run("update", "album").first?.key, "updating_db")
        host.updates.wait()
    }

    /// A name behind a link in the music folder is a song only where the library holds it (MPD's database
    /// holds what its scan followed); absolute files are for local clients only.
    func testLinksOutQueueOnlyLibrarySongsAndAbsoluteFilesAreLocalOnly() throws {
        try FileManager.default.createSymbolicLink(atPath: music.appendingPathComponent("linked").path,
                                                   withDestinationPath: outside.path)
        let client = try client()
        if try host.database.song(localPath: music.appendingPathComponent("linked/secret.mp3").path) == nil {
            XCTAssertEqual(try answer(client, "addid linked/secret.mp3").text, "No such song")
        } else {
            XCTAssertEqual(try client.run("addid", "linked/secret.mp3").first?.key, "Id")
        }
        let secret = outside.appendingPathComponent("secret.mp3").path
        XCTAssertEqual(try answer(client, "readcomments \"\(secret)\"").text, "No such song")
        let socket = folder.path("host.sock")
        try server.listen(unixPath: socket)
        let local = try XCTUnwrap(MPDClient.connect(unixPath: socket))
        XCTAssertEqual(try local.run("addid", secret).first?.key, "Id")
        XCTAssertEqual(try local.run("addid", "file://" + secret).first?.key, "Id")
        XCTAssertTrue(try answer(local, "listfiles \"file://\(outside.path)\"").text.contains("file: secret.mp3"))
        XCTAssertEqual(try answer(local, "update \"\(outside.path)\"").text, "Malformed path", "the music folder only")
    }
}
