import Foundation
import XZCatalogue
import XZFolderScan

/// `update` / `rescan` jobs: folder imports run one at a time on a thread of their own, never on a
/// connection's event loop. Each job has MPD's number (`updating_db: N`), shown by `status` until done.
/// The same thread watches the catalogue for changes made by any process (`watch`).
public final class DatabaseUpdates: @unchecked Sendable {
    private let lock = NSLock()
    private let queue = DispatchQueue(label: "xzmusic.database-update")
    private var lastId = 0
    private var pending: [Int] = []
    /// Read and written on `queue` only.
    private var seenVersion: Int64?
    /// Under `lock`.
    private var catalogueChanged: (@Sendable (_ byOtherProcess: Bool) -> Void)?
    private var timer: DispatchSourceTimer?
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
    /// `announce` hears `update` when the job starts and ends, and `database` when it changed songs;
    /// `report` hears why a job failed.
    func start(folder: URL, rescan: Bool, database: LibraryDatabase,
               announce: @escaping @Sendable (HostChanges) -> Void, report: @escaping @Sendable (String) -> Void) -> Int {
        lock.lock()
        lastId = lastId % Int(Int32.max) + 1
        let id = lastId
        pending.append(id)
        lock.unlock()
        queue.async { [self] in
            announce([.update])
            var summary: ImportSummary?
            do {
                summary = try database.importFolder(at: folder, rereadingUnchanged: rescan)
            } catch {
                report("update of \(folder.path) failed: \(error)")
            }
            // This job's change is announced below, not again by the watch.
            noticeVersion(of: database, byOtherProcess: false)
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

    /// Checks the catalogue's version now and every `interval`: `changed` hears each move, and whether
    /// another process made it (an `xzmusic import`, a download) rather than this host's own job. The
    /// first check counts as a change of this host's. Checks run between jobs, never during one.
    func watch(_ database: LibraryDatabase, every interval: DispatchTimeInterval,
               changed: @escaping @Sendable (_ byOtherProcess: Bool) -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.noticeVersion(of: database, byOtherProcess: true) }
        lock.withLock {
            self.timer?.cancel()
            self.timer = timer
            catalogueChanged = changed
        }
        // Queued before the timer's first check, which then counts as this watch's first.
        queue.async { self.seenVersion = nil }
        timer.resume()
    }

    /// Stops `watch`; a job or check under way is not waited for.
    func stopWatching() {
        lock.withLock {
            timer?.cancel()
            timer = nil
            catalogueChanged = nil
        }
    }

    /// On `queue`: tells the watcher when the version moved since it was last seen.
    private func noticeVersion(of database: LibraryDatabase, byOtherProcess: Bool) {
        guard let changed = lock.withLock({ catalogueChanged }),
              // Unreadable now, the version is asked again at the next check.
              let version = try? database.catalogueVersion(), version != seenVersion else { return }
        let first = seenVersion == nil
        seenVersion = version
        changed(byOtherProcess && !first)
    }
}
