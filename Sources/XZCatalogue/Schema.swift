import GRDB

/// The migrations of schema.sql, which the binary carries in `Schema.sql` (see Schema+Embedded.swift).
public enum Schema {
    public struct Migration: Sendable, Equatable {
        public let name: String
        public let sql: String
    }

    static let marker = "-- migration: "

    /// The "-- migration: NAME" sections of schema.sql, in file order.
    public static func migrations(from text: String = sql) -> [Migration] {
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

    public static var migrator: DatabaseMigrator {
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
