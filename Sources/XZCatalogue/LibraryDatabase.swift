import Foundation
import GRDB

/// The library's SQLite file: WAL, foreign keys on, a busy timeout, and the schema migrated on open.
/// Reads go through the pool's readers, so a search never waits on an import or a stats write.
public struct LibraryDatabase: Sendable {
    public let pool: DatabasePool
    public let path: String

    public init(path: String) throws {
        var config = Configuration()
        config.busyMode = .timeout(15)
        config.foreignKeysEnabled = true
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            pool = try DatabasePool(path: path, configuration: config)
            try Schema.migrator.migrate(pool)
        } catch let error as DatabaseError {
            throw CatalogueError("cannot open library database \(path): \(error.message ?? "\(error)")")
        }
        self.path = path
    }
}

/// A catalogue failure with a message meant for the user.
public struct CatalogueError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
