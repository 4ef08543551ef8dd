import Foundation
import GRDB
import XCTest
import XZTestSupport
@testable import XZFolderScan
import XZCatalogueTestSupport
import XZCatalogue

final class FolderImportTests: XCTestCase {
    private var temp: TemporaryFolder!

    private func makeMusicFolder() throws -> (TemporaryFolder, URL) {
        let temp = try TemporaryFolder("music")
        self.temp = temp
        let music = temp.url.appendingPathComponent("Music/周杰伦")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: music.appendingPathComponent("qingtian.mp3").path, seconds: 3,
                                  tags: .init(title: "晴天", artist: "周杰伦", album: "叶惠美", track: 3, year: 2003))
        try "[00:01.00]故事的小黄花\n".write(to: music.appendingPathComponent("qingtian.lrc"), atomically: true, encoding: .utf8)
        try AudioFixtures.makeMP3(at: temp.url.appendingPathComponent("Music/No Tags Here.mp3").path, seconds: 1)
        return (temp, temp.url.appendingPathComponent("Music"))
    }

    func testScanReadsTagsDurationAndSiblingLyrics() throws {
        let library = try TestLibrary()
        let (_, music) = try makeMusicFolder()
        let summary = try library.database.importFolder(at: music)
        XCTAssertEqual(summary.added, 2, summary.problems.joined(separator: "\n"))
        let song = try XCTUnwrap(try library.database.search("qingtian").songs.first)
        XCTAssertEqual(song.title, "晴天")
        XCTAssertEqual(song.singer, "周杰伦")
        XCTAssertEqual(song.album, "叶惠美")
        XCTAssertEqual(song.track, 3)
        XCTAssertEqual(song.year, 2003)
        XCTAssertEqual(Double(song.durationMs ?? 0), 3000, accuracy: 60)
        XCTAssertTrue(song.isLocal)
        XCTAssertTrue(song.lyricsPath.hasSuffix("周杰伦/qingtian.lrc"))
        XCTAssertTrue(song.songKey.hasPrefix("file:/"))
        let untagged = try XCTUnwrap(try library.database.search("no tags here").songs.first)
        XCTAssertEqual(untagged.singer, "Unknown")
        XCTAssertEqual(untagged.lyricsPath, "")
    }

    func testRescanIsIncrementalAndRemovesVanishedFiles() throws {
        let library = try TestLibrary()
        let (_, music) = try makeMusicFolder()
        _ = try library.database.importFolder(at: music)
        let again = try library.database.importFolder(at: music)
        XCTAssertEqual(again.skipped, 2)
        XCTAssertEqual(again.added + again.updated, 0)

        let untagged = music.appendingPathComponent("No Tags Here.mp3").path
        try AudioFixtures.makeMP3(at: untagged, seconds: 2, tags: .init(title: "Now Tagged", artist: "Someone"))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 10)], ofItemAtPath: untagged)
        try FileManager.default.removeItem(at: music.appendingPathComponent("周杰伦/qingtian.mp3"))
        let third = try library.database.importFolder(at: music)
        XCTAssertEqual(third.updated, 1)
        XCTAssertEqual(third.removed, 1)
        XCTAssertEqual(try library.titles("now tagged"), ["Now Tagged"])
        XCTAssertEqual(try library.titles("晴天"), [])
        XCTAssertNil(try library.database.singer(named: "周杰伦").flatMap { $0.name == "周杰伦" ? $0 : nil })
    }

    /// A rescan trusts size and mtime: an unchanged folder writes nothing and no tags are read again.
    func testRescanOfUnchangedFolderWritesNoRowsAndReadsNoTags() throws {
        let library = try TestLibrary()
        let (_, music) = try makeMusicFolder()
        _ = try library.database.importFolder(at: music)
        func songs() throws -> [Row] {
            try library.database.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT id, song_key, title, lyrics_path, file_mtime, added_at FROM song ORDER BY id")
            }
        }
        let rows = try songs()
        let changes = try library.database.pool.write { $0.totalChangesCount }

        // Other tag bytes of the same length under the same size and mtime: a scan that read tags would see them.
        let audio = music.appendingPathComponent("周杰伦/qingtian.mp3").path
        let mtime = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: audio)[.modificationDate] as? Date)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: audio))
        let old = ["晴天".data(using: .utf16LittleEndian)!, "晴天".data(using: .utf16BigEndian)!]
        let new = ["雨天".data(using: .utf16LittleEndian)!, "雨天".data(using: .utf16BigEndian)!]
        let form = try XCTUnwrap(old.firstIndex { bytes.range(of: $0) != nil }, "the title is in the tag")
        bytes.replaceSubrange(bytes.range(of: old[form])!, with: new[form])
        try bytes.write(to: URL(fileURLWithPath: audio))
        try FileManager.default.setAttributes([.modificationDate: mtime], ofItemAtPath: audio)

        let again = try library.database.importFolder(at: music)
        XCTAssertEqual(again.skipped, 2)
        XCTAssertEqual(again.added + again.updated + again.removed, 0)
        XCTAssertEqual(try library.database.pool.write { $0.totalChangesCount }, changes, "no row written")
        XCTAssertEqual(try songs(), rows)

        // A newer mtime is a change: the new tag is read.
        try FileManager.default.setAttributes([.modificationDate: mtime.addingTimeInterval(5)], ofItemAtPath: audio)
        XCTAssertEqual(try library.database.importFolder(at: music).updated, 1)
        XCTAssertEqual(try library.titles("yutian"), ["雨天"])
    }

    func testUpperCaseLyricsAndExtensionAreFound() throws {
        let library = try TestLibrary()
        let temp = try TemporaryFolder("upper")
        try AudioFixtures.makeMP3(at: temp.path("Loud.MP3"), seconds: 1, tags: .init(title: "Loud", artist: "Caps"))
        try "[00:00.50]LOUD\n".write(toFile: temp.path("Loud.LRC"), atomically: true, encoding: .utf8)
        try AudioFixtures.makeMP3(at: temp.path(".mp3"), seconds: 1)
        XCTAssertEqual(try library.database.importFolder(at: temp.url).added, 1, "a file named only .mp3 is no song")
        let song = try XCTUnwrap(try library.database.search("loud").songs.first)
        XCTAssertTrue(song.lyricsPath.hasSuffix("/Loud.LRC"), song.lyricsPath)
    }

    func testRescanNoticesLyricsThatCameOrWent() throws {
        let library = try TestLibrary()
        let (_, music) = try makeMusicFolder()
        _ = try library.database.importFolder(at: music)
        let lrc = music.appendingPathComponent("周杰伦/qingtian.lrc")
        try FileManager.default.removeItem(at: lrc)
        let gone = try library.database.importFolder(at: music)
        XCTAssertEqual(gone.updated, 1, "the audio is unchanged, its lyrics are not")
        XCTAssertEqual(try library.database.search("qingtian").songs.first?.lyricsPath, "")
        try "[00:01.00]新的歌词\n".write(to: lrc, atomically: true, encoding: .utf8)
        let back = try library.database.importFolder(at: music)
        XCTAssertEqual(back.updated, 1)
        XCTAssertEqual(try library.database.search("qingtian").songs.first?.lyricsPath, lrc.standardizedFileURL.path)
        XCTAssertEqual(try library.database.importFolder(at: music).skipped, 2)
    }

    func testBrokenFilesAreReportedAndSkipped() throws {
        let library = try TestLibrary()
        let (temp, music) = try makeMusicFolder()
        try Data().write(to: music.appendingPathComponent("empty.mp3"))
        try Data("just text, not audio".utf8).write(to: music.appendingPathComponent("text.mp3"))
        let summary = try library.database.importFolder(at: music)
        XCTAssertEqual(summary.added, 2)
        XCTAssertEqual(summary.failed, 2)
        XCTAssertTrue(summary.problems.allSatisfy { $0.contains(temp.url.path) }, "\(summary.problems)")
        XCTAssertTrue(summary.problems.contains { $0.contains("empty.mp3") })
    }

    func testGBKTitleStoredAsLatin1IsRecovered() throws {
        let library = try TestLibrary()
        let temp = try TemporaryFolder("gbk")
        let path = temp.path("gbk.mp3")
        try AudioFixtures.makeMP3(at: path, seconds: 1)
        // An ID3v1 tag whose title and artist bytes are GBK, as old Chinese taggers wrote them.
        func field(_ bytes: [UInt8], _ length: Int) -> [UInt8] { bytes + [UInt8](repeating: 0, count: length - bytes.count) }
        let title: [UInt8] = [0xC7, 0xE7, 0xCC, 0xEC]                     // 晴天
        let artist: [UInt8] = [0xD6, 0xDC, 0xBD, 0xDC, 0xC2, 0xD7]        // 周杰伦
        var tag = Array("TAG".utf8) + field(title, 30) + field(artist, 30) + field([], 30) + Array("2003".utf8)
        tag += field([], 30) + [255]
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(tag))
        try handle.close()
        let summary = try library.database.importFolder(at: temp.url)
        XCTAssertEqual(summary.added, 1, summary.problems.joined())
        let song = try XCTUnwrap(try library.database.search("晴天").songs.first)
        XCTAssertEqual(song.singer, "周杰伦")
        XCTAssertEqual(song.year, 2003)
    }

    func testMissingFolderIsAClearError() throws {
        let library = try TestLibrary()
        XCTAssertThrowsError(try library.database.importFolder(at: URL(fileURLWithPath: "/nonexistent/music"))) {
            XCTAssertEqual("\($0)", "/nonexistent/music: no such folder")
        }
    }
    /// Playlist files beside the songs are recorded by path; a scan that finds them unchanged writes
    /// nothing (names whose byte order differs from their character order included).
    func testPlaylistFilesAreRecordedAndAnUnchangedScanChangesNothing() throws {
        let library = try TestLibrary()
        let (_, music) = try makeMusicFolder()
        let names = ["周杰伦/精选.m3u8", "e\u{301}te\u{301}.pls", "\u{e9}t\u{e9}.xspf", "Z.M3U"]
        for name in names + ["notes.txt", "song.cue"] {
            try "a.mp3\n".write(to: music.appendingPathComponent(name), atomically: false, encoding: .utf8)
        }
        XCTAssertEqual(mkfifo(music.appendingPathComponent("fifo.m3u").path, 0o600), 0)
        XCTAssertTrue(try library.database.importFolder(at: music).playlistsChanged)
        let root = music.resolvingSymlinksInPath().path + "/"
        XCTAssertEqual(Set(try library.database.folderPlaylists(under: root).map { String($0.path.dropFirst(root.count)) }), Set(names))
        XCTAssertFalse(try library.database.importFolder(at: music).playlistsChanged)
        try FileManager.default.removeItem(at: music.appendingPathComponent("Z.M3U"))
        XCTAssertTrue(try library.database.importFolder(at: music).playlistsChanged)
        XCTAssertEqual(try library.database.folderPlaylists(under: root).count, 3)
    }
}
