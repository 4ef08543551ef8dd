import Foundation
import XZCatalogue

/// `update` / `rescan` jobs: folder imports run one at a time on a thread of their own, never on a
/// connection's event loop. Each job has MPD's number (`updating_db: N`), shown by `status` until done.
public final class DatabaseUpdates: @unchecked Sendable {
    private let lock = NSLock()
    private let queue = DispatchQueue(label: "xzmusic.database-update")
    private var lastId = 0
    private var pending: [Int] = []
    /// What the last finished job reported ("3 added, 0 updated, ...").
    public private(set) var lastSummary: ImportSummary?

    public init() {}

    /// The job running or waiting longest, as `status` shows it.
    public var current: Int? {
        lock.lock()
        defer { lock.unlock() }
        return pending.first
    }

    /// Queues an import of `folder` (everything re-read when `rescan`); returns its job number at once.
    /// `announce` hears `update` when the job starts and ends, and `database` when it changed songs.
    func start(folder: URL, rescan: Bool, database: LibraryDatabase,
               announce: @escaping @Sendable (Set<IdleSubsystem>) -> Void) -> Int {
        lock.lock()
        lastId = lastId % Int(Int32.max) + 1
        let id = lastId
        pending.append(id)
        lock.unlock()
        queue.async { [self] in
            announce([.update])
            let summary = try? database.importFolder(at: folder, rereadingUnchanged: rescan)
            lock.lock()
            pending.removeAll { $0 == id }
            lastSummary = summary
            lock.unlock()
            let changed = summary.map { $0.added + $0.updated + $0.removed > 0 } ?? false
            announce(changed ? [.update, .database] : [.update])
        }
        return id
    }

    /// Waits until every queued job has finished (tests, shutdown).
    public func wait() {
        queue.sync {}
    }
}
