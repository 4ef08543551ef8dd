import Dispatch
import Foundation
import XZAudio
import XZLyrics
import XZSystem
import XZPlaybackValues

/// The one way into playback. Commands return at once: each runs the state machine under a lock
/// (so `snapshot()` reflects it immediately) and leaves the resulting effects in a mailbox that the
/// dedicated audio thread reads between chunks (every ~20 ms of audio, at most).
///
/// Events arrive in order on `events` (and on `onEvent`, called on the audio thread, if given). What a
/// command changed goes through the same mailbox as `.changed`, so it comes in order with the rest.
package final class Player: Sendable {
    /// Every event, in order, from the first time this is read (read it before `play` to miss nothing;
    /// until then nothing piles up). One stream, for a single consumer; it finishes after `shutdown()`.
    package var events: AsyncStream<PlayerEvent> { hub.stream() }

    private let hub: EventHub
    private let core: Monitor<PlayerCore>
    /// The audio thread, to tell a call made on it (from an onEvent handler): its `Thread` object lives as
    /// long as it runs, so no other thread can have this identity meanwhile.
    private let audioThread: ObjectIdentifier

    /// Plays into any output; the player owns it from now on and uses it from the audio thread only.
    /// `seed` fixes the shuffle order (tests); `onEvent` must not block, it runs on the audio thread (and
    /// for a command's `.changed`, on the caller's thread under the player's lock: it must not call the player then).
    /// `streams` gives the bytes of http(s) items; without it they fail with one line each.
    package init(output: AudioOutput, seed: UInt64? = nil, streams: StreamOpener? = nil,
                onEvent: (@Sendable (PlayerEvent) -> Void)? = nil) {
        let hub = EventHub(handler: onEvent)
        let core = Monitor(PlayerCore(machine: seed.map { PlayerStateMachine(seed: $0) } ?? PlayerStateMachine()))
        self.hub = hub
        self.core = core
        // A Foundation thread, not the cooperative pool: decoding and ao_play block. The engine is made on
        // it and never leaves it.
        let thread = Thread { PlaybackEngine(core: core, output: output, streams: streams, hub: hub).run() }
        thread.name = "xzmusic-audio"
        audioThread = ObjectIdentifier(thread)
        thread.start()
    }

    deinit { shutdown() }

    // MARK: Queue

    /// Replaces the queue and starts at `index`.
    package func play(_ items: [QueueItem], startingAt index: Int = 0) {
        command { $0.play(items, startingAt: index) }
    }

    /// Plays the queue item at `index`; false when there is none.
    /// `paused`: the item waits paused at its start.
    @discardableResult
    package func playItem(at index: Int, paused: Bool = false) -> Bool {
        transact(otherwise: false) { core in
            let effects = core.machine.playItem(at: index, paused: paused)
            return (effects != nil, effects ?? [])
        }
    }

    /// Appends without starting; `togglePause()` starts a stopped queue.
    package func add(_ items: [QueueItem]) {
        command { $0.add(items) }
    }

    /// False when there is no item at `index`. Removing the playing item skips to the next one.
    @discardableResult
    package func removeFromQueue(at index: Int) -> Bool {
        transact(otherwise: false) { core in
            let effects = core.machine.remove(at: index)
            return (effects != nil, effects ?? [])
        }
    }

    package func clearQueue() {
        command { $0.clear() }
    }

    /// Empties the queue and inserts `items` in one step, so no reader sees the queue in between; returns
    /// the new entries' ids, fewer than the items when they pass the queue's length.
    @discardableResult
    package func replaceQueue(with items: [QueueItem]) -> [Int] {
        transact(otherwise: []) { core in
            let effects = core.machine.clear()
            return (core.machine.insert(items, at: nil), effects)
        }
    }

    /// The most entries the queue holds (MPD's `max_playlist_length`); adds past it add what fits.
    package var maxQueueLength: Int {
        get { core.withLock { $0.machine.maxLength } }
        set { core.withLock { $0.machine.maxLength = newValue } }
    }

    /// Entries the queue has room for now.
    package var queueRoom: Int { core.withLock { $0.machine.room } }

    /// Inserts at `position` (the end when nil) without starting; returns the new entries' ids, fewer
    /// than the items when the queue is full.
    @discardableResult
    package func insert(_ items: [QueueItem], at position: Int?) -> [Int] {
        edit(otherwise: []) { $0.insert(items, at: position) }
    }

    /// False when `range` is empty or reaches past the queue.
    @discardableResult
    package func removeFromQueue(range: Range<Int>) -> Bool {
        transact(otherwise: false) { core in
            let effects = core.machine.remove(range: range)
            return (effects != nil, effects ?? [])
        }
    }

    @discardableResult
    package func move(range: Range<Int>, to position: Int) -> Bool {
        edit(otherwise: false) { $0.move(range: range, to: position) }
    }

    @discardableResult
    package func shuffleQueue(range: Range<Int>) -> Bool {
        edit(otherwise: false) { $0.shuffleQueue(range: range) }
    }

    @discardableResult
    package func swap(_ first: Int, _ second: Int) -> Bool {
        edit(otherwise: false) { $0.swap(first, second) }
    }

    @discardableResult
    package func setPriority(_ priority: Int, at indices: [Int]) -> Bool {
        edit(otherwise: false) { $0.setPriority(priority, at: indices) }
    }

    /// Sets the part of the queue entry `id` that plays (nil: all of it).
    package func setRange(_ range: PlayRange?, id: Int) -> PlayRange.Edit {
        edit(otherwise: .noSuchEntry) { $0.setRange(range, id: id) }
    }

    package func setRepeats(_ on: Bool) {
        edit(otherwise: ()) { $0.setRepeats(on) }
    }

    package func setSingle(_ mode: SingleMode) {
        edit(otherwise: ()) { $0.setSingle(mode) }
    }

    package func setConsume(_ on: Bool) {
        edit(otherwise: ()) { $0.setConsume(on) }
    }

    /// Sets MPD's `repeat` and `single` at once, as the prompt's word says.
    package func setRepeat(_ mode: RepeatMode) {
        edit(otherwise: ()) { $0.setRepeat(mode) }
    }

    package func setShuffle(_ on: Bool) {
        edit(otherwise: ()) { $0.setShuffle(on) }
    }

    /// Forgets the last track error (MPD's `clearerror`).
    package func clearError() {
        core.withLock { $0.lastError = nil }
    }

    // MARK: Transport

    package func next() {
        command { $0.next() }
    }

    /// The previous song in play order, wherever the track is (MPD's `previous`).
    package func previous() {
        command { $0.previous() }
    }

    /// playing <-> paused; a stopped queue starts again.
    package func togglePause() {
        command { $0.togglePause() }
    }

    package func pause() {
        command { $0.state == .playing ? $0.togglePause() : [] }
    }

    package func resume() {
        command { $0.state == .paused ? $0.togglePause() : [] }
    }

    package func stop() {
        command { $0.stop() }
    }

    /// Ignored when nothing is loaded. The result comes as `.seeked` (or a `.notice` when impossible).
    package func seek(_ target: SeekTarget) {
        requestSeek(target)
    }

    /// A seek handed to the audio thread, to wait for (`waitForSeek`).
    package struct SeekTicket: Sendable {
        fileprivate let number: Int
    }

    /// As `seek`; nil when it was ignored. A relative seek counts from where the audio thread is when it
    /// carries the seek out, after every command before it.
    @discardableResult
    package func requestSeek(_ target: SeekTarget) -> SeekTicket? {
        let ticket = core.withLock { core -> SeekTicket? in
            guard !core.shutdownRequested, core.machine.isActive else { return nil }
            core.mailbox.append(.seek(target))
            // As MPD's player, which clears it on every seek as on every play.
            core.lastError = nil
            core.seeksAsked += 1
            return SeekTicket(number: core.seeksAsked)
        }
        if ticket != nil { core.wake() }
        return ticket
    }

    /// Returns once the audio thread has carried out (or given up) the seek of `ticket` and every one
    /// before it, or has stopped, or after `patience` seconds.
    package func waitForSeek(_ ticket: SeekTicket, patience: TimeInterval) {
        _ = core.wait(until: .now() + patience) { core in
            core.seeksDone >= ticket.number || core.shutdownRequested || core.engineExited ? true : nil
        }
    }

    /// Shifts the playing track's lyrics (positive = sooner) at once; the line for the current
    /// position is sent again, as after a seek. Later plays take the item's own adjustment.
    package func setLyricsAdjustment(_ ms: Int) {
        send(.lyricsAdjustment(ms))
    }

    /// Seconds of a stream's audio that must have arrived before it starts, or goes on after buffering.
    package var prebufferSeconds: Double {
        get { core.withLock { $0.prebufferSeconds } }
        set { core.withLock { $0.prebufferSeconds = min(max(newValue, 0), 60) } }
    }

    /// 0...100 (clamped), linear software scaling; applies from the next chunk, the output is not reopened.
    package func setVolume(_ percent: Int) {
        edit(otherwise: ()) { $0.setVolume(percent) }
    }

    /// Moves the volume by `step` points in one step under the player's lock, so steps from many clients all count.
    package func changeVolume(by step: Int) {
        edit(otherwise: ()) { $0.setVolume($0.volume + step) }
    }

    /// Applies from the next track that starts, as in MPD.
    package var replayGain: ReplayGainSettings {
        get { core.withLock { $0.machine.replayGain } }
        set { edit(otherwise: ()) { $0.setReplayGain(newValue) } }
    }

    /// Crossfade and MixRamp, from the next song's end on (a fade under way goes on).
    package var crossfade: CrossfadeSettings {
        get { core.withLock { $0.machine.crossfade } }
        set { edit(otherwise: ()) { $0.setCrossfade(newValue) } }
    }

    /// Changes some of the crossfade settings in one step, so changes of different ones never undo each other.
    package func updateCrossfade(_ change: (inout CrossfadeSettings) -> Void) {
        edit(otherwise: ()) { machine in
            var settings = machine.crossfade
            change(&settings)
            machine.setCrossfade(settings)
        }
    }

    // MARK: State

    /// The whole state in one read under the lock; the queue's storage is shared, not copied.
    package func snapshot() -> PlayerSnapshot {
        core.withLock { core in
            let live = core.engineFiguresAreCurrent
            return PlayerSnapshot(
                state: core.machine.state, isBuffering: core.machine.isBuffering, currentIndex: core.machine.currentIndex,
                positionMs: live ? core.status.positionMs(nowNs: DispatchTime.now().uptimeNanoseconds) : 0,
                durationMs: live ? core.status.durationMs : core.machine.currentIndex.flatMap { core.machine.entries[$0].item.durationMs },
                entries: core.machine.entries, volume: core.machine.volume, shuffle: core.machine.shuffle,
                repeats: core.machine.repeats, single: core.machine.single, consume: core.machine.consume,
                replayGainMode: core.machine.replayGain.mode, queueVersion: core.machine.version,
                nextIndex: core.machine.nextIndex,
                lyricLineIndex: live ? core.status.lyricLineIndex : nil, lyricText: live ? core.status.lyricText : nil,
                failedTracks: core.failedTracks, lastError: core.lastError, audioFormat: live ? core.status.audioFormat : nil,
                crossfade: core.machine.crossfade)
        }
    }

    /// Tracks that ended with `.error` so far (a one-shot CLI's exit status).
    package var failedTrackCount: Int {
        core.withLock { $0.failedTracks }
    }

    /// Blocks until nothing is playing or paused and the audio thread has caught up with every command
    /// (queue finished, stopped, or shut down). Returns false when `timeout` passed first.
    @discardableResult
    package func waitUntilFinished(timeout: TimeInterval? = nil) -> Bool {
        let deadline = timeout.map { DispatchTime.now() + $0 }
        return core.wait(until: deadline) { $0.isFinished ? true : nil } ?? false
    }

    /// `waitUntilFinished()` for async callers, waiting on a plain thread so the cooperative pool is not blocked.
    package func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiter = Thread { [self] in
                waitUntilFinished()
                continuation.resume()
            }
            waiter.start()
        }
    }

    /// Stops playback (`.ended(.shutdown)` for a loaded track, unless a stop or skip asked for earlier names
    /// the ending), closes the output, ends the thread and finishes `events`. Further commands are ignored.
    /// Called by deinit.
    package func shutdown() {
        core.change { $0.shutdownRequested = true }
        // From the audio thread itself (an onEvent handler) waiting would never end.
        guard ObjectIdentifier(Thread.current) != audioThread else { return }
        _ = core.wait { $0.engineExited ? true : nil }
    }

    /// A transition of the state machine alone; `fallback` after shutdown.
    private func edit<Result: Sendable>(otherwise fallback: Result,
                                        _ body: (inout PlayerStateMachine) -> Result) -> Result {
        transact(otherwise: fallback) { (body(&$0.machine), []) }
    }

    /// A transition whose effects the audio thread carries out.
    private func command(_ transition: (inout PlayerStateMachine) -> [PlayerStateMachine.Effect]) {
        transact(otherwise: ()) { ((), transition(&$0.machine)) }
    }

    /// Runs a transition under the lock and hands what it changed and its effects to the audio thread.
    @discardableResult
    private func transact<Result: Sendable>(
        otherwise fallback: Result, _ transition: (inout PlayerCore) -> (Result, [PlayerStateMachine.Effect])
    ) -> Result {
        let (result, queued) = core.withLock { core -> (Result, Bool) in
            guard !core.shutdownRequested else { return (fallback, false) }
            let (result, effects) = transition(&core)
            let changes = core.machine.takeChanges()
            core.forgetErrorOnStart(effects)
            core.mailbox += effects.map(EngineCommand.effect)
            // Said on the caller's thread before it returns, not by the audio thread later: a client that
            // made a change and then waits in `idle` must not hear its own change afterwards, as in MPD.
            // Said under the lock: the audio thread, which may be running, takes its effects only after
            // it, so their events (a short song's end) come after the change.
            if !changes.isEmpty { hub.emit(.changed(changes)) }
            return (result, !effects.isEmpty)
        }
        if queued { core.wake() }
        return result
    }

    /// A command for the loaded track; ignored when there is none.
    private func send(_ command: EngineCommand) {
        let queued = core.withLock { core -> Bool in
            guard !core.shutdownRequested, core.machine.isActive else { return false }
            core.mailbox.append(command)
            return true
        }
        if queued { core.wake() }
    }
}

