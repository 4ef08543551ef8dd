import Foundation
import GRDB
import XZCatalogue
import XZSystem

/// A `download_task` row with its song's names joined in.
struct TaskRecord: FetchableRecord, Decodable, Sendable, Equatable {
    var id: Int64
    var songKey: String
    var kind: DownloadKind
    var state: DownloadState
    var url: String
    var validator: String
    var bytesDone: Int64
    var bytesTotal: Int64?
    var attempts: Int
    var lastError: String
    var note: String
    var path: String
    var ownerPid: Int64?
    var title: String?
    var singer: String?

    enum CodingKeys: String, CodingKey {
        case id, kind, state, url, validator, attempts, note, path, title, singer
        case songKey = "song_key", bytesDone = "bytes_done", bytesTotal = "bytes_total"
        case lastError = "last_error", ownerPid = "owner_pid"
    }

    var info: DownloadTaskInfo {
        DownloadTaskInfo(id: id, songKey: songKey, title: title ?? songKey, singer: singer ?? "", kind: kind,
                         state: state, bytesDone: bytesDone, bytesTotal: bytesTotal, bytesPerSecond: nil,
                         etaSeconds: nil, lastError: lastError.isEmpty ? nil : lastError,
                         note: note.isEmpty ? nil : note, path: path.isEmpty ? nil : path)
    }
}

/// The downloader's tables. Every call is one short transaction.
struct DownloadStore: Sendable {
    let database: LibraryDatabase
    static let notFoundMemory: TimeInterval = 7 * 24 * 3600

    private static let selection = """
        SELECT t.id, t.song_key, t.kind, t.state, t.url, t.validator, t.bytes_done, t.bytes_total, t.attempts,
               t.last_error, t.note, t.path, t.owner_pid, song.title AS title, singer.name AS singer
        FROM download_task t LEFT JOIN song ON song.song_key = t.song_key
        LEFT JOIN singer ON singer.id = song.singer_id
        """

    /// Every step of starting a download (a song to play) stamps its row.
    static func now() -> String { UTCStamp.string() }

