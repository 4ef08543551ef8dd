import GRDB

/// Tells whether the library database changed: SQLite's `data_version`, read on a connection of its own
/// so that every commit counts, whether this process made it (through the pool) or another one did.
public final class LibraryChanges: Sendable {
    private let connection: DatabaseQueue

    public init(database: LibraryDatabase) throws {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(15)
        connection = try DatabaseQueue(path: database.path, configuration: config)
    }

    /// A number that differs from the one read before whenever a commit came in between.
    public func version() throws -> Int64 {
        try connection.inDatabase { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }
}
