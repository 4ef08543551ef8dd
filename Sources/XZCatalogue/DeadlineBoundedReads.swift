import GRDB
import GRDBSQLite
import XZSystem

extension LibraryDatabase {
    /// A read whose statements SQLite stops once `deadline` passes: `DeadlinePassed`, the connection
    /// left as it was. Reads with no deadline run as before, with no handler.
    func read<T>(by deadline: Deadline, _ body: (Database) throws -> T) throws -> T {
        guard deadline != .never else { return try pool.read(body) }
        try deadline.check()
        return try pool.read { db in
            guard let connection = db.sqliteConnection else { return try body(db) }
            var limit = deadline.uptimeNanoseconds
            return try withUnsafeMutablePointer(to: &limit) { limit in
                // Asked every 1,000 virtual machine steps (a few microseconds): the clock read costs nothing
                // a query can show. A nonzero answer ends the statement with SQLITE_INTERRUPT.
                sqlite3_progress_handler(connection, 1_000, { context in
                    guard let context else { return 0 }
                    let limit = context.assumingMemoryBound(to: UInt64.self).pointee
                    return Deadline(uptimeNanoseconds: limit).hasPassed ? 1 : 0
                }, limit)
                defer { sqlite3_progress_handler(connection, 0, nil, nil) }
                do {
                    return try body(db)
                } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT && deadline.hasPassed {
                    throw DeadlinePassed()
                }
            }
        }
    }
}
