import AsyncHTTPClient
import Foundation
import XZAudio
import XZCatalogue
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The download queue of one library: tasks live in the database, at most `concurrency` of them
/// transfer at once, and a task interrupted by a dead process resumes from its `.part`.
///
/// Call `shutdown()` when done: it stops running tasks (they resume next time) and closes the
/// HTTP client if the manager owns it.
package actor DownloadManager {
    /// Who closes the HTTP client.
    package enum ClientOwnership: Sendable {
        /// The manager makes one from the settings and shuts it down in `shutdown()`.
        case owned
        /// The caller's client; it stays open. Redirects and timeouts follow its configuration.
        case shared(HTTPClient)
    }

    /// Progress (throttled), finished and failed events, for one consumer. Finishes on `shutdown()`.
    package nonisolated let events: AsyncStream<DownloadEvent>
    private let continuation: AsyncStream<DownloadEvent>.Continuation
    private let env: JobEnvironment
    private let settings: DownloadSettings
    private let client: OnDemandHTTPClient
    private let ownsClient: Bool
    nonisolated let pid = Int64(getpid())
    /// `.part` files being read as they fill, by song key; shared with the jobs.
    nonisolated let streams = StreamRegistry()
    /// For transfers that are no task (streams that are not kept); same client and rules.
    nonisolated var fetcher: Fetcher { env.fetcher }
    nonisolated var environment: JobEnvironment { env }

    private struct Worker {
        let task: Task<Void, Never>
        let live: LiveProgress
        let songKey: String
    }
    private var workers: [Int64: Worker] = [:]
    /// The state a running task takes once its worker has stopped (paused, cancelled, or queued on shutdown).
    private var stopping: [Int64: DownloadState] = [:]
    private var processing = false
    private var isShutDown = false
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    package init(database: LibraryDatabase, library: LibraryFolder, settings: DownloadSettings = DownloadSettings(),
                client ownership: ClientOwnership = .owned) {
        switch ownership {
        case .owned:
            // Made at the first transfer: most managers never make one.
            client = OnDemandHTTPClient(making: settings)
            ownsClient = true
        case .shared(let shared):
            client = OnDemandHTTPClient(shared)
            ownsClient = false
        }
        self.settings = settings
        env = JobEnvironment(fetcher: Fetcher(clients: client, settings: settings), store: DownloadStore(database: database),
                             library: library, streams: streams)
        (events, continuation) = AsyncStream.makeStream(of: DownloadEvent.self, bufferingPolicy: .bufferingNewest(1000))
    }

    deinit {
        // A forgotten shutdown() must not leak the client's threads (or trip its debug check).
        if ownsClient, !isShutDown { client.shutdownWithoutWaiting() }
    }

    // MARK: Queue

    /// Queues audio for songs not yet offline and lyrics for songs without them. A song that is
    /// offline with lyrics, or whose task is running, is skipped; one with no audio URL is reported.
    @discardableResult
    package func enqueue(songs: [Song]) throws -> EnqueueResult {
        var result = EnqueueResult()
        for song in songs {
            if !song.isLocal && song.audioURL.isEmpty {
                result.noSource.append(song.songKey)
                continue
            }
            var queued = false
            if !song.isLocal, let id = try env.store.queue(songKey: song.songKey, kind: .audio, url: song.audioURL) {
                result.queued.append(id)
                queued = true
            }
            if song.lyricsPath.isEmpty, let id = try env.store.queue(songKey: song.songKey, kind: .lyrics, url: song.lyricsURL) {
                result.queued.append(id)
                queued = true
            }
            if !queued { result.skipped.append(song.songKey) }
        }
        pump()
        return result
    }

    /// Queued tasks wait; running ones stop and keep their `.part`. Returns how many were paused.
    @discardableResult
    package func pause(_ target: DownloadTarget) throws -> Int {
        var count = try env.store.transition(target, from: [.queued], to: .paused).count
        count += try env.store.transition(target, from: [.running], to: .paused, only: orphans()).count
        count += stopWorkers(target, becoming: .paused)
        return count
    }

    /// Paused and failed tasks are queued again (a failed one resumes from its `.part`); for `.all`,
    /// so are tasks a dead process left running.
    @discardableResult
    package func resume(_ target: DownloadTarget) throws -> Int {
        let ids = try env.store.transition(target, from: [.paused, .failed], to: .queued)
        var count = ids.count
        // A task paused a moment ago may still be stopping: it goes back to the queue once its worker has let go.
        for (id, state) in stopping where state == .paused && (target == .all || target == .task(id)) {
            stopping[id] = .queued
            count += 1
        }
        if target == .all { count += try env.store.transition(.all, from: [.running], to: .queued, only: orphans()).count }
        // Lyrics that failed for want of their song get another go with it.
        for id in ids { try requeueLyrics(ofAudio: id) }
        pump()
        return count
    }

    /// Stops tasks for good and deletes their `.part`; cancelling audio also cancels the song's lyrics.
    @discardableResult
    package func cancel(_ target: DownloadTarget) throws -> Int {
        var ids = try env.store.transition(target, from: [.queued, .paused, .failed], to: .cancelled)
        ids += try env.store.transition(target, from: [.running], to: .cancelled, only: orphans())
        for id in ids { try removePart(id) }
        let count = ids.count + stopWorkers(target, becoming: .cancelled)
        for id in ids { try cancelLyrics(ofAudio: id) }
        pump()
        return count
    }

    /// Re-queues tasks left `running` by a process that is gone; returns how many.
    @discardableResult
    package func resumeInterrupted() throws -> Int {
        let count = try env.store.transition(.all, from: [.running], to: .queued, only: orphans()).count
        pump()
        return count
    }

    /// Forgets done and cancelled tasks; returns how many.
    @discardableResult
    package func removeFinished() throws -> Int { try env.store.removeFinished() }

    /// Every task, oldest first, with live rate and ETA for those running here. A task left running
    /// by a process that is gone is listed (and kept) as queued: the next run picks it up.
    package func tasks() throws -> [DownloadTaskInfo] {
        _ = try env.store.transition(.all, from: [.running], to: .queued, only: orphans())
        return try env.store.all().map { record in
            var info = record.info
            if let worker = workers[record.id] { Self.apply(worker.live.snapshot(), to: &info) }
            return info
        }
    }

    // MARK: Processing

    /// Starts working through the queue in the background; returns at once.
    package func run() {
        processing = true
        pump()
    }

    /// Processes the queue and returns when nothing is running and nothing queued can start
    /// (lyrics whose song's audio is paused wait, for instance).
    package func waitUntilIdle() async {
        run()
        if workers.isEmpty { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    /// Stops running tasks (they stay queued and resume from their `.part` next time), ends the
    /// event stream and closes an owned HTTP client.
    package func shutdown() async {
        guard !isShutDown else { return }
        processing = false
        isShutDown = true
        let running = workers
        for (id, worker) in running {
            stopping[id] = .queued
            worker.task.cancel()
        }
        for worker in running.values { await worker.task.value }
        wakeIdleWaiters()
        continuation.finish()
        // Every request has ended above; a client that fails to close has nothing left to lose.
        if ownsClient { await client.shutdown() }
    }

    private func pump() {
        guard processing, !isShutDown else { return }
        while workers.count < settings.concurrency {
            let claimed: TaskRecord?
            do {
                claimed = try env.store.claimNext(pid: Int32(pid))
            } catch {
                break
            }
            guard let record = claimed else { break }
            start(record)
        }
        if workers.isEmpty { wakeIdleWaiters() }
    }

    /// Runs a task claimed a moment ago at once, ahead of the queue and beyond the concurrency limit: a song
    /// is to play from it. After shutdown the task goes back to the queue and `growing` fails.
    func startNow(_ record: TaskRecord, growing: GrowingFile) {
        guard workers[record.id] == nil else { return }
        guard !isShutDown else {
            // A task left claimed is taken back when its pid is gone; the player hears the failure below.
            try? env.store.finish(id: record.id, state: .queued)
            return growing.fail("the downloader has stopped")
        }
        start(record)
    }

    /// Waits for the running downloads that a player read and that have every byte (only their checks and
    /// the move into the library are left); for a program about to leave, so a song that just played whole
    /// is offline.
    package func finishWholeStreams() async {
        let whole = workers.values.filter { worker in
            guard streams.isPlayed(worker.songKey), let file = streams.existing(worker.songKey), let size = file.size else {
                return false
            }
            return file.heldRanges.heldBytes == size
        }
        for worker in whole { await worker.task.value }
    }

    private func start(_ record: TaskRecord) {
        let continuation = self.continuation
        let store = env.store
        let base = record.info
        let live = LiveProgress(interval: settings.progressInterval) { snapshot in
            var info = base
            info.state = .running
            Self.apply(snapshot, to: &info)
            continuation.yield(.progress(info))
            // Progress is saved again at the next report and at the end; a resume reads the `.part` itself.
            try? store.saveProgress(id: info.id, bytesDone: snapshot.done, bytesTotal: snapshot.total)
        }
        let env = self.env
        let task = Task {
            let outcome: Result<JobOutcome, Error>
            do {
                switch record.kind {
                case .audio: outcome = .success(try await AudioJob.run(record, env: env, live: live))
                case .lyrics: outcome = .success(try await LyricsJob.run(record, env: env, live: live))
                }
            } catch {
                outcome = .failure(error)
            }
            self.finished(record, outcome: outcome, live: live)
        }
        workers[record.id] = Worker(task: task, live: live, songKey: record.songKey)
    }

    private func finished(_ record: TaskRecord, outcome: Result<JobOutcome, Error>, live: LiveProgress) {
        workers[record.id] = nil
        let stop = stopping.removeValue(forKey: record.id)
        var info = record.info
        Self.apply(live.snapshot(), to: &info)
        info.bytesPerSecond = nil
        info.etaSeconds = nil
        do {
            switch outcome {
            case .success(let result):
                // Even a task paused or cancelled at its last moment is done: the file is in place.
                try env.store.finish(id: record.id, state: .done, note: result.note, path: result.path, bytes: result.bytes)
                info.state = .done
                info.note = result.note.isEmpty ? nil : result.note
                info.path = result.path.isEmpty ? nil : result.path
                if let bytes = result.bytes {
                    info.bytesDone = bytes
                    info.bytesTotal = bytes
                }
                continuation.yield(.finished(info))
            case .failure(let error):
                if let stop {
                    try env.store.finish(id: record.id, state: stop)
                    if stop == .cancelled {
                        try removePart(record.id)
                        try cancelLyrics(ofAudio: record.id)
                    }
                } else {
                    let message = (error as? DownloadError)?.description ?? "\(error)"
                    try env.store.finish(id: record.id, state: .failed, error: message)
                    info.state = .failed
                    info.lastError = message
                    continuation.yield(.failed(info))
                }
            }
        } catch {
            info.state = .failed
            info.lastError = "\(error)"
            continuation.yield(.failed(info))
        }
        pump()
    }

    // MARK: Helpers

    private func stopWorkers(_ target: DownloadTarget, becoming state: DownloadState) -> Int {
        var count = 0
        for (id, worker) in workers where target == .all || target == .task(id) {
            // A cancel already under way is not turned into a pause: its .part is going.
            if stopping[id] == .cancelled { continue }
            stopping[id] = state
            worker.task.cancel()
            count += 1
        }
        return count
    }

    /// Running rows no live worker owns: ours from before a restart, or a dead process's.
    private func orphans() throws -> Set<Int64> {
        Set(try env.store.runningOwners().filter { row in
            guard workers[row.id] == nil else { return false }
            guard let owner = row.pid, owner != pid else { return true }
            return !Self.processIsAlive(owner)
        }.map(\.id))
    }

    static func processIsAlive(_ pid: Int64) -> Bool {
        guard pid > 0, pid <= Int64(Int32.max) else { return false }
        return kill(pid_t(pid), 0) == 0 || errno == EPERM
    }

    private func removePart(_ id: Int64) throws {
        guard let record = try env.store.task(id) else { return }
        unlink(try env.partPath(for: record))
        try env.store.saveProgress(id: id, bytesDone: 0, bytesTotal: nil)
    }

    private func cancelLyrics(ofAudio id: Int64) throws {
        guard let record = try env.store.task(id), record.kind == .audio,
              let lyrics = try env.store.taskId(songKey: record.songKey, kind: .lyrics) else { return }
        _ = try env.store.transition(.task(lyrics), from: [.queued, .paused], to: .cancelled)
    }

    private func requeueLyrics(ofAudio id: Int64) throws {
        guard let record = try env.store.task(id), record.kind == .audio,
              let lyrics = try env.store.taskId(songKey: record.songKey, kind: .lyrics) else { return }
        _ = try env.store.transition(.task(lyrics), from: [.failed], to: .queued)
    }

    private func wakeIdleWaiters() {
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    private static func apply(_ snapshot: ProgressSnapshot, to info: inout DownloadTaskInfo) {
        info.bytesDone = snapshot.done
        info.bytesTotal = snapshot.total ?? info.bytesTotal
        info.bytesPerSecond = snapshot.rate
        info.etaSeconds = snapshot.eta
    }
}
