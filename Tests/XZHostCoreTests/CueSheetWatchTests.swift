import Foundation
import XCTest
import XZCatalogue
import XZFolderScan
@testable import XZHostCore
import XZTestSupport

/// The watched music folder follows CUE sheets: one copied in beside its image makes the image's tracks
/// songs, an edit retitles them, and its removal makes the image one song again.
final class CueSheetWatchTests: XCTestCase {
    func testASheetCopiedInEditedAndRemovedReachesTheCatalogue() throws {
        let folder = try TemporaryFolder("cue-watch")
        let music = folder.url.appendingPathComponent("music")
        let rip = music.appendingPathComponent("Rip")
        try CueFixtures.makeRip(in: rip)
        let sheet = rip.appendingPathComponent("image.cue")
        try FileManager.default.removeItem(at: sheet)
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let database = try library.open(seedingDemoFrom: nil)
        try database.importFolder(at: music)
        let host = PlayerHost(folder: library, database: database, output: .null, musicDirectory: music) { _ in }
        defer { host.shutdown() }
        host.watchLibrary(LibraryWatchSettings())
        Thread.sleep(forTimeInterval: 0.3)  // the tree is watched from its own thread
        let root = music.standardizedFileURL.resolvingSymlinksInPath().path
        func title(_ path: String) -> String? { try? database.song(localPath: root + "/" + path)?.title }
        XCTAssertEqual(title("Rip/image.flac"), "ImgTitle")

        try CueFixtures.sheet.write(to: sheet, atomically: true, encoding: .utf8)
        XCTAssertTrue(eventually(timeout: 10) { title("Rip/image.cue/track0002") == "Second" && title("Rip/image.flac") == nil },
                      "the sheet's tracks stand for the image")
        XCTAssertEqual(try database.songCount(), 3)

        try CueFixtures.sheet.replacingOccurrences(of: "\"Second\"", with: "\"Second, edited\"")
            .write(to: sheet, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 5)], ofItemAtPath: sheet.path)
        XCTAssertTrue(eventually(timeout: 10) { title("Rip/image.cue/track0002") == "Second, edited" }, "an edited sheet")

        try FileManager.default.removeItem(at: sheet)
        XCTAssertTrue(eventually(timeout: 10) { title("Rip/image.flac") == "ImgTitle" && title("Rip/image.cue/track0001") == nil },
                      "the image is a song again")
        XCTAssertEqual(try database.songCount(), 1)
    }
}
