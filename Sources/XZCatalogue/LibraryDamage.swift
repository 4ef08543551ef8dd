import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// A damaged library database told in one line with a way out, and SQLite's failures told without
/// their SQL: the cheap check of the file when it is opened, and the full check of `xzmusic check`.
extension LibraryDatabase {
    /// How to get a working library back from a damaged file at `path`.
    package static func repairHint(_ path: String) -> String {
        "move \(path) aside and run 'xzmusic import' again to rebuild the library"
            + " (or try: sqlite3 \(path) .recover | sqlite3 recovered.sqlite)"
    }

    /// Refuses a file at `path` that no SQLite database can be: empty, shorter than a header, without
    /// SQLite's header, or shorter than the pages its header counts (a truncated copy). Reads 100 bytes
    /// and two sizes; a missing file passes (it becomes a new library).
    static func checkFile(atPath path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        func damaged(_ reason: String) -> CatalogueError {
            .damaged("library database \(path) is damaged (\(reason)): \(repairHint(path))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw CatalogueError.database("library database \(path) is no regular file")
        }
        guard info.st_size > 0 else {
            throw CatalogueError.damaged("library database \(path) is empty (0 bytes), which no library is: "
                + "move it aside to start a new library, or put a backup in its place")
        }
        guard info.st_size >= 100 else { throw damaged("\(info.st_size) bytes, shorter than a database header") }
        guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.read(upToCount: 100),
              data.count == 100 else {
            throw CatalogueError.database("cannot read library database \(path): \(String(cString: strerror(errno)))")
        }
        try? handle.close()
        let header = [UInt8](data)
        guard header.starts(with: Array("SQLite format 3\0".utf8)) else { throw damaged("no SQLite header") }
        func bigEndian(_ offset: Int, _ count: Int) -> Int {
            header[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
        }
        let pageSize = bigEndian(16, 2) == 1 ? 65_536 : bigEndian(16, 2)
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else {
            throw damaged("a page size of \(pageSize) bytes")
        }
        // The header's page count holds when its "valid for" number matches the change counter.
        let pages = bigEndian(28, 4)
        guard pages > 0, bigEndian(92, 4) == bigEndian(24, 4) else { return }
        // Pages still in the write-ahead log are not in the file yet: only a file without one must hold them all.
        var wal = stat()
        if stat(path + "-wal", &wal) == 0, wal.st_size > 0 { return }
        if Int64(info.st_size) < Int64(pages) * Int64(pageSize) {
            throw damaged("\(info.st_size) bytes where its header counts \(pages) pages of \(pageSize)")
        }
    }

    /// SQLite's `PRAGMA quick_check` (`full`: `integrity_check`): nil when sound, else the first
    /// problems it names, one line (a check that SQLite stops as damaged is a problem too).
    package func problems(full: Bool, limit: Int = 10) throws -> String? {
        let rows: [String]
        do {
            rows = try pool.read { db in
                try String.fetchAll(db, sql: "PRAGMA \(full ? "integrity_check" : "quick_check")(\(max(1, limit)))")
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            rows = [error.message ?? "database disk image is malformed"]
        } catch {
            throw CatalogueError.readable(error)
        }
        guard rows != ["ok"] else { return nil }
        // Each row may hold several lines, among them a "*** in database main ***" heading.
        let lines = rows.flatMap { $0.split(whereSeparator: \.isNewline) }.filter { !$0.hasPrefix("***") }
        return lines.joined(separator: "; ")
    }
}

extension CatalogueError {
    /// A database failure as one line without the statement it ran: a damaged file (SQLite's
    /// SQLITE_CORRUPT or SQLITE_NOTADB) is `.damaged`, any other `.database`.
    package init(_ error: DatabaseError) {
        let message = (error.message ?? "SQLite error \(error.resultCode.rawValue)")
            .split(whereSeparator: \.isNewline).joined(separator: " ")
        switch error.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            self = .damaged("the library database is damaged (\(message)): 'xzmusic check' tells more and how to repair it")
        default:
            self = .database("library database: \(message)")
        }
    }

    /// `error` as a user may read it: a database failure as its one-line CatalogueError, any other as it is.
    package static func readable(_ error: any Error) -> any Error {
        guard let failure = error as? DatabaseError else { return error }
        return CatalogueError(failure)
    }

    /// Runs `body`, its database failures as `readable` ones.
    package static func readable<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw readable(error)
        }
    }
}
