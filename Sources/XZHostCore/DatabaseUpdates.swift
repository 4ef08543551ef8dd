import Foundation
import XZSystem
import XZCatalogue
import XZFolderScan

/// `update` / `rescan` jobs: folder imports run one at a time on a thread of their own, never on a
/// connection's event loop. Each job has MPD's number (`updating_db: N`), shown by `status` until done.
/// The same thread looks at the catalogue when inotify says another process may have changed it (`watch`).
package final class DatabaseUpdates: Sendable {
    private struct State {
        var lastId = 0
        var pending: [Int] = []
        /// What the watch last saw; nil before its first check.
        var seen: Seen?
        var changed: (@Sendable (_ changes: HostChanges, _ byOtherProcess: Bool) -> Void)?
        /// The inotify watch of the library folder, or the poll where inotify cannot watch.
        var folderWatch: FolderWatch?
        var timer: WatchTimer?
        /// Bumped by every `watch` and `stopWatching`, so a watch that was replaced starts no poll.
        var generation = 0
        /// A check is queued and has not started: more events need no other.
        var checkQueued = false
        var lastSummary: ImportSummary?
    }

    /// The catalogue's change numbers and the stored playlists folder's time.
    private struct Seen: Equatable {
        var versions: LibraryDatabase.ChangeVersions
        var playlists: timespec?

        static func == (a: Seen, b: Seen) -> Bool {
            a.versions == b.versions && a.playlists?.tv_sec == b.playlists?.tv_sec && a.playlists?.tv_nsec == b.playlists?.tv_nsec
        }
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "xzmusic.database-update")

    package init() {}

    /// The job running or waiting longest, as `status` shows it.
    package var current: Int? {
        state.withLock { $0.pending.first }
    }

    /// What the last finished job reported ("3 added, 0 updated, ..."); nil before one finished or
    /// after one failed.
    package var lastSummary: ImportSummary? {
        state.withLock { $0.lastSummary }
    }

    /// Queues an import of `folder` (everything re-read when `rescan`); returns its job number at once.
    /// `announce` hears `update` when the job starts and ends, and `database` when it changed songs;
    /// `report` hears why a job failed.
    func start(folder: URL, rescan: Bool, musicRoot: String? = nil, database: LibraryDatabase, playlists: URL,
               announce: @escaping @Sendable (HostChanges) -> Void, report: @escaping @Sendable (String) -> Void) -> Int {
        start(folder.path, database: database, playlists: playlists, announce: announce, report: report) {
            try database.importFolder(at: folder, rereadingUnchanged: rescan, musicRoot: musicRoot)
        }
    }

    /// Queues the job `work`, which updates `what`; as `start(folder:…)`. `quiet`: observers hear only
    /// `database`, when songs changed (a periodic rescan that mostly finds nothing).
    func start(_ what: String, database: LibraryDatabase, playlists: URL, quiet: Bool = false,
               announce: @escaping @Sendable (HostChanges) -> Void, report: @escaping @Sendable (String) -> Void,
               work: @escaping @Sendable () throws -> ImportSummary) -> Int {
        let id = state.withLock { state in
            state.lastId = state.lastId % Int(Int32.max) + 1
            state.pending.append(state.lastId)
            return state.lastId
        }
        queue.async { [self] in
            if !quiet { announce([.update]) }
            var summary: ImportSummary?
            do {
                summary = try work()
            } catch {
                report("update of \(what) failed: \(CatalogueError.readable(error))")
            }
            // This job's change is announced below, not again by the watch.
            check(database, playlists: playlists, byOtherProcess: false)
            state.withLock { state in
                state.pending.removeAll { $0 == id }
                state.lastSummary = summary
            }
            let changed = summary.map { $0.added + $0.updated + $0.removed > 0 || $0.playlistsChanged } ?? false
            let changes: HostChanges = changed ? [.update, .database] : [.update]
            announce(quiet ? changes.subtracting(.update) : changes)
        }
        return id
    }

    /// Waits until every queued job has finished (tests, shutdown).
    package func wait() {
        queue.sync {}
    }

    /// Checks the catalogue's change numbers and the stored playlists folder now, and again whenever inotify
    /// says the database, its log or a playlist file was written: `changed` hears what moved (`database`,
    /// `stickers`, `storedPlaylists`), and whether another process moved it (an `xzmusic import`, a download,
    /// a playlist saved at another prompt) rather than this host's own job. Nothing wakes while nothing is
    /// written. Where inotify cannot watch, the check runs every `interval` instead. The first check only
    /// sets where things stand. Checks run between jobs, never during one.
    func watch(_ database: LibraryDatabase, playlists: URL, polling interval: DispatchTimeInterval,
               changed: @escaping @Sendable (_ changes: HostChanges, _ byOtherProcess: Bool) -> Void) {
        stopWatching()
        let generation = state.withLock { state in
            state.changed = changed
            state.generation += 1
            return state.generation
        }
        // Queued before any event's check, which then compares with it.
        queue.async { [self] in
            state.withLock { $0.seen = nil }
            check(database, playlists: playlists, byOtherProcess: true)
        }
        let file = URL(fileURLWithPath: database.path)
        let name = file.lastPathComponent
        // The library folder and its playlists folder below it; a write settles for 0.1 s (at most 0.5 s
        // while another process keeps writing), and the host's own writes are taken as seen meanwhile.
        let watch = FolderWatch(
            root: file.deletingLastPathComponent().path, depth: 1, timing: .init(quiet: 0.1, ceiling: 0.5), inPlaceWrites: true,
            relevant: { $0 == name || $0 == name + "-wal" || $0.hasSuffix(StoredPlaylists.suffix) },
            changed: { [weak self] _ in self?.checkSoon(database, playlists: playlists) },
            failed: { [weak self] _ in self?.poll(database, playlists: playlists, every: interval, generation: generation) })
        let current = state.withLock { state in
            guard state.generation == generation else { return false }
            state.folderWatch = watch
            return true
        }
        if !current { watch.stop() }
    }

    /// Queues one check, unless one is queued already.
    private func checkSoon(_ database: LibraryDatabase, playlists: URL) {
        let queued = state.withLock { state in
            defer { state.checkQueued = true }
            return state.checkQueued
        }
        guard !queued else { return }
        queue.async { [self] in
            state.withLock { $0.checkQueued = false }
            check(database, playlists: playlists, byOtherProcess: true)
        }
    }

    /// Where inotify cannot watch: a check every `interval`.
    private func poll(_ database: LibraryDatabase, playlists: URL, every interval: DispatchTimeInterval, generation: Int) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.check(database, playlists: playlists, byOtherProcess: true) }
        let current = state.withLock { state in
            guard state.generation == generation else { return false }
            state.timer = WatchTimer(source: timer)
            return true
        }
        if current { timer.resume() }
    }

    /// The host wrote stickers or a stored playlist itself and told its observers: the watch takes
    /// the new numbers as seen, so it does not tell them again.
    func takeAsSeen(_ database: LibraryDatabase, playlists: URL) {
        queue.sync { check(database, playlists: playlists, byOtherProcess: false, telling: false) }
    }

    /// Stops `watch`; a job or check under way is not waited for.
    func stopWatching() {
        let (watch, timer) = state.withLock { state in
            defer {
                state.folderWatch = nil
                state.timer = nil
                state.changed = nil
                state.generation += 1
            }
            return (state.folderWatch, state.timer)
        }
        timer?.source.cancel()
        watch?.stop()
    }

    /// On `queue`: tells the watcher what moved since it last looked.
    private func check(_ database: LibraryDatabase, playlists: URL, byOtherProcess: Bool, telling: Bool = true) {
        guard state.withLock({ $0.changed }) != nil,
              // Unreadable now, the numbers are asked again at the next check.
              let versions = try? database.changeVersions() else { return }
        var info = stat()
        let now = Seen(versions: versions, playlists: stat(playlists.path, &info) == 0 ? info.st_mtim : nil)
        let moved = state.withLock { state -> (changed: @Sendable (HostChanges, Bool) -> Void, changes: HostChanges)? in
            guard let changed = state.changed, now != state.seen else { return nil }
            defer { state.seen = now }
            guard let before = state.seen else { return (changed, []) }
            var changes: HostChanges = []
            if before.versions.catalogue != now.versions.catalogue { changes.insert(.database) }
            if before.versions.stickers != now.versions.stickers { changes.insert(.stickers) }
            if before.playlists?.tv_sec != now.playlists?.tv_sec || before.playlists?.tv_nsec != now.playlists?.tv_nsec {
                changes.insert(.storedPlaylists)
            }
            return (changed, changes)
        }
        if telling, let moved { moved.changed(moved.changes, byOtherProcess) }
    }
}
/// The poll's libdispatch timer. A dispatch source may be cancelled from any thread (libdispatch
/// synchronises its handles), so sharing this handle is safe.
private struct WatchTimer: @unchecked Sendable {
    let source: DispatchSourceTimer
}
