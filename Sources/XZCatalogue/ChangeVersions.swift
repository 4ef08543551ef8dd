import GRDB

extension LibraryDatabase {
    /// Numbers that move with every change, whoever makes it (triggers keep them): the songs' (song,
    /// singer and album rows) and the stickers' (stickers and likes).
    package struct ChangeVersions: Equatable, Sendable {
        package var catalogue: Int64
        package var stickers: Int64
    }

    package func changeVersions() throws -> ChangeVersions {
        try pool.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT (SELECT value FROM catalogue_version), (SELECT value FROM sticker_version)
                """)
            return ChangeVersions(catalogue: row?[0] ?? 0, stickers: row?[1] ?? 0)
        }
    }
}