    func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw DownloadError.database("download database: \(error.message ?? "\(error)")")
        }
    }

    func task(_ id: Int64) throws -> TaskRecord? {
        try wrap { try database.pool.read { db in
            try TaskRecord.fetchOne(db, sql: Self.selection + " WHERE t.id = ?", arguments: [id])
        } }
    }

    func all() throws -> [TaskRecord] {
        try wrap { try database.pool.read { db in try TaskRecord.fetchAll(db, sql: Self.selection + " ORDER BY t.id") } }
    }

    func song(key: String) throws -> Song? {
        try wrap { try database.song(key: key) }
    }

    /// Queues a task for the song and kind, new or again. A running task is left alone (nil);
    /// a re-queued failure keeps its `.part` and validator so it resumes.
    func queue(songKey: String, kind: DownloadKind, url: String) throws -> Int64? {
        try wrap { try database.pool.write { db in try queue(songKey: songKey, kind: kind, url: url, in: db) } }
    }

    /// Queues the song's audio and claims it, in one transaction: a song that is to play starts its download
    /// without a second write. Nil when its task is running already (here or in another program).
    func queueAndClaim(songKey: String, url: String, pid: Int32) throws -> TaskRecord? {
        try wrap { try database.pool.write { db -> TaskRecord? in
            guard let id = try queue(songKey: songKey, kind: .audio, url: url, in: db) else { return nil }
            return try claim(id: id, pid: pid, in: db)
        } }
    }

    private func queue(songKey: String, kind: DownloadKind, url: String, in db: Database) throws -> Int64? {
        let now = Self.now()
        if let row = try Row.fetchOne(db, sql: "SELECT id, state FROM download_task WHERE song_key = ? AND kind = ?",
                                      arguments: [songKey, kind.rawValue]) {
            let id: Int64 = row["id"]
            if row["state"] as String == DownloadState.running.rawValue { return nil }
            try db.execute(sql: """
                UPDATE download_task SET state = 'queued', last_error = '', note = '', path = '', attempts = 0,
                    owner_pid = NULL, updated_at = ? WHERE id = ?
                """, arguments: [now, id])
            return id
        }
        try db.execute(sql: """
            INSERT INTO download_task (song_key, kind, state, url, created_at, updated_at)
            VALUES (?, ?, 'queued', ?, ?, ?)
            """, arguments: [songKey, kind.rawValue, url, now, now])
        return db.lastInsertedRowID
    }

    /// The oldest queued task that can start: lyrics wait for their song's audio task, since the
    /// `.lrc` goes beside the downloaded file.
    func claimNext(pid: Int32) throws -> TaskRecord? {
        try wrap { try database.pool.write { db -> TaskRecord? in
            guard let id = try Int64.fetchOne(db, sql: """
                SELECT t.id FROM download_task t WHERE t.state = 'queued' AND (t.kind = 'audio' OR NOT EXISTS (
                    SELECT 1 FROM download_task a WHERE a.song_key = t.song_key AND a.kind = 'audio'
                        AND a.state IN ('queued', 'running', 'paused')))
                ORDER BY t.id LIMIT 1
                """) else { return nil }
            try db.execute(sql: "UPDATE download_task SET state = 'running', owner_pid = ?, updated_at = ? WHERE id = ?",
                           arguments: [pid, Self.now(), id])
            return try TaskRecord.fetchOne(db, sql: Self.selection + " WHERE t.id = ?", arguments: [id])
        } }
    }

    /// Claims one queued task now, whatever its place in the queue (a song that is to play); nil when it is
    /// not queued any more.
    private func claim(id: Int64, pid: Int32, in db: Database) throws -> TaskRecord? {
        try db.execute(sql: """
            UPDATE download_task SET state = 'running', owner_pid = ?, updated_at = ? WHERE id = ? AND state = 'queued'
            """, arguments: [pid, Self.now(), id])
        guard db.changesCount > 0 else { return nil }
        return try TaskRecord.fetchOne(db, sql: Self.selection + " WHERE t.id = ?", arguments: [id])
    }

    func saveProgress(id: Int64, bytesDone: Int64, bytesTotal: Int64?) throws {
        try wrap { try database.pool.write { db in
            try db.execute(sql: "UPDATE download_task SET bytes_done = ?, bytes_total = ?, updated_at = ? WHERE id = ?",
                           arguments: [bytesDone, bytesTotal, Self.now(), id])
        } }
    }

    /// Remembers which version of the file the `.part` holds, before its first byte is written.
    func saveSource(id: Int64, url: String, validator: String, bytesTotal: Int64?, bytesDone: Int64) throws {
        try wrap { try database.pool.write { db in
            try db.execute(sql: """
                UPDATE download_task SET url = ?, validator = ?, bytes_total = ?, bytes_done = ?, updated_at = ?
                WHERE id = ?
                """, arguments: [url, validator, bytesTotal, bytesDone, Self.now(), id])
        } }
    }

    func noteAttempt(id: Int64, error: String) throws {
        try wrap { try database.pool.write { db in
            try db.execute(sql: "UPDATE download_task SET attempts = attempts + 1, last_error = ?, updated_at = ? WHERE id = ?",
                           arguments: [error, Self.now(), id])
        } }
    }

    /// Ends a run of a task: done, failed, paused or cancelled. `bytes` is the finished file's size.
    func finish(id: Int64, state: DownloadState, error: String = "", note: String = "", path: String = "",
                bytes: Int64? = nil, in db: Database? = nil) throws {
        let sql = """
            UPDATE download_task SET state = ?, last_error = ?, note = ?, path = ?, owner_pid = NULL, updated_at = ?,
                bytes_done = coalesce(?, bytes_done), bytes_total = coalesce(?, bytes_total)
            WHERE id = ?
            """
        let arguments: StatementArguments = [state.rawValue, error, note, path, Self.now(), bytes, bytes, id]
        if let db { return try db.execute(sql: sql, arguments: arguments) }
        try wrap { try database.pool.write { db in try db.execute(sql: sql, arguments: arguments) } }
    }

    /// Moves tasks in one of `from` states to `to`, limited to the ids in `only` when given;
    /// returns the ids moved.
    func transition(_ target: DownloadTarget, from: [DownloadState], to: DownloadState,
                    only: Set<Int64>? = nil) throws -> [Int64] {
        if let only, only.isEmpty { return [] }
        return try wrap { try database.pool.write { db -> [Int64] in
            let states = from.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            var sql = "SELECT id FROM download_task WHERE state IN (\(states))"
            var arguments: StatementArguments = []
            if case .task(let id) = target {
                sql += " AND id = ?"
                arguments = [id]
            }
            let ids = try Int64.fetchAll(db, sql: sql, arguments: arguments).filter { only?.contains($0) ?? true }
            for id in ids {
                try db.execute(sql: """
                    UPDATE download_task SET state = ?, owner_pid = NULL,
                        last_error = CASE WHEN ? = 'queued' THEN '' ELSE last_error END,
                        attempts = CASE WHEN ? = 'queued' THEN 0 ELSE attempts END, updated_at = ? WHERE id = ?
                    """, arguments: [to.rawValue, to.rawValue, to.rawValue, Self.now(), id])
            }
            return ids
        } }
    }

    /// Tasks marked running by processes that are gone (or by this one, from before it restarted).
    func runningOwners() throws -> [(id: Int64, pid: Int64?)] {
        try wrap { try database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, owner_pid FROM download_task WHERE state = 'running'").map {
                (id: $0["id"], pid: $0["owner_pid"])
            }
        } }
    }

    func taskId(songKey: String, kind: DownloadKind) throws -> Int64? {
        try wrap { try database.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM download_task WHERE song_key = ? AND kind = ?",
                               arguments: [songKey, kind.rawValue])
        } }
    }

    func removeFinished() throws -> Int {
        try wrap { try database.pool.write { db in
            try db.execute(sql: "DELETE FROM download_task WHERE state IN ('done', 'cancelled')")
            return db.changesCount
        } }
    }

    // MARK: Lyrics misses

    /// The remembered miss for this lookup, unless a not-found has aged past 7 days.
    func lyricsMiss(_ key: String, now: Date = Date()) throws -> String? {
        try wrap { try database.pool.read { db -> String? in
            guard let row = try Row.fetchOne(db, sql: "SELECT reason, missed_at FROM lyrics_miss WHERE lookup_key = ?",
                                             arguments: [key]) else { return nil }
            let reason: String = row["reason"]
            if reason == "instrumental" { return reason }
            let missedAt = UTCStamp.date(row["missed_at"]) ?? .distantPast
            return now.timeIntervalSince(missedAt) < Self.notFoundMemory ? reason : nil
        } }
    }

    func recordLyricsMiss(_ key: String, reason: String, at date: Date = Date()) throws {
        try wrap { try database.pool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO lyrics_miss (lookup_key, reason, missed_at) VALUES (?, ?, ?)",
                           arguments: [key, reason, UTCStamp.string(date)])
        } }
    }
}
