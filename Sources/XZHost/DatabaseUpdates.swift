import Foundation
import Synchronization
import XZCatalogue
import XZFolderScan

/// `update` / `rescan` jobs: folder imports run one at a time on a thread of their own, never on a
/// connection's event loop. Each job has MPD's number (`updating_db: N`), shown by `status` until done.
/// The same thread watches the catalogue for changes made by any process (`watch`).
public final class DatabaseUpdates: Sendable {
    private struct State {
        var lastId = 0
        var pending: [Int] = []
        /// The catalogue's version as the watch last saw it; nil before its first check.
        var seenVersion: Int64?
        var catalogueChanged: (@Sendable (_ byOtherProcess: Bool) -> Void)?
        var timer: WatchTimer?
        var lastSummary: ImportSummary?
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "xzmusic.database-update")

    public init() {}

    /// The job running or waiting longest, as `status` shows it.
    public var current: Int? {
        state.withLock { $0.pending.first }
    }

    /// What the last finished job reported ("3 added, 0 updated, ..."); nil before one finished or
    /// after one failed.
    public var lastSummary: ImportSummary? {
        state.withLock { $0.lastSummary }
    }

    /// Queues an import of `folder` (everything re-read when `rescan`); returns its job number at once.
    /// `announce` hears `update` when the job starts and ends, and `database` when it changed songs;
    /// `report` hears why a job failed.
    func start(folder: URL, rescan: Bool, database: LibraryDatabase,
               announce: @escaping @Sendable (HostChanges) -> Void, report: @escaping @Sendable (String) -> Void) -> Int {
        let id = state.withLock { state in
            state.lastId = state.lastId % Int(Int32.max) + 1
            state.pending.append(state.lastId)
            return state.lastId
        }
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
            state.withLock { state in
                state.pending.removeAll { $0 == id }
                state.lastSummary = summary
            }
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
        let watchTimer = WatchTimer(source: timer)
        state.withLock { state in
            state.timer?.source.cancel()
            state.timer = watchTimer
            state.catalogueChanged = changed
        }
        // Queued before the timer's first check, which then counts as this watch's first.
        queue.async { self.state.withLock { $0.seenVersion = nil } }
        timer.resume()
    }

    /// Stops `watch`; a job or check under way is not waited for.
    func stopWatching() {
        state.withLock { state in
            state.timer?.source.cancel()
            state.timer = nil
            state.catalogueChanged = nil
        }
    }

    /// On `queue`: tells the watcher when the version moved since it was last seen.
    private func noticeVersion(of database: LibraryDatabase, byOtherProcess: Bool) {
        guard state.withLock({ $0.catalogueChanged }) != nil,
              // Unreadable now, the version is asked again at the next check.
              let version = try? database.catalogueVersion() else { return }
        let moved = state.withLock { state -> (changed: @Sendable (Bool) -> Void, first: Bool)? in
            guard version != state.seenVersion, let changed = state.catalogueChanged else { return nil }
            defer { state.seenVersion = version }
            return (changed, state.seenVersion == nil)
        }
        if let moved { moved.changed(byOtherProcess && !moved.first) }
    }
}

/// The watch's libdispatch timer. A dispatch source may be cancelled from any thread (libdispatch
/// synchronises its handles), so sharing this handle is safe.
private struct WatchTimer: @unchecked Sendable {
    let source: DispatchSourceTimer
}
