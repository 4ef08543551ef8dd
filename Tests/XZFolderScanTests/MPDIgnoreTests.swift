import Foundation
import XCTest
import XZTestSupport
@testable import XZFolderScan
import XZCatalogueTestSupport
import XZCatalogue
#if canImport(Glibc)
import Glibc
#endif

/// `.mpdignore` files in a real music folder, as MPD reads them: patterns per line for the folder and
/// below, hostile files (a FIFO, a huge one) never stalling the scan, and a scan of one folder heeding
/// the files above it.
final class MPDIgnoreTests: XCTestCase {
    private var temp: TemporaryFolder!
    private var music: URL!

    override func setUpWithError() throws {
        temp = try TemporaryFolder("mpdignore")
        music = temp.url.appendingPathComponent("Music")
        for name in ["keep.mp3", "live-1.mp3", "[x].mp3", "A/keep.mp3", "A/live-2.mp3", "A/B/deep.mp3", "Demos/d.mp3",
                     "A/Demos/d2.mp3"] {
            let url = music.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try AudioFixtures.makeMP3(at: url.path, seconds: 1)
        }
    }

    override func tearDown() {
        temp = nil
    }

    private func write(_ name: String, _ text: String) throws {
        try text.write(to: music.appendingPathComponent(name), atomically: false, encoding: .utf8)
    }

    private func songs(_ library: TestLibrary) throws -> [String] {
        let prefix = music.resolvingSymlinksInPath().path + "/"
        return try library.database.fileStamps(keyPrefix: "file:" + prefix).keys.map { String($0.dropFirst(5 + prefix.count)) }.sorted()
    }

    func testPatternsApplyToTheFolderAndBelowByName() throws {
        let library = try TestLibrary()
        // Names, not paths: "A/keep.mp3" is no name and matches nothing; brackets are a class unless escaped.
        try write(".mpdignore", "live-*\n\\[x].mp3\nDemos\nA/keep.mp3\n")
        try write("A/.mpdignore", "  B  \n#keep.mp3\n")
        try library.database.importFolder(at: music)
        XCTAssertEqual(try songs(library), ["A/keep.mp3", "keep.mp3"])
        // A changed file counts from the next scan: what it lets in comes, what it leaves out goes.
        try write(".mpdignore", "keep.mp3\n")
        let summary = try library.database.importFolder(at: music)
        XCTAssertEqual(try songs(library), ["A/Demos/d2.mp3", "A/live-2.mp3", "Demos/d.mp3", "[x].mp3", "live-1.mp3"])
        XCTAssertEqual(summary.removed, 2)
    }

    func testOneFolderScannedHeedsTheFilesAboveIt() throws {
        let library = try TestLibrary()
        try write(".mpdignore", "live-*\nDemos\n")
        let root = music.path
        _ = try library.database.importChanges(in: [music.appendingPathComponent("A").path], root: root)
        XCTAssertEqual(try songs(library), ["A/B/deep.mp3", "A/keep.mp3"])
        // A folder that is itself ignored holds no music, whoever names it.
        _ = try library.database.importChanges(in: [music.appendingPathComponent("A/Demos").path], root: root)
        _ = try library.database.importFolder(at: music.appendingPathComponent("Demos"), musicRoot: root)
        XCTAssertEqual(try songs(library), ["A/B/deep.mp3", "A/keep.mp3"])
    }

    func testHostileIgnoreFilesNeverStallNorSwellTheScan() throws {
        let library = try TestLibrary()
        // A FIFO nobody writes would hold a reader for ever; a huge file is read only as far as its cap.
        XCTAssertEqual(mkfifo(music.appendingPathComponent(".mpdignore").path, 0o600), 0)
        var huge = String(repeating: "#\(String(repeating: "x", count: 100))\n", count: 1_000)
        huge += "keep.mp3\n"
        try write("A/.mpdignore", huge)
        try write("A/B/.mpdignore", "deep\0.mp3\n\u{FF}\u{FE}\n*.mp3\n")
        try library.database.importFolder(at: music)
        XCTAssertEqual(try songs(library), ["A/Demos/d2.mp3", "A/keep.mp3", "A/live-2.mp3", "Demos/d.mp3", "[x].mp3",
                                            "keep.mp3", "live-1.mp3"],
                       "the FIFO and the pattern past the cap are no patterns; a NUL line is none, the next still is")
    }
}
