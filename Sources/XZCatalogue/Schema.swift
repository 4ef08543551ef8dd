import GRDB

/// The migrations of schema.sql, which the binary carries in `Schema.sql` (see Schema+Embedded.swift).
package enum Schema {
    package struct Migration: Sendable, Equatable {
        package let name: String
        package let sql: String
    }

    static let marker = "-- migration: "

    /// The "-- migration: NAME" sections of schema.sql, in file order.
    package static func migrations(from text: String = sql) -> [Migration] {
        var result: [Migration] = []
        var name: String?
        var body: [Substring] = []
        func flush() {
            if let name { result.append(Migration(name: name, sql: body.joined(separator: "\n"))) }
            body.removeAll()
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(marker) {
                flush()
                name = line.dropFirst(marker.count).trimmingCharacters(in: .whitespaces)
            } else if name != nil {
                body.append(line)
            }
        }
        flush()
        return result
    }

    /// The schema's version, which a migrated file keeps in `PRAGMA user_version`: the number of migrations,
    /// which are only ever appended. A file at this version opens after one pragma read, without the
    /// migrator's parse of this text and its reads of `grdb_migrations`.
    package static let version = sql.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        .count { $0.starts(with: marker.utf8) }

    /// Brings the file to `version`: the migrations it lacks, then the version stamped (never lowered: a
    /// newer build's file keeps its own). A file at the version is only read.
    static func migrate(_ pool: DatabasePool) throws {
        let stamped = try pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
        guard stamped != version else { return }
        try migrator.migrate(pool)
        if stamped < version {
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = \(version)") }
        }
    }

    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in migrations() {
            migrator.registerMigration(migration.name) { db in
                try db.execute(sql: migration.sql)
            }
        }
        return migrator
    }
}

import Foundation