enum EngineCommand: Sendable {
    case effect(PlayerStateMachine.Effect)
    case seek(SeekTarget)
    case lyricsAdjustment(Int)
    /// Sent on as `.changed`, in order with the events of the effects that follow it.
    case changed(PlayerChanges)

    /// The changes of a report to pass on (which asks nothing of the loaded track); nil for a command.
    var report: PlayerChanges? {
        if case .changed(let changes) = self { return changes }
        return nil
    }
}

/// What the audio thread last reported, for snapshots.
struct EngineStatus: Sendable {
    var generation = 0
    var positionMs = 0
    var positionClock: PositionClock?
    var durationMs: Int?
    var lyricLineIndex: Int?
    var lyricText: String?
    var audioFormat: AudioFormatSummary?

    /// The heard position now: `positionMs`, run on by the paced clock when there is one.
    func positionMs(nowNs: UInt64) -> Int {
        guard let clock = positionClock, nowNs > clock.sinceNs else { return positionMs }
        let run = Int(clamping: (nowNs - clock.sinceNs) / 1_000_000)
        return max(positionMs, min(clock.untilMs, positionMs.addingReportingOverflow(run).partialValue))
    }
}

/// A paced output's position between the audio thread's updates: it runs on with the wall clock from
/// the last update (`sinceNs`), never past what the output has taken (`untilMs`).
struct PositionClock: Sendable {
    var sinceNs: UInt64
    var untilMs: Int
}

