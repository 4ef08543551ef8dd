import Foundation
import XCTest
import XZCatalogue
@testable import XZDownloader
import XZSystem
import XZTestSupport

final class ChecksumTests: XCTestCase {
    /// Files around the 1 MiB read size (empty, one short, exact, one over, several chunks) against
    /// sha256sum, and the same bytes hashed in memory.
    func testFilesAgainstSha256sum() throws {
        let folder = try TemporaryFolder("sha")
        let lengths = [0, 1, 64, 1_048_575, 1_048_576, 1_048_577, 3_500_001]
        let random = try XCTUnwrap(FileHandle(forReadingAtPath: "/dev/urandom")).readData(ofLength: lengths.max()!)
        var paths: [String] = []
        var inMemory: [String] = []
        for length in lengths {
            let data = random.prefix(length)
            let path = folder.path("f\(length)")
            try data.write(to: URL(fileURLWithPath: path))
            paths.append(path)
            inMemory.append(sha256Hex(data))
        }
        let result = try TestProcess.run("sha256sum", paths)
        let sums = result.stdout.split(separator: "\n").map { String($0.prefix(64)) }
        XCTAssertEqual(sums.count, lengths.count)
        XCTAssertEqual(try paths.map { try Checksum.sha256Hex(ofFile: $0) }, sums)
        XCTAssertEqual(inMemory, sums)
    }

    func testUnreadableFileIsNamed() {
        XCTAssertThrowsError(try Checksum.sha256Hex(ofFile: "/nonexistent/x.part")) { error in
            XCTAssertEqual((error as? DownloadError)?.description, "cannot read /nonexistent/x.part: No such file or directory")
        }
    }
}

final class FileNamingTests: XCTestCase {
    func testHostileNamesStayOneComponent() {
        for hostile in ["../../x", "..", ".", "a/b", "/etc/passwd", "..\\..\\x", "x\u{0}y", "\u{202E}gpj.exe", "   "] {
            let name = FileNaming.component(hostile)
            XCTAssertFalse(name.contains("/"), hostile)
            XCTAssertFalse(name.hasPrefix("."), hostile)
            XCTAssertFalse(name.isEmpty, hostile)
            XCTAssertFalse(name.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.value == 0x202E }, hostile)
        }
        XCTAssertEqual(FileNaming.component("../../x"), "_._.._x")
        XCTAssertEqual(FileNaming.component("a\tb\nc\u{7}d"), "a b c d")
        XCTAssertEqual(FileNaming.component(""), "Unknown")
    }

    func testLongNamesAreCutBetweenCharacters() {
        let cjk = String(repeating: "晴", count: 300)          // 3 bytes each
        let cut = FileNaming.component(cjk)
        XCTAssertLessThanOrEqual(cut.utf8.count, FileNaming.maxComponentBytes)
        XCTAssertEqual(cut, String(repeating: "晴", count: 66))
        let emoji = String(repeating: "👩‍👩‍👧", count: 50)   // 18 bytes per cluster
        XCTAssertEqual(FileNaming.component(emoji), String(repeating: "👩‍👩‍👧", count: 11))
        XCTAssertEqual(FileNaming.component(String(repeating: "a", count: 300)).utf8.count, 200)
    }

    func testSongStem() {
        XCTAssertEqual(FileNaming.songStem(title: "晴天", singer: "周杰伦", album: "叶惠美", track: 3), ["songs", "周杰伦", "叶惠美", "03 晴天"])
        XCTAssertEqual(FileNaming.songStem(title: "T", singer: "S", album: nil, track: nil), ["songs", "S", "T"])
        XCTAssertEqual(FileNaming.songStem(title: "../../x", singer: "..", album: "/", track: 12), ["songs", "_.", "_", "12 _._.._x"])
        XCTAssertEqual(FileNaming.candidateName(stem: "a", ext: "mp3", attempt: 1), "a.mp3")
        XCTAssertEqual(FileNaming.candidateName(stem: "a", ext: "mp3", attempt: 3), "a (3).mp3")
    }

    func testFoldersThroughSymlinksOutsideAreRefused() throws {
        let temporary = try TemporaryFolder("naming")
        let library = LibraryFolder(url: temporary.url.appendingPathComponent("library"))
        try library.create()
        let outside = temporary.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: library.url.appendingPathComponent("songs"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: library.url.appendingPathComponent("songs/evil"), withDestinationURL: outside)
        XCTAssertThrowsError(try FileNaming.makeFolder(["songs", "evil", "x"], in: library)) { error in
            XCTAssertEqual(error as? DownloadError, .unsafePath)
        }
        XCTAssertNoThrow(try FileNaming.makeFolder(["songs", "fine"], in: library))
    }
}

