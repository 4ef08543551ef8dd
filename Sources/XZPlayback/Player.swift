import Foundation
import XZAudio
import XZLyrics

/// The one way into playback. Commands return at once: each runs the state machine under a lock
/// (so `snapshot()` reflects it immediately) and leaves the resulting effects in a mailbox that the
/// dedicated audio thread reads between chunks (every ~20 ms of audio, at most).
///
/// Events arrive in order on `events` (and on `onEvent`, called on the audio thread, if given).
public final class Player: @unchecked Sendable {
    /// Every event, in order, from the first time this is read (read it before `play` to miss nothing;
    /// until then nothing piles up). One stream, for a single consumer; it finishes after `shutdown()`.
    public var events: AsyncStream<PlayerEvent> { hub.stream() }

    private let hub: EventHub
    private let core: PlayerCore
    private let engine: PlaybackEngine
    private let thread: Thread

    /// `realtime` paces file outputs to real time as a sound card would (null is always paced).
    /// `seed` fixes the shuffle order (tests); `onEvent` must not block, it runs on the audio thread.
    /// `streams` gives the bytes of http(s) items; without it they fail with one line each.
    public convenience init(output spec: OutputSpec = .systemDefault, realtime: Bool = false, seed: UInt64? = nil,
                            streams: StreamOpener? = nil, onEvent: (@Sendable (PlayerEvent) -> Void)? = nil) {
        self.init(output: makeAudioOutput(spec, realtime: realtime), seed: seed, streams: streams, onEvent: onEvent)
    }

    /// Plays into any output; the player owns it from now on and uses it from the audio thread only.
    public init(output: AudioOutput, seed: UInt64? = nil, streams: StreamOpener? = nil,
                onEvent: (@Sendable (PlayerEvent) -> Void)? = nil) {
        let hub = EventHub(handler: onEvent)
        self.hub = hub
        core = PlayerCore(machine: seed.map { PlayerStateMachine(seed: $0) } ?? PlayerStateMachine())
        engine = PlaybackEngine(core: core, output: output, streams: streams, emit: hub.emit, finish: hub.finish)
        let engine = self.engine
        // A Foundation thread, not the cooperative pool: decoding and ao_play block.
        thread = Thread { engine.run() }
        thread.name = "xzmusic-audio"
        thread.start()
    }

    deinit { shutdown() }

    // MARK: Queue

    /// Replaces the queue and starts at `index`.
    public func play(_ items: [QueueItem], startingAt index: Int = 0) {
        command { $0.play(items, startingAt: index) }
    }

    /// Plays the queue item at `index`; false when there is none.
    @discardableResult
    public func playItem(at index: Int) -> Bool {
        var found = false
        command { machine in
            let effects = machine.playItem(at: index)
            found = effects != nil
            return effects ?? []
        }
        return found
    }

    /// Appends without starting; `togglePause()` starts a stopped queue.
    public func add(_ items: [QueueItem]) {
        command { $0.add(items) }
    }

    /// False when there is no item at `index`. Removing the playing item skips to the next one.
    @discardableResult
    public func removeFromQueue(at index: Int) -> Bool {
        var found = false
        command { machine in
            let effects = machine.remove(at: index)
            found = effects != nil
            return effects ?? []
        }
        return found
    }

    public func clearQueue() {
        command { $0.clear() }
    }

    /// Inserts at `position` (the end when nil) without starting; returns the new entries' ids.
    @discardableResult
    public func insert(_ items: [QueueItem], at position: Int?) -> [Int] {
        edit(otherwise: []) { $0.insert(items, at: position) }
    }

    /// False when `range` is empty or reaches past the queue.
    @discardableResult
    public func removeFromQueue(range: Range<Int>) -> Bool {
        var found = false
        command { machine in
            let effects = machine.remove(range: range)
            found = effects != nil
            return effects ?? []
        }
        return found
    }

    @discardableResult
    public func move(range: Range<Int>, to position: Int) -> Bool {
        edit(otherwise: false) { $0.move(range: range, to: position) }
    }

    @discardableResult
    public func shuffleQueue(range: Range<Int>) -> Bool {
        edit(otherwise: false) { $0.shuffleQueue(range: range) }
    }

    @discardableResult
    public func swap(_ first: Int, _ second: Int) -> Bool {
        edit(otherwise: false) { $0.swap(first, second) }
    }

    @discardableResult
    public func setPriority(_ priority: Int, at indices: [Int]) -> Bool {
        edit(otherwise: false) { $0.setPriority(priority, at: indices) }
    }

    public func setRepeats(_ on: Bool) {
        edit(otherwise: ()) { $0.setRepeats(on) }
    }

    public func setSingle(_ mode: SingleMode) {
        edit(otherwise: ()) { $0.setSingle(mode) }
    }

    public func setConsume(_ on: Bool) {
        edit(otherwise: ()) { $0.setConsume(on) }
    }

