import Foundation
import GRDB
import XCTest
@testable import XZCatalogue
import XZCatalogueTestSupport

/// The catalogue's version, as a cache of song records reads it: moved by every change to songs, singers
/// and albums, through the library's own connections or another process's; not by reads, statistics or
/// stickers.
final class CatalogueVersionTests: XCTestCase {
    func testCatalogueChangesMoveTheVersionAndNothingElseDoes() throws {
        let library = try TestLibrary()
        let database = library.database
        try library.importFeed([TestLibrary.line(["source_id": "1", "title": "One", "singer": "A", "album": "X"])])
        let start = try database.catalogueVersion()
        _ = try database.songs(SongSelection(filters: []), naming: .paths)
        try database.pool.write { db in
            try db.execute(sql: "INSERT INTO song_like (song_key, title, singer, liked_at) VALUES ('src:1', 'One', 'A', '')")
            try db.execute(sql: "INSERT INTO sticker (song_key, name, value) VALUES ('src:1', 'rating', '8')")
        }
        XCTAssertEqual(try database.catalogueVersion(), start, "reads, likes and stickers are no catalogue change")

        var last = start
        func assertMoved(_ what: String, _ change: (Database) throws -> Void, from other: LibraryDatabase? = nil) throws {
            try (other ?? database).pool.write(change)
            let now = try database.catalogueVersion()
            XCTAssertNotEqual(now, last, what)
            last = now
        }
        try assertMoved("song") { try $0.execute(sql: "UPDATE song SET title = 'Uno'") }
        try assertMoved("singer") { try $0.execute(sql: "UPDATE singer SET name = 'B'") }
        try assertMoved("album") { try $0.execute(sql: "UPDATE album SET title = 'Y'") }
        // Another process: a connection of its own to the same file.
        try assertMoved("another process", { try $0.execute(sql: "UPDATE song SET year = 2001") },
                        from: try LibraryDatabase(path: database.path))
        try library.importFeed([TestLibrary.line(["source_id": "2", "title": "Two", "singer": "A"])], name: "more.jsonl")
        XCTAssertNotEqual(try database.catalogueVersion(), last, "an import")
    }
}
