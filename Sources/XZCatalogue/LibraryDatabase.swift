import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// The library's SQLite file: WAL, foreign keys on, a busy timeout, and the schema migrated on open.
/// Reads go through the pool's readers, so a search never waits on an import or a stats write.
package struct LibraryDatabase: Sendable {
    package let pool: DatabasePool
    package let path: String
    /// Reads that may run at once. A host answers heavy requests on at most half as many threads, so
    /// searches stuck in SQLite never take every reader from the queue's lookups.
    package static let readerCount = 8

    package init(path: String) throws {
        var config = Configuration()
        config.busyMode = .timeout(15)
        config.foreignKeysEnabled = true
        // Every connection keeps a page cache of its own (2 MB by default): over a million-song
        // catalogue the writer and each reader fill theirs, which is most of what the library adds to
        // a playing prompt's memory. Searches touch few pages, so a small cache costs them little.
        // Readers open only when reads overlap: a terminal program keeps one or two.
        config.maximumReaderCount = Self.readerCount
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA cache_size = -512")
            db.add(function: FilterFunctions.match)
            db.add(function: MoreTagsColumn.function)
        }
        // Checked and made under the folder's lock, so a library another process is creating this
        // moment is never taken for an empty, damaged one.
        pool = try Self.holdingFolderLock(of: path) {
            try Self.checkFile(atPath: path)
            do {
                let pool = try DatabasePool(path: path, configuration: config)
                // The version check reads the file, which a damaged one cannot give.
                try Schema.migrate(pool)
                return pool
            } catch let error as DatabaseError {
                let readable = CatalogueError(error)
                if readable == .damaged {
                    throw CatalogueError.damaged("library database \(path) is damaged (\(error.message ?? "unreadable")): "
                        + Self.repairHint(path))
                }
                let message = (error.message ?? "SQLite error \(error.resultCode.rawValue)").split(whereSeparator: \.isNewline)
                throw CatalogueError.database("cannot open library database \(path): \(message.joined(separator: " "))")
            }
        }
        self.path = path
    }

    /// Runs `body` holding an exclusive `flock` on the folder of `path` (every process opening the
    /// library takes it); the lock goes with the process, even at `kill -9`.
    private static func holdingFolderLock<T>(of path: String, _ body: () throws -> T) throws -> T {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        // A folder that cannot be opened is reported by SQLite, in its words, when it opens the file.
        guard fd >= 0 else { return try body() }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0, errno == EINTR {}
        return try body()
    }

    /// Moves with every change to songs, singers and albums, by any process (schema.sql's triggers);
    /// play statistics, likes and stickers leave it as it is.
    package func catalogueVersion() throws -> Int64 {
        try pool.read { db in try Int64.fetchOne(db, sql: "SELECT value FROM catalogue_version") ?? 0 }
    }
}