    /// Forgets the last track error (MPD's `clearerror`).
    public func clearError() {
        core.condition.lock()
        core.lastError = nil
        core.condition.unlock()
    }

    // MARK: Transport

    public func next() {
        command { $0.next() }
    }

    /// Restarts the track when more than 3 s in, else goes to the previous one.
    public func previous() {
        core.condition.lock()
        let positionMs = core.positionMs()  // read before the machine is borrowed for the transition
        core.condition.unlock()
        command { $0.previous(positionMs: positionMs) }
    }

    /// playing <-> paused; a stopped queue starts again.
    public func togglePause() {
        command { $0.togglePause() }
    }

    public func pause() {
        command { $0.state == .playing ? $0.togglePause() : [] }
    }

    public func resume() {
        command { $0.state == .paused ? $0.togglePause() : [] }
    }

    public func stop() {
        command { $0.stop() }
    }

    /// Ignored when nothing is loaded. The result comes as `.seeked` (or a `.notice` when impossible).
    public func seek(_ target: SeekTarget) {
        core.condition.lock()
        defer { core.condition.unlock() }
        guard !core.shutdownRequested, core.machine.isActive else { return }
        core.mailbox.append(.seek(target))
        core.condition.broadcast()
    }

    /// Shifts the playing track's lyrics (positive = sooner) at once; the line for the current
    /// position is sent again, as after a seek. Later plays take the item's own adjustment.
    public func setLyricsAdjustment(_ ms: Int) {
        core.condition.lock()
        defer { core.condition.unlock() }
        guard !core.shutdownRequested, core.machine.isActive else { return }
        core.mailbox.append(.lyricsAdjustment(ms))
        core.condition.broadcast()
    }

    /// Seconds of a stream's audio that must have arrived before it starts, or goes on after buffering.
    public var prebufferSeconds: Double {
        get { core.condition.withLock { core.prebufferSeconds } }
        set { core.condition.withLock { core.prebufferSeconds = min(max(newValue, 0), 60) } }
    }

    /// 0...100 (clamped), linear software scaling; applies from the next chunk, the output is not reopened.
    public func setVolume(_ percent: Int) {
        core.condition.lock()
        core.volume = min(max(percent, 0), 100)
        core.condition.unlock()
    }

    /// Applies from the next track that starts, as in MPD.
    public var replayGain: ReplayGainSettings {
        get { core.condition.withLock { core.replayGain } }
        set { core.condition.withLock { core.replayGain = newValue } }
    }

    public func setRepeat(_ mode: RepeatMode) {
        command { machine in
            machine.setRepeat(mode)
            return []
        }
    }

    public func setShuffle(_ on: Bool) {
        command { machine in
            machine.setShuffle(on)
            return []
        }
    }

    // MARK: State

    public func snapshot() -> PlayerSnapshot {
        core.condition.lock()
        defer { core.condition.unlock() }
        let machine = core.machine
        let status = core.status
        let live = core.engineFiguresAreCurrent
        return PlayerSnapshot(
            state: machine.state, isBuffering: machine.isBuffering, currentIndex: machine.currentIndex, current: machine.current,
            positionMs: live ? status.positionMs : 0,
            durationMs: live ? status.durationMs : machine.current?.durationMs,
            entries: machine.entries, volume: core.volume, repeatMode: machine.repeatMode, shuffle: machine.shuffle,
            repeats: machine.repeats, single: machine.single, consume: machine.consume, queueVersion: machine.version,
            nextIndex: machine.nextIndex,
            lyricLineIndex: live ? status.lyricLineIndex : nil, lyricText: live ? status.lyricText : nil,
            failedTracks: core.failedTracks, lastError: core.lastError, audioFormat: live ? status.audioFormat : nil)
    }

    /// The state without the queue, read under the lock without copying the state machine.
    public func status() -> PlayerStatus {
        core.condition.lock()
        defer { core.condition.unlock() }
        return core.machine.status(live: core.engineFiguresAreCurrent, positionMs: core.status.positionMs,
                                   durationMs: core.status.durationMs, audioFormat: core.status.audioFormat,
                                   volume: core.volume, lastError: core.lastError, replayGainMode: core.replayGain.mode)
    }

    /// Tracks that ended with `.error` so far (a one-shot CLI's exit status).
    public var failedTrackCount: Int {
        core.condition.lock()
        defer { core.condition.unlock() }
        return core.failedTracks
    }

    /// Blocks until nothing is playing or paused and the audio thread has caught up with every command
    /// (queue finished, stopped, or shut down). Returns false when `timeout` passed first.
    @discardableResult
    public func waitUntilFinished(timeout: TimeInterval? = nil) -> Bool {
        let deadline = timeout.map { Date(timeIntervalSinceNow: $0) }
        core.condition.lock()
        defer { core.condition.unlock() }
        while !core.isFinished {
            if let deadline {
                if !core.condition.wait(until: deadline) { return core.isFinished }
            } else {
                core.condition.wait()
            }
        }
        return true
    }

