import Foundation
import GRDB
import XCTest
import XZTestSupport
@testable import XZFolderScan
import XZCatalogue

/// A library scanned before the catalogue kept which names it made up (`untagged`): the songs it named
/// "Unknown" or by their file are read again by the next update, and then leave those names out of MPD's
/// answers; the songs named by their tags are not read again.
final class UntaggedFieldsMigrationTests: XCTestCase {
    func testSongsNamedByTheScanBeforeAreReadAgain() throws {
        let temp = try TemporaryFolder("untagged-migration")
        let music = URL(fileURLWithPath: temp.path("music")).resolvingSymlinksInPath()
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        let bare = music.appendingPathComponent("No Tags Here.mp3").path
        let tagged = music.appendingPathComponent("tagged.mp3").path
        try AudioFixtures.makeMP3(at: bare, seconds: 1)
        try AudioFixtures.makeMP3(at: tagged, seconds: 1, tags: .init(title: "Tagged", artist: "Someone"))

        // The library as the scan left it before: every migration but the last, the stand-in names stored.
        let path = temp.path("library.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            var before = DatabaseMigrator()
            for migration in Schema.migrations().prefix(while: { $0.name != "v16-untagged-fields" }) {
                before.registerMigration(migration.name) { db in try db.execute(sql: migration.sql) }
            }
            try before.migrate(queue)
            try queue.write { db in
                for (file, title, singer) in [(bare, "No Tags Here", "Unknown"), (tagged, "Tagged", "Someone")] {
                    let attributes = try FileManager.default.attributesOfItem(atPath: file)
                    let mtime = Int64((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
                    let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
                    try db.execute(sql: """
                        INSERT INTO singer (name, name_key, name_pinyin, name_initials, first_letter) VALUES (?, ?, ?, '', 'U')
                        """, arguments: [singer, singer.lowercased(), singer.lowercased()])
                    try db.execute(sql: """
                        INSERT INTO song (song_key, title, singer_id, added_at, title_key, title_pinyin, title_initials,
                                          size, file_mtime, local_path, duration_ms)
                        VALUES (?, ?, ?, '2026-01-01T00:00:00Z', ?, ?, '', ?, ?, ?, 1000)
                        """, arguments: ["file:" + file, title, db.lastInsertedRowID, title.lowercased(), title.lowercased(),
                                         size, mtime, file])
                }
            }
        }
        let database = try LibraryDatabase(path: path)
        let summary = try database.importFolder(at: music)
        XCTAssertEqual(summary.updated, 1, summary.problems.joined(separator: "\n"))
        XCTAssertEqual(summary.skipped, 1)
        let song = try XCTUnwrap(try database.song(localPath: bare))
        XCTAssertEqual(song.untagged, [.title, .artist])
        XCTAssertEqual(song.title, "No Tags Here")
        XCTAssertEqual(song.singer, "Unknown")
        XCTAssertEqual(SongTag.artist.values(of: song), [])
        XCTAssertEqual(try XCTUnwrap(try database.song(localPath: tagged)).untagged, [])
    }
}