/// State shared by the command side and the audio thread, behind the player's monitor.
struct PlayerCore: Sendable {
    var machine: PlayerStateMachine
    var mailbox: [EngineCommand] = []
    var prebufferSeconds = 1.0
    var status = EngineStatus()
    var failedTracks = 0
    var lastError: String?
    /// The audio thread is waiting with nothing to do (or has not started yet).
    var engineIdle = true
    var shutdownRequested = false
    var engineExited = false
    /// Counts arrivals of stream bytes, so the audio thread never sleeps through one that came while it looked.
    var arrivals = 0
    /// Seeks handed to the audio thread, and those it has carried out (or given up), for `waitForSeek`.
    var seeksAsked = 0
    var seeksDone = 0

    /// The engine's figures (position, duration, format) belong to the current track only once it has loaded it.
    var engineFiguresAreCurrent: Bool { machine.isActive && status.generation == machine.generation }

    var isFinished: Bool {
        engineExited || (!machine.isActive && mailbox.isEmpty && engineIdle)
    }

    /// A song starting clears the last error, as MPD's player clears it whenever it is told to play.
    mutating func forgetErrorOnStart(_ effects: [PlayerStateMachine.Effect]) {
        guard lastError != nil, effects.contains(where: { if case .start = $0 { true } else { false } }) else { return }
        lastError = nil
    }

