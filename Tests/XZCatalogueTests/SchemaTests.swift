import GRDB
import XCTest
@testable import XZCatalogue
import XZCatalogueTestSupport
import XZTestSupport

final class SchemaTests: XCTestCase {
    func testEmbeddedSchemaIsSchemaSQL() throws {
        let onDisk = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("schema.sql"), encoding: .utf8)
        XCTAssertEqual(Schema.sql, onDisk, "run 'make schema' after editing schema.sql")
    }

    func testMigratedDatabaseMatchesSchemaSQLAppliedDirectly() throws {
        let library = try TestLibrary()
        let direct = try DatabaseQueue()
        let onDisk = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("schema.sql"), encoding: .utf8)
        try direct.write { db in try db.execute(sql: onDisk) }
        let query = """
            SELECT type, name, tbl_name, sql FROM sqlite_master
            WHERE name NOT LIKE 'grdb_%' AND name NOT LIKE 'sqlite_%' ORDER BY name
            """
        let migrated = try library.database.pool.read { db in try Row.fetchAll(db, sql: query) }
        let expected = try direct.read { db in try Row.fetchAll(db, sql: query) }
        XCTAssertFalse(expected.isEmpty)
        XCTAssertEqual(migrated, expected)
    }

    func testMigrationsAreSplitInFileOrder() {
        let migrations = Schema.migrations(from: "-- header\n-- migration: a\nCREATE TABLE x (i);\n-- migration: b\nCREATE TABLE y (j);\n")
        XCTAssertEqual(migrations.map(\.name), ["a", "b"])
        XCTAssertTrue(migrations[0].sql.contains("CREATE TABLE x"))
        XCTAssertFalse(migrations[0].sql.contains("CREATE TABLE y"))
        XCTAssertEqual(Schema.migrations().first?.name, "v1-catalogue")
    }

    func testDatabaseUsesWALAndForeignKeys() throws {
        let library = try TestLibrary()
        let mode = try library.database.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        let foreignKeys = try library.database.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA foreign_keys") }
        XCTAssertEqual(mode, "wal")
        XCTAssertEqual(foreignKeys, 1)
    }

    func testReopeningKeepsDataAndDoesNotReapplyMigrations() throws {
        let library = try TestLibrary()
        try library.importFeed([TestLibrary.line(["title": "晴天", "singer": "周杰伦"])])
        let again = try LibraryDatabase(path: library.database.path)
        XCTAssertEqual(try again.songCount(), 1)
    }
}
