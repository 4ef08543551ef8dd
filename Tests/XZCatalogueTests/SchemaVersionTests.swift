import GRDB
import XCTest
@testable import XZCatalogue
import XZTestSupport

/// The schema's version in `PRAGMA user_version`: a file at it opens without the migrator, one from an
/// older build is migrated and stamped, and a newer build's file keeps its own number.
final class SchemaVersionTests: XCTestCase {
    private func userVersion(_ path: String) throws -> Int {
        try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? -1 }
    }

    func testVersionCountsTheMigrations() {
        XCTAssertEqual(Schema.version, Schema.migrations().count)
        XCTAssertGreaterThan(Schema.version, 0)
    }

    func testANewLibraryIsStampedAndAStampedOneSkipsTheMigrator() throws {
        let temp = try TemporaryFolder("schema-version")
        let path = temp.path("library.sqlite")
        _ = try LibraryDatabase(path: path)
        XCTAssertEqual(try userVersion(path), Schema.version)
        // The migrator's record gone: a stamped file is not migrated again, so the migrator never sees it.
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "DELETE FROM grdb_migrations") }
        _ = try LibraryDatabase(path: path)
        let applied = try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM grdb_migrations") }
        XCTAssertEqual(applied, 0)
    }

    func testAnOlderBuildsLibraryIsMigratedAndStamped() throws {
        let temp = try TemporaryFolder("schema-version")
        let path = temp.path("library.sqlite")
        // What a build before the version stamp made: every migration but the last, and user_version 0.
        do {
            let queue = try DatabaseQueue(path: path)
            var before = DatabaseMigrator()
            for migration in Schema.migrations().dropLast() {
                before.registerMigration(migration.name) { db in try db.execute(sql: migration.sql) }
            }
            try before.migrate(queue)
        }
        XCTAssertEqual(try userVersion(path), 0)
        let database = try LibraryDatabase(path: path)
        XCTAssertEqual(try userVersion(path), Schema.version)
        let applied = try database.pool.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        XCTAssertEqual(Set(applied), Set(Schema.migrations().map(\.name)), "the missing migration applied")
    }

    func testANewerBuildsVersionIsKept() throws {
        let temp = try TemporaryFolder("schema-version")
        let path = temp.path("library.sqlite")
        _ = try LibraryDatabase(path: path)
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "PRAGMA user_version = \(Schema.version + 5)") }
        _ = try LibraryDatabase(path: path)
        XCTAssertEqual(try userVersion(path), Schema.version + 5)
    }
}