    /// Queues what the transition just made changed, then its effects; true when anything was queued.
    mutating func enqueue(_ effects: [PlayerStateMachine.Effect]) -> Bool {
        forgetErrorOnStart(effects)
        let changes = machine.takeChanges()
        if !changes.isEmpty { mailbox.append(.changed(changes)) }
        mailbox += effects.map(EngineCommand.effect)
        return !changes.isEmpty || !effects.isEmpty
    }
}

/// Passes events to the handler and, once it has been asked for, to the stream.
final class EventHub: Sendable {
    private struct Streams: Sendable {
        var made: AsyncStream<PlayerEvent>?
        var continuation: AsyncStream<PlayerEvent>.Continuation?
        var finished = false
    }

    private let streams = Mutex(Streams())
    private let handler: (@Sendable (PlayerEvent) -> Void)?

    init(handler: (@Sendable (PlayerEvent) -> Void)?) {
        self.handler = handler
    }

    func stream() -> AsyncStream<PlayerEvent> {
        streams.withLock { streams in
            if let made = streams.made { return made }
            let (stream, continuation) = AsyncStream<PlayerEvent>.makeStream(bufferingPolicy: .unbounded)
            if streams.finished { continuation.finish() } else { streams.continuation = continuation }
            streams.made = stream
            return stream
        }
    }

    func emit(_ event: PlayerEvent) {
        streams.withLock { $0.continuation }?.yield(event)
        handler?(event)
    }

    func finish() {
        let continuation = streams.withLock { streams in
            streams.finished = true
            defer { streams.continuation = nil }
            return streams.continuation
        }
        continuation?.finish()
    }
}
