import GRDB
import XCTest
@testable import XZCatalogue
import XZCatalogueTestSupport

/// The writer's one list of song fields (`SongField.all`) against the real `song` table: the list names
/// every column schema.sql gives it, and every field lands in its column on insert and on update.
final class SongFieldsTests: XCTestCase {
    private func songColumns(_ library: TestLibrary) throws -> [String] {
        try library.database.pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('song') ORDER BY cid")
        }
    }

    func testTheListNamesEverySongColumnOfTheSchema() throws {
        let library = try TestLibrary()
        let columns = try songColumns(library)
        XCTAssertTrue(columns.contains("more_tags"), "the migrated schema has the latest song column")
        let declared = SongField.all.map(\.column)
        XCTAssertEqual(Set(declared).count, declared.count, "a column declared twice")
        XCTAssertEqual(Set(declared), Set(columns).subtracting(["id"]),
                       "every song column but id is a field of SongField.all, and nothing else is")
    }

    /// Every column the reader selects for `Song` is one the writer fills (or the row id, or a joined name).
    func testTheReaderSelectsOnlyWrittenColumns() {
        let written = Set(SongField.all.map(\.column))
        let selected = Song.selection.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { $0.hasPrefix("song.") }.map { String($0.dropFirst("song.".count)) }
        XCTAssertFalse(selected.isEmpty)
        XCTAssertEqual(Set(selected).subtracting(written), ["id"])
        let compared = Set(SongField.compared.map(\.column)).subtracting(["singer_id", "album_id"])
        XCTAssertEqual(compared.subtracting(selected), [], "a stored field `Song` never reads")
    }

    private func input(_ n: Int, key: String) -> SongInput {
        var song = SongInput(key: key, title: "Title \(n)", singer: "Singer \(n)")
        song.album = "Album \(n)"
        song.track = n
        song.year = 2000 + n
        song.durationMs = 1000 * n
        song.audioURL = "https://example.org/\(n).mp3"
        song.lyricsURL = "https://example.org/\(n).lrc"
        song.localPath = "/music/\(n).flac"
        song.lyricsPath = "/music/\(n).lrc"
        song.size = Int64(100 * n)
        song.sha256 = String(repeating: "\(n)", count: 64)
        song.fileMtime = Int64(1_700_000_000 + n)
        song.artists = ["Singer \(n)", "Guest \(n)"]
        song.albumArtist = "Album Artist \(n)"
        song.genres = ["Genre \(n)", "Other \(n)"]
        song.disc = n
        song.date = "20\(10 + n)-05-0\(n)"
        song.sampleRate = 44100 * n
        song.channels = n
        song.sampleFormat = n == 1 ? "24" : "f"
        song.moreTags = [.composer: ["Composer \(n)"], .label: ["Label \(n)"]]
        song.untagged = n == 1 ? [.title] : [.title, .artist]
        song.cuePart = CuePart(file: "/music/image\(n).flac", startFrame: 75 * n, endFrame: 150 * n)
        song.hasCueSheet = n == 1
        song.cueTags = [TagEntry(.album, "Sheet \(n)"), TagEntry(.track, "0\(n)")]
        song.cueImageMs = 10_000 * n
        return song
    }

    private func storedRow(_ library: TestLibrary, key: String) throws -> Row {
        let row = try library.database.pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM song WHERE song_key = ?", arguments: [key])
        }
        return try XCTUnwrap(row)
    }

    /// What the row of `input(n, key:)` holds, column by column, written out here rather than taken from
    /// the list; a field added to the list without a line here fails the test.
    private func expectedRow(_ n: Int, key: String, _ library: TestLibrary) throws -> [String: DatabaseValue] {
        let (singerId, albumId) = try library.database.pool.read { db in
            (try Int64.fetchOne(db, sql: "SELECT id FROM singer WHERE name = ?", arguments: ["Singer \(n)"]),
             try Int64.fetchOne(db, sql: "SELECT id FROM album WHERE title = ?", arguments: ["Album \(n)"]))
        }
        let values: [String: (any DatabaseValueConvertible)?] = [
            "song_key": key, "title": "Title \(n)", "singer_id": singerId, "album_id": albumId, "track": n,
            "year": 2000 + n, "duration_ms": 1000 * n, "audio_url": "https://example.org/\(n).mp3",
            "lyrics_url": "https://example.org/\(n).lrc", "local_path": "/music/\(n).flac",
            "lyrics_path": "/music/\(n).lrc", "size": 100 * n, "sha256": String(repeating: "\(n)", count: 64),
            "file_mtime": 1_700_000_000 + n, "title_key": "title\(n)", "title_pinyin": "title\(n)",
            "title_initials": "t\(n)", "artists": "Singer \(n)\u{1F}Guest \(n)", "album_artist": "Album Artist \(n)",
            "genre": "Genre \(n)\u{1F}Other \(n)", "disc": n, "date": "20\(10 + n)-05-0\(n)",
            "sample_rate": 44100 * n, "channels": n, "sample_format": n == 1 ? "24" : "f",
            "more_tags": "Composer=Composer \(n)\u{1E}Label=Label \(n)", "untagged": n == 1 ? 1 : 3,
            "cue_file": "/music/image\(n).flac", "cue_start": 75 * n, "cue_end": 150 * n,
            "has_cue_sheet": n == 1 ? 1 : 0, "cue_tags": "Album=Sheet \(n)\u{1E}Track=0\(n)", "cue_image_ms": 10_000 * n,
        ]
        return values.mapValues { $0?.databaseValue ?? .null }
    }

    private func assertRow(_ row: Row, holds expected: [String: DatabaseValue],
                           file: StaticString = #filePath, line: UInt = #line) {
        for field in SongField.all where field.column != "added_at" {
            XCTAssertEqual(row[field.column] as DatabaseValue, expected[field.column], field.column, file: file, line: line)
        }
        XCTAssertEqual(Set(expected.keys), Set(SongField.all.map(\.column)).subtracting(["added_at"]),
                       "the test's expected row names every field", file: file, line: line)
        XCTAssertFalse((row["added_at"] as String).isEmpty, file: file, line: line)
    }

    func testEveryFieldRoundTripsThroughInsertAndUpdateOnARealFile() throws {
        let library = try TestLibrary()
        let key = "file:/music/song.flac"
        let first = input(1, key: key), second = input(2, key: key)
        // Into the empty library (the bulk load), then beside it (the ordinary insert).
        var summary = try library.database.applyFolderScan([first], removing: [], into: ImportSummary())
        let beside = input(1, key: "file:/music/other.flac")
        summary = try library.database.applyFolderScan([beside], removing: [], into: summary)
        XCTAssertEqual(summary.added, 2)
        let inserted = try storedRow(library, key: key)
        assertRow(inserted, holds: try expectedRow(1, key: key, library))
        assertRow(try storedRow(library, key: beside.key), holds: try expectedRow(1, key: beside.key, library))

        summary = try library.database.applyFolderScan([second], removing: [], into: ImportSummary())
        XCTAssertEqual(summary.updated, 1)
        let updated = try storedRow(library, key: key)
        assertRow(updated, holds: try expectedRow(2, key: key, library))
        for field in SongField.all {
            let before: DatabaseValue = inserted[field.column], after: DatabaseValue = updated[field.column]
            switch field.update {
            case .never: XCTAssertEqual(before, after, "\(field.column) is written once")
            case .compared, .derived: XCTAssertNotEqual(before, after, "\(field.column) is rewritten by an update")
            }
        }
        let song = try XCTUnwrap(try library.database.song(key: key))
        XCTAssertEqual(song.title, "Title 2")
        XCTAssertEqual(song.album, "Album 2")
        XCTAssertEqual(song.artists, ["Singer 2", "Guest 2"])
        XCTAssertEqual(song.genres, ["Genre 2", "Other 2"])
        XCTAssertEqual(song.sampleFormat, "f")
        XCTAssertEqual(song.moreTags[.composer], ["Composer 2"])
        XCTAssertEqual(song.cuePart, CuePart(file: "/music/image2.flac", startFrame: 150, endFrame: 300))
        XCTAssertEqual(song.cueTags, [TagEntry(.album, "Sheet 2"), TagEntry(.track, "02")])
        XCTAssertEqual(song.cueImageMs, 20_000)
        XCTAssertEqual(song.fields, second, "every field the writer writes, the reader reads back")

        // The same song again changes nothing; one without local paths keeps the stored ones.
        summary = try library.database.applyFolderScan([second], removing: [], into: ImportSummary())
        XCTAssertEqual(summary.skipped, 1)
        var withoutPaths = second
        withoutPaths.localPath = nil
        withoutPaths.lyricsPath = nil
        summary = try library.database.applyFolderScan([withoutPaths], removing: [], into: ImportSummary())
        XCTAssertEqual(summary.skipped, 1)
        withoutPaths.title = "Title 3"
        summary = try library.database.applyFolderScan([withoutPaths], removing: [], into: ImportSummary())
        XCTAssertEqual(summary.updated, 1)
        let kept = try storedRow(library, key: key)
        XCTAssertEqual(kept["local_path"], "/music/2.flac")
        XCTAssertEqual(kept["lyrics_path"], "/music/2.lrc")
        XCTAssertEqual(kept["title"], "Title 3")
    }
}
