import Foundation
import GRDB
import GRDBSQLite
/// A prepared statement driven through the SQLite C API, for the import's hot inserts.
final class RawStatement {
    private let connection: OpaquePointer
    private let handle: OpaquePointer
    /// SQLite copies the text before `bind` returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ connection: OpaquePointer, _ sql: String) throws {
        self.connection = connection
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v2(connection, sql, -1, &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        self.handle = handle
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }

    func bind(_ index: Int32, _ value: Data) {
        _ = value.withUnsafeBytes { sqlite3_bind_blob64(handle, index, $0.baseAddress, sqlite3_uint64($0.count), Self.transient) }
    }

    func bind(_ index: Int32, _ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            bind(index, utf8, 0..<utf8.count)
        }
    }

    func bind(_ index: Int32, _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        guard let base = bytes.baseAddress, !range.isEmpty else {
            _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)
            return
        }
        _ = sqlite3_bind_text(handle, index, UnsafeRawPointer(base + range.lowerBound).assumingMemoryBound(to: CChar.self),
                              Int32(range.count), Self.transient)
    }

    /// Steps to completion and resets; a failure becomes a DatabaseError with SQLite's message.
    func run() throws {
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message,
                                sql: String(cString: sqlite3_sql(handle)))
        }
        sqlite3_reset(handle)
    }
}
