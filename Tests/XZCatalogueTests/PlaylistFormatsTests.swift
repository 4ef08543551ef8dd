import Foundation
import XCTest
@testable import XZCatalogue
import XZTestSupport

/// The playlist formats MPD's plugins read (M3U, PLS, XSPF) from hostile files, and where their lines
/// point once read against the list's folder.
final class PlaylistFormatsTests: XCTestCase {
    func testFormatsBySuffixAndContentType() {
        XCTAssertEqual(PlaylistFormat(fileName: "a/B.M3U8"), .m3u)
        XCTAssertEqual(PlaylistFormat(fileName: "x.pls"), .pls)
        XCTAssertEqual(PlaylistFormat(fileName: "x.XSPF"), .xspf)
        for none in ["x.mp3", "m3u", "x.m3u/", "x.m3u.txt", "", "x.cue"] {
            XCTAssertNil(PlaylistFormat(fileName: none), none)
        }
        XCTAssertEqual(PlaylistFormat(contentType: "audio/x-mpegurl; charset=utf-8"), .m3u)
        XCTAssertEqual(PlaylistFormat(contentType: "Audio/X-SCPLS"), .pls)
        XCTAssertEqual(PlaylistFormat(contentType: "application/xspf+xml"), .xspf)
        XCTAssertNil(PlaylistFormat(contentType: "audio/mpeg"))
        XCTAssertNil(PlaylistFormat(contentType: ""))
    }

    func testPLSAsShoutcastAndOtherPlayersWriteIt() {
        let text = "\u{FEFF}; a comment\r\n[other]\r\nFile9=not this\r\n[Playlist]\r\nnumberofentries=3\r\nFile2=b.mp3\r\n"
            + "Title2=Bee\r\nLength2=-1\r\nFILE1 = http://example.com/radio\r\ntitle1=Radio\r\nLength1=5\r\nFile3=\r\n"
            + "File4=past the count.mp3\r\nFile0=zero.mp3\r\nFile-1=minus.mp3\r\nFile99999999999999999999=huge.mp3\r\nno equals\r\n"
        let entries = PLS.parse(Data(text.utf8), limit: 100)
        XCTAssertEqual(entries.map(\.location), ["http://example.com/radio", "b.mp3"])
        XCTAssertEqual(entries.map(\.title), ["Radio", "Bee"])
        XCTAssertEqual(entries.map(\.durationMs), [5_000, nil])
        // As MPD's pls plugin: the title is a Title, a length above 0 the song's.
        XCTAssertEqual(entries.map { $0.tags.items.map(\.value) }, [["Radio"], ["Bee"]])
        XCTAssertEqual(entries.map { $0.tags.items.map(\.tag) }, [[.title], [.title]])
        XCTAssertEqual(entries.map(\.tags.durationMs), [5_000, nil])
        XCTAssertEqual(PLS.parse(Data("[playlist]\nFile3=c\nFile1=a\n".utf8), limit: 100).map(\.location), ["a", "c"],
                       "no count: every file, by number")
        XCTAssertEqual(PLS.parse(Data("[playlist]\nFile1=a\nFile2=b\nFile3=c\n".utf8), limit: 2).map(\.location), ["a", "b"])
        XCTAssertEqual(PLS.parse(Data("File1=a\n".utf8), limit: 10), [], "no [playlist] section")
    }

    /// #EXTINF as MPD's extm3u plugin reads it, whatever numbers a file holds; only after `#EXTM3U`.
    func testEXTINFGivesMPDsNameAndLength() {
        let text = "#EXTM3U\n#EXTINF:5,A\na\n#EXTINF:-1,B\nb\n#EXTINF:+3,\nc\n#EXTINF:0,\nd\n#EXTINF:99999999999999999999,E\ne\n"
            + "#EXTINF:2.5,F\nf\n#EXTINF: 4,  G\u{7}H\ng\n#EXTINF:-0,I\ni\n#EXTINF:junk\nj\n"
        let tags = M3U.parse(Data(text.utf8)).map(\.tags)
        XCTAssertEqual(tags.map { $0.items.map(\.value) }, [["A"], ["B"], [], [], [], [], ["G H"], ["I"], []])
        XCTAssertEqual(tags.map(\.durationMs), [5_000, 0, 3_000, nil, nil, nil, 4_000, 0, nil])
        XCTAssertTrue(tags.allSatisfy { $0.items.allSatisfy { $0.tag == .name } })
        XCTAssertTrue(M3U.parse(Data("#EXTINF:5,A\na\n".utf8))[0].tags.isEmpty, "no #EXTM3U: a plain list")
    }

