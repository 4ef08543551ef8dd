import Foundation
import XCTest
import XZCatalogue
@testable import XZSystem
import XZTestSupport

/// What a write cut short by `kill -9` leaves — `.NAME.PID.RANDOM.tmp` beside the state file and the
/// stored playlists — is removed when the library opens, once it is old enough to be no live write's.
final class LeftoverTemporaryFilesTests: XCTestCase {
    func testOldLeftoversGoAndWritesInProgressAndOtherFilesStay() throws {
        let temporary = try TemporaryFolder("leftovers")
        let library = LibraryFolder(url: temporary.url.appendingPathComponent("library"))
        let playlists = library.url.appendingPathComponent("playlists")
        try FileManager.default.createDirectory(at: playlists, withIntermediateDirectories: true)
        func make(_ folder: URL, _ name: String, age: TimeInterval) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
            let time = Date().addingTimeInterval(-age)
            try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: path)
            return path
        }
        let old = AtomicFile.leftoverAge * 2
        let leftovers = [
            try make(library.url, AtomicFile.temporaryName(for: "host.state"), age: old),
            try make(playlists, AtomicFile.temporaryName(for: "mix.m3u"), age: old),
            try make(playlists, AtomicFile.temporaryName(for: "a.b.m3u"), age: old * 100),
        ]
        let kept = [
            try make(playlists, AtomicFile.temporaryName(for: "mix.m3u"), age: 0),  // another process writing now
            try make(playlists, "mix.m3u", age: old),
            try make(playlists, ".notes.tmp", age: old),
            try make(playlists, ".x.12.tmp", age: old),
            try make(library.url, "host.state", age: old),
        ]

        _ = try library.open(seedingDemoFrom: nil)
        for path in leftovers { XCTAssertFalse(FileManager.default.fileExists(atPath: path), path) }
        for path in kept { XCTAssertTrue(FileManager.default.fileExists(atPath: path), path) }
    }

    func testOnlyTheNamedFilesLeftoversGoInAFolderOfOthers() throws {
        let temporary = try TemporaryFolder("leftovers-named")
        let mine = temporary.path(AtomicFile.temporaryName(for: "state"))
        let theirs = temporary.path(AtomicFile.temporaryName(for: "other"))
        for path in [mine, theirs] {
            try Data().write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3_600)], ofItemAtPath: path)
        }
        XCTAssertEqual(AtomicFile.removeLeftovers(in: temporary.url.path, of: "state"), 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: mine))
        XCTAssertTrue(FileManager.default.fileExists(atPath: theirs))
    }
}