    /// `waitUntilFinished()` for async callers, waiting on a plain thread so the cooperative pool is not blocked.
    public func finished() async {
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
    public func shutdown() {
        core.condition.lock()
        defer { core.condition.unlock() }
        if !core.shutdownRequested {
            core.shutdownRequested = true
            core.condition.broadcast()
        }
        // From the audio thread itself (an onEvent handler) waiting would never end.
        guard Thread.current !== thread else { return }
        while !core.engineExited { core.condition.wait() }
    }

    /// A change of the queue or options that the audio thread need not act on; `fallback` after shutdown.
    private func edit<Result>(otherwise fallback: Result, _ body: (inout PlayerStateMachine) -> Result) -> Result {
        var result = fallback
        command { machine in
            result = body(&machine)
            return []
        }
        return result
    }

    private func command(_ transition: (inout PlayerStateMachine) -> [PlayerStateMachine.Effect]) {
        core.condition.lock()
        defer { core.condition.unlock() }
        guard !core.shutdownRequested else { return }
        let effects = transition(&core.machine)
        guard !effects.isEmpty else { return }
        core.mailbox += effects.map(EngineCommand.effect)
        core.condition.broadcast()
    }
}

enum EngineCommand {
    case effect(PlayerStateMachine.Effect)
    case seek(SeekTarget)
    case lyricsAdjustment(Int)
}

/// What the audio thread last reported, for snapshots.
struct EngineStatus {
    var generation = 0
    var positionMs = 0
    var durationMs: Int?
    var lyricLineIndex: Int?
    var lyricText: String?
    var audioFormat: AudioFormatSummary?
}

extension PlayerStateMachine {
    /// For `Player.status()`. `mutating` only so that the core lends its machine in place: a plain method
    /// call on the stored machine would copy it first, retaining every array it holds.
    fileprivate mutating func status(live: Bool, positionMs: Int, durationMs: Int?,
                                     audioFormat: AudioFormatSummary?, volume: Int, lastError: String?,
                                     replayGainMode: ReplayGainMode) -> PlayerStatus {
        let next = nextIndex
        return PlayerStatus(
            state: state, isBuffering: isBuffering, currentIndex: currentIndex,
            currentId: currentIndex.map { entries[$0].id }, nextIndex: next, nextId: next.map { entries[$0].id },
            positionMs: live ? positionMs : 0,
            durationMs: live ? durationMs : currentIndex.flatMap { entries[$0].item.durationMs },
            queueLength: entries.count, queueVersion: version, volume: volume, repeats: repeats, single: single,
            consume: consume, shuffle: shuffle, lastError: lastError, audioFormat: live ? audioFormat : nil,
            replayGainMode: replayGainMode)
    }
}

/// State shared by the command side and the audio thread; every field is guarded by `condition`.
final class PlayerCore: @unchecked Sendable {
    let condition = NSCondition()
    var machine: PlayerStateMachine
    var mailbox: [EngineCommand] = []
    var volume = 100
    var replayGain = ReplayGainSettings()
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

    /// The engine's figures (position, duration, format) belong to the current track only once it has loaded it.
    var engineFiguresAreCurrent: Bool { machine.isActive && status.generation == machine.generation }

    init(machine: PlayerStateMachine) {
        self.machine = machine
    }

    /// Caller holds the lock.
    var isFinished: Bool {
        engineExited || (!machine.isActive && mailbox.isEmpty && engineIdle)
    }

    /// Caller holds the lock.
    func positionMs() -> Int {
        status.generation == machine.generation ? status.positionMs : 0
    }
}

/// Passes events to the handler and, once it has been asked for, to the stream.
final class EventHub: @unchecked Sendable {
    private let lock = NSLock()
    private let handler: (@Sendable (PlayerEvent) -> Void)?
    private var made: AsyncStream<PlayerEvent>?
    private var continuation: AsyncStream<PlayerEvent>.Continuation?
    private var finished = false

    init(handler: (@Sendable (PlayerEvent) -> Void)?) {
        self.handler = handler
    }

    func stream() -> AsyncStream<PlayerEvent> {
        lock.lock()
        defer { lock.unlock() }
        if let made { return made }
        let (stream, continuation) = AsyncStream<PlayerEvent>.makeStream(bufferingPolicy: .unbounded)
        if finished { continuation.finish() } else { self.continuation = continuation }
        made = stream
        return stream
    }

    func emit(_ event: PlayerEvent) {
        lock.lock()
        let continuation = continuation
        lock.unlock()
        continuation?.yield(event)
        handler?(event)
    }

    func finish() {
        lock.lock()
        finished = true
        let continuation = continuation
        self.continuation = nil
        lock.unlock()
        continuation?.finish()
    }
}
