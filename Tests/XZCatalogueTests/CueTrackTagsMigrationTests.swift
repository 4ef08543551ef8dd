import Foundation
import GRDB
import XCTest
import XZTestSupport
@testable import XZCatalogue

/// A library whose CUE tracks were read before their tags' order and their image's length were kept: the
/// migration finds each image's length from its last track, and marks the tracks to be read again.
final class CueTrackTagsMigrationTests: XCTestCase {
    func testImageLengthsComeFromTheLastTrackAndTracksAreReadAgain() throws {
        let temp = try TemporaryFolder("cue-track-tags-migration")
        let path = temp.path("library.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            var before = DatabaseMigrator()
            for migration in Schema.migrations().prefix(while: { $0.name != "v20-cue-track-tags" }) {
                before.registerMigration(migration.name) { db in try db.execute(sql: migration.sql) }
            }
            try before.migrate(queue)
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO singer (name, name_key, name_pinyin, name_initials, first_letter) VALUES ('S', 's', 's', '', 'S')
                    """)
                // A 12 s image in three tracks (4 s, 4 s, then from 00:08:00 to its end), and a whole file.
                let rows: [(String, String, Int?, Int?, Int)] = [
                    ("/m/a.cue/track0001", "/m/a.flac", 0, 300, 4000), ("/m/a.cue/track0002", "/m/a.flac", 300, 600, 4000),
                    ("/m/a.cue/track0003", "/m/a.flac", 600, nil, 4000), ("/m/b.flac", "", nil, nil, 7000),
                ]
                for (local, image, start, end, ms) in rows {
                    try db.execute(sql: """
                        INSERT INTO song (song_key, title, singer_id, added_at, title_key, title_pinyin, title_initials,
                                          file_mtime, local_path, duration_ms, cue_file, cue_start, cue_end)
                        VALUES (?, 't', 1, '2026-01-01T00:00:00Z', 't', 't', '', 1, ?, ?, ?, ?, ?)
                        """, arguments: ["file:" + local, local, ms, image, start, end])
                }
            }
        }
        let database = try LibraryDatabase(path: path)
        let rows = try database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT local_path, cue_image_ms, file_mtime, cue_tags FROM song ORDER BY local_path")
        }
        XCTAssertEqual(rows.map { $0[1] as Int? }, [12_000, 12_000, 12_000, nil])
        XCTAssertEqual(rows.map { $0[2] as Int? }, [nil, nil, nil, 1], "only the tracks are read again")
        XCTAssertEqual(rows.map { $0[3] as String }, ["", "", "", ""])
        XCTAssertEqual(try database.catalogueSummary().durationMs, 3 * 12_000 + 7000, "each track counts its image, as MPD")
    }
}