final class DownloadSettingsTests: XCTestCase {
    func testDefaults() {
        let settings = DownloadSettings()
        XCTAssertEqual(settings.concurrency, 3)
        XCTAssertEqual(settings.lyricsServer, "https://lrclib.net")
        XCTAssertEqual(settings.userAgent, "xzmusic/0.1.0")
    }

    func testParse() throws {
        let settings = try DownloadSettings.parse("""
            # downloads
            concurrency = 5
            retries=2
              timeout = 12.5
            lyrics_server = "http://127.0.0.1:8080"
            theme = dark
            """)
        XCTAssertEqual(settings.concurrency, 5)
        XCTAssertEqual(settings.retries, 2)
        XCTAssertEqual(settings.idleTimeout, 12.5)
        XCTAssertEqual(settings.lyricsServer, "http://127.0.0.1:8080")
        XCTAssertThrowsError(try DownloadSettings.parse("# c\nconcurrency = many", source: "cfg")) { error in
            XCTAssertTrue("\(error)".contains("cfg line 2"), "\(error)")
        }
        XCTAssertThrowsError(try DownloadSettings.parse("lyrics_server = ftp://x"))
        XCTAssertThrowsError(try DownloadSettings.parse("timeout = 0"))
    }

    func testConfigFileLocation() throws {
        XCTAssertEqual(ConfigFile.location(environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/h"]).path, "/cfg/xzmusic/config")
        XCTAssertEqual(ConfigFile.location(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]).path, "/h/.config/xzmusic/config")
        XCTAssertEqual(ConfigFile.location(environment: ["HOME": "/h"]).path, "/h/.config/xzmusic/config")
        let temporary = try TemporaryFolder("config")
        XCTAssertEqual(try DownloadSettings.load(environment: ["XDG_CONFIG_HOME": temporary.url.path]), DownloadSettings())
        try FileManager.default.createDirectory(at: temporary.url.appendingPathComponent("xzmusic"), withIntermediateDirectories: true)
        try "retries = 9\n".write(toFile: temporary.path("xzmusic/config"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try DownloadSettings.load(environment: ["XDG_CONFIG_HOME": temporary.url.path]).retries, 9)
    }
}

final class PartFileTests: XCTestCase {
    /// /dev/full fails every write with ENOSPC, standing in for a full disk.
    func testFullDiskIsAClearError() throws {
        let file = try PartFile(path: "/dev/full", offset: 0)
        let bytes = [UInt8](repeating: 1, count: 4096)
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try file.write($0) }) { error in
            let error = error as? DownloadError
            XCTAssertEqual(error, .diskFull)
            XCTAssertTrue(error?.description.contains("disk full") == true, error?.description ?? "")
        }
    }

    func testResumeOffsetCutsTrailingBytes() throws {
        let temporary = try TemporaryFolder("part")
        let path = temporary.path("a.part")
        try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: path))
        let file = try PartFile(path: path, offset: 40)
        try [UInt8](repeating: 9, count: 10).withUnsafeBytes { try file.write($0) }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(data, Data(repeating: 7, count: 40) + Data(repeating: 9, count: 10))
    }
}
