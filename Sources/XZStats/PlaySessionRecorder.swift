import Foundation
import GRDB
import XZSystem
import XZCatalogue

/// Records play sessions as they happen: a row when a session begins, an update every
/// `rule.checkpointMs` of audio, one at the moment the play counts and one at the end, each a short
/// transaction. A crash or kill -9 so loses at most one checkpoint of listening and never a counted
/// play, as long as the database can be written.
///
/// Another process may hold the write lock for longer than any timeout (a large import is one
/// transaction). A write then waits at most `writeWait`; the session stays in memory and is written
/// at a later input, at least every `retryInterval`, so the player neither stalls nor sees
/// "database is locked". Calls are serialised by a lock; keep them off a real-time audio thread.
///
/// A database that cannot be written at all (disk full, read-only, an I/O error) is treated the same
/// way: finished plays wait in memory, at most `maxUnsavedSessions` of them, and are written once a
/// write goes through again; `waitingReason` says why they wait.
package final class PlaySessionRecorder: Sendable {
    /// Ended sessions kept in memory while the database cannot be written; past it the oldest go
    /// (a day of back-to-back three-minute songs is 480).
    package static let maxUnsavedSessions = 10_000

    package let database: LibraryDatabase
    package let rule: PlayCountRule
    /// Whose plays these are: the host's own player plays for the owner.
    package let user: UserID
    private let clock: @Sendable () -> Date
    private let state = Mutex(State())

    private struct State {
        var writeWait: TimeInterval = 0.25
        var retryInterval: TimeInterval = 2
        var open: Session?
        /// Ended sessions whose last write has not gone through yet, oldest first.
        var unsaved: [Session] = []
        /// Uptime of the last write that found the database busy; nil when writes are up to date.
        var behindSince: TimeInterval?
        /// Why writes are behind when it is more than a busy database (disk full, read-only): a line to tell.
        var waitingReason: String?

        var isDirty: Bool { !unsaved.isEmpty || open?.dirty == true }
    }

    private struct Session {
        var id: Int64?
        let songKey: String
        let title: String
        let singer: String
        let startedAt: Date
        var tracker: SessionTracker
        var countedAt: Date?
        var dirty = true
    }

    package init(database: LibraryDatabase, rule: PlayCountRule = .lastFM, user: UserID = .owner,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.rule = rule
        self.user = user
        self.clock = clock
    }

    /// How long one write may wait for another process's write transaction.
    package var writeWait: TimeInterval {
        get { state.withLock { $0.writeWait } }
        set { state.withLock { $0.writeWait = newValue } }
    }

    /// While writes are behind, how often inputs try again.
    package var retryInterval: TimeInterval {
        get { state.withLock { $0.retryInterval } }
        set { state.withLock { $0.retryInterval = newValue } }
    }

    /// The running session's row id; nil when none runs or its first write is still waiting.
    package var currentSessionId: Int64? { state.withLock { $0.open?.tracker.isEnded == false ? $0.open?.id : nil } }

    /// The running (or just ended) session's tracker: played time, count state, position.
    package var currentTracker: SessionTracker? { state.withLock { $0.open?.tracker } }

    /// True while some session state is only in memory because the database was busy.
    package var hasUnsavedChanges: Bool { state.withLock { $0.isDirty } }

    /// One line saying why plays wait in memory (the disk is full, the database is read-only); nil
    /// while writes go through or the database is only busy.
    package var waitingReason: String? { state.withLock { $0.isDirty ? $0.waitingReason : nil } }

    /// Tries the waiting writes again, at most every `retryInterval`; for a timer while nothing plays.
    package func retryUnsaved() {
        state.withLock { state in
            // What fails here is told by `waitingReason`; the sessions stay for the next try.
            try? save(&state, now: false)
        }
    }

    /// Starts a session at position 0 and writes it; returns its row id, or nil when the database is
    /// busy and the row will be written later. A session still open is first ended as `stopped`
    /// where it was: the player should end it itself with the true reason.
    @discardableResult
    package func begin(song: Song) throws -> Int64? {
        try begin(songKey: song.songKey, title: song.title, singer: song.singer, durationMs: song.durationMs)
    }

    @discardableResult
    package func begin(songKey: String, title: String, singer: String, durationMs: Int?) throws -> Int64? {
        try state.withLock { state in
            if var previous = state.open {
                if !previous.tracker.isEnded {
                    apply(.ended(reason: .stopped, positionMs: previous.tracker.positionMs), to: &previous)
                }
                if previous.dirty {
                    state.unsaved.append(previous)
                    if state.unsaved.count > Self.maxUnsavedSessions { state.unsaved.removeFirst() }
                }
            }
            var tracker = SessionTracker(rule: rule)
            tracker.handle(.started(durationMs: durationMs))
            state.open = Session(id: nil, songKey: songKey, title: title, singer: singer,
                                 startedAt: UTCTime.truncated(clock()), tracker: tracker)
            try save(&state, now: true)
            return state.open?.id
        }
    }

    /// Feeds a player input to the running session; ignored when none runs.
    package func handle(_ input: PlayerInput) throws {
        try state.withLock { state in
            guard var session = state.open else { return }
            let changed = apply(input, to: &session)
            state.open = session
            try save(&state, now: changed)
        }
    }

    package func end(reason: PlayEndReason, positionMs: Int) throws {
        try handle(.ended(reason: reason, positionMs: positionMs))
    }

    /// Writes whatever is still only in memory, waiting up to `timeout` for the database; for quitting.
    /// Returns false when something is still unsaved.
    @discardableResult
    package func flush(timeout: TimeInterval = 15) throws -> Bool {
        try state.withLock { state in
            try save(&state, now: true, wait: timeout)
            return !state.isDirty
        }
    }

    /// Feeds the tracker; true when the session has something new to write.
    @discardableResult
    private func apply(_ input: PlayerInput, to session: inout Session) -> Bool {
        guard !session.tracker.isEnded else { return false }
        let events = session.tracker.handle(input)
        if session.countedAt == nil, session.tracker.isCounted {
            session.countedAt = UTCTime.truncated(clock())
        }
        if !events.isEmpty { session.dirty = true }
        return !events.isEmpty
    }

    /// Writes dirty sessions in one transaction. While behind, only tries when `now` is set (a new
    /// event) or `retryInterval` has passed; a busy database leaves everything dirty for later.
    private func save(_ state: inout State, now: Bool, wait: TimeInterval? = nil) throws {
        guard state.isDirty else { return }
        let uptime = ProcessInfo.processInfo.systemUptime
        if !now, let since = state.behindSince, uptime - since < state.retryInterval { return }
        var pending = state.unsaved
        var current = state.open
        let writeWait = state.writeWait
        do {
            try database.pool.writeWithoutTransaction { db in
                // The pool's writer is ours alone inside this closure, so its busy timeout can be
                // shortened for this one transaction and restored after.
                let previous = try Int.fetchOne(db, sql: "PRAGMA busy_timeout") ?? 15_000
                try db.execute(sql: "PRAGMA busy_timeout = \(Int((wait ?? writeWait) * 1000))")
                // Fails only on a broken connection, which the transaction below reports.
                defer { try? db.execute(sql: "PRAGMA busy_timeout = \(previous)") }
                try db.inTransaction(.immediate) {
                    for index in pending.indices { try write(&pending[index], db) }
                    if var session = current, session.dirty {
                        try write(&session, db)
                        current = session
                    }
                    return .commit
                }
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            state.behindSince = uptime
            return
        } catch let error as DatabaseError where Self.unwritable.contains(error.resultCode) {
            state.behindSince = uptime
            state.waitingReason = Self.reason(error)
            return
        }
        // Ids and clean flags only after the commit: a rolled-back insert must be inserted again.
        state.unsaved = []
        state.open?.id = current?.id
        state.open?.dirty = false
        state.behindSince = nil
        state.waitingReason = nil
    }

    /// Failures a later write can get past once the disk has room or is writable again.
    private static let unwritable: [ResultCode] = [.SQLITE_FULL, .SQLITE_READONLY, .SQLITE_IOERR, .SQLITE_CANTOPEN]

    private static func reason(_ error: DatabaseError) -> String {
        switch error.resultCode {
        case .SQLITE_FULL: return "the disk is full"
        case .SQLITE_READONLY: return "the library database is read-only"
        default: return "the library database cannot be written (\(error.message ?? "\(error.resultCode)"))"
        }
    }

    private func write(_ session: inout Session, _ db: Database) throws {
        let t = session.tracker
        let values: [DatabaseValueConvertible?] = [
            UTCTime.string(clock()), t.playedMs, t.positionMs, t.durationMs, t.endReason?.rawValue,
            t.isCounted, session.countedAt.map(UTCTime.string), t.isSkip,
        ]
        if let id = session.id {
            try db.execute(sql: """
                UPDATE play_session SET updated_at = ?, played_ms = ?, position_ms = ?, duration_ms = ?,
                    end_reason = ?, counted = ?, counted_at = ?, skip = ? WHERE id = ?
                """, arguments: StatementArguments(values + [id]))
        } else {
            try db.execute(sql: """
                INSERT INTO play_session (user_id, song_key, title, singer, started_at, updated_at, played_ms,
                    position_ms, duration_ms, end_reason, counted, counted_at, skip)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: StatementArguments(
                    [user.rawValue, session.songKey, session.title, session.singer, UTCTime.string(session.startedAt)] + values))
            session.id = db.lastInsertedRowID
        }
        session.dirty = false
    }
}
