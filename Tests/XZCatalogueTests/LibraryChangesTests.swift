import Foundation
import GRDB
import XCTest
@testable import XZCatalogue

/// The database's change counter, as a cache of songs reads it: still without commits, moved by a commit
/// through the library's own connections and by one from another process's connection.
final class LibraryChangesTests: XCTestCase {
    func testEveryCommitMovesTheVersionAndReadsDoNot() throws {
        let library = try TestLibrary()
        try library.importFeed([TestLibrary.line(["source_id": "1", "title": "One", "singer": "A"])])
        let changes = try LibraryChanges(database: library.database)
        let start = try changes.version()
        _ = try library.database.songs(SongSelection(filters: []), naming: .paths)
        XCTAssertEqual(try changes.version(), start, "a read is no change")

        try library.importFeed([TestLibrary.line(["source_id": "2", "title": "Two", "singer": "A"])], name: "more.jsonl")
        let afterImport = try changes.version()
        XCTAssertNotEqual(afterImport, start)

        // Another process: a connection of its own to the same file.
        let other = try LibraryDatabase(path: library.database.path)
        try other.pool.write { db in try db.execute(sql: "UPDATE song SET title = 'Uno' WHERE title = 'One'") }
        XCTAssertNotEqual(try changes.version(), afterImport)
    }

    func testSongIDsAreWhatSongsSelects() throws {
        let library = try TestLibrary()
        try library.importFeed([
            TestLibrary.line(["source_id": "1", "title": "Café Song", "singer": "Band"]),
            TestLibrary.line(["source_id": "2", "title": "cafe au lait", "singer": "band"]),
            TestLibrary.line(["source_id": "3", "title": "Tea", "singer": "Band"]),
        ])
        let selection = SongSelection(filters: [.tag(.title, StringMatch(.contains, "cafe", foldCase: true))],
                                      foldedExtras: true)
        let ids = try library.database.songIDs(selection, naming: .paths)
        let songs = try library.database.songs(selection, naming: .paths)
        XCTAssertEqual(songs.map(\.title), ["cafe au lait", "Café Song"], "MPD's match, then the folded one")
        XCTAssertEqual(ids.matches, [songs[0].id])
        XCTAssertEqual(ids.extras, [songs[1].id])
    }
}