    func testXSPFTracksAndNothingElse() {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <playlist version="1" xmlns="http://xspf.org/ns/0/">
              <title>Not a track</title>
              <trackList>
                <track><location>a.mp3</location><title>A &amp; B</title><duration>61500</duration></track>
                <track><title>No location</title></track>
                <track><location>file:///music/b%20c.mp3</location><location>alternative.mp3</location>
                  <duration>junk</duration></track>
                <track><location>  <![CDATA[http://example.com/x.ogg]]>  </location></track>
              </trackList>
            </playlist>
            """
        let entries = XSPF.parse(Data(text.utf8), limit: 100)
        XCTAssertEqual(entries.map(\.location), ["a.mp3", "file:///music/b%20c.mp3", "http://example.com/x.ogg"])
        XCTAssertEqual(entries.map(\.title), ["A & B", nil, nil])
        XCTAssertEqual(entries.map(\.durationMs), [61_500, nil, nil])
        XCTAssertEqual(entries.map(\.line), [5, 7, 9], "the line of each <track>")
        // As MPD's xspf plugin: fields after the location, as written; no length.
        XCTAssertEqual(entries[0].tags.items, [TagEntry(.title, "A & B")])
        XCTAssertEqual(entries.map(\.tags.durationMs), [nil, nil, nil])
        XCTAssertEqual(XSPF.parse(Data(text.utf8), limit: 1).map(\.location), ["a.mp3"])
        // Broken part-way: the tracks before the break.
        let cut = text.prefix(while: { $0 != "C" })
        XCTAssertEqual(XSPF.parse(Data(cut.utf8), limit: 100).map(\.location), ["a.mp3", "file:///music/b%20c.mp3"])
    }

    func testXSPFNeverExpandsEntitiesNorReadsFiles() throws {
        let folder = try TemporaryFolder("xspf-entities")
        let secret = folder.path("secret.txt")
        try "SECRET".write(toFile: secret, atomically: false, encoding: .utf8)
        let external = """
            <?xml version="1.0"?><!DOCTYPE playlist [<!ENTITY x SYSTEM "file://\(secret)">]>
            <playlist><trackList><track><location>&x;</location></track></trackList></playlist>
            """
        var laughs = "<?xml version=\"1.0\"?><!DOCTYPE playlist [<!ENTITY l0 \"lol\">"
        for level in 1...12 { laughs += "<!ENTITY l\(level) \"" + String(repeating: "&l\(level - 1);", count: 10) + "\">" }
        laughs += "]><playlist><trackList><track><location>&l12;</location></track></trackList></playlist>"
        for text in [external, laughs] {
            XCTAssertEqual(XSPF.parse(Data(text.utf8), limit: 100), [])
        }
    }

    func testBinaryAndHugeInputGiveBoundedEntries() throws {
        var generator = SystemRandomNumberGenerator()
        let binary = Data((0..<65_536).map { _ in UInt8.random(in: 0...255, using: &generator) })
        for format in PlaylistFormat.allCases {
            let entries = format.parse(binary, limit: 10)
            XCTAssertLessThanOrEqual(entries.count, 10, "\(format)")
            XCTAssertFalse(entries.contains { $0.location.utf8.contains(0) }, "\(format): a NUL is no location")
        }
        XCTAssertEqual(PlaylistFormat.m3u.parse(Data("a\0b.mp3\nc.mp3\n".utf8), limit: 10).map(\.location), ["c.mp3"])
        // A file far longer than the cap is read only as far as the cap's entries take.
        let folder = try TemporaryFolder("playlist-huge")
        let path = folder.path("huge.pls")
        var text = "[playlist]\n"
        for n in 1...200_000 { text += "File\(n)=song \(n).mp3\n" }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let read = StoredPlaylists.readCapped(atPath: path, maxEntries: 5, format: .pls)
        XCTAssertEqual(read?.map(\.location), (1...5).map { "song \($0).mp3" })
        XCTAssertNil(StoredPlaylists.readCapped(atPath: folder.url.path, maxEntries: 5, format: .pls), "a folder is no list")
    }

    func testLinesResolveAsMPDReadsThemAgainstTheListsFolder() {
        let music = "/home/u/Music"
        func resolve(_ line: String, in folder: String = "Sub/Deep") -> String {
            FolderPlaylists.resolve(line, folderURI: folder, musicDirectory: music)
        }
        XCTAssertEqual(resolve("a.mp3"), "Sub/Deep/a.mp3")
        XCTAssertEqual(resolve("./x/../a.mp3"), "Sub/Deep/a.mp3")
        XCTAssertEqual(resolve("../a.mp3"), "Sub/a.mp3")
        XCTAssertEqual(resolve("../../../../etc/passwd"), "etc/passwd", "`..` stops at the top of the music folder")
        XCTAssertEqual(resolve("a.mp3", in: ""), "a.mp3")
        XCTAssertEqual(resolve("/home/u/Music/album/1.mp3"), "album/1.mp3")
        XCTAssertEqual(resolve("/home/u/Music/../Music/album/1.mp3"), "album/1.mp3")
        XCTAssertEqual(resolve("/home/u/Musical/1.mp3"), "/home/u/Musical/1.mp3")
        XCTAssertEqual(resolve("/etc/passwd"), "/etc/passwd")
        XCTAssertEqual(resolve("file:///home/u/Music/a%20b.mp3"), "a b.mp3")
        XCTAssertEqual(resolve("file:///tmp/x.mp3"), "/tmp/x.mp3")
        XCTAssertEqual(resolve("http://example.com/a/../b.mp3"), "http://example.com/a/../b.mp3")
    }
}
