import Foundation
import XZPlaybackEngine
import XZPlaybackValues
import XZSystem

/// The player during one turn of the host's one-at-a-time rule (`PlayerHost.exclusively`): what a caller
/// reads through it is still so when it acts, since no other change runs meanwhile. Valid only inside the
/// `exclusively` that handed it over (not Sendable, so no task takes it along); its verbs take no lock of the rule's.
package struct PlayerTurn {
    let host: PlayerHost

    private var player: Player {
        assert(host.holdsTurn, "a PlayerTurn used outside the PlayerHost.exclusively that handed it over")
        return host.player
    }

    // MARK: Reads

    package func snapshot() -> PlayerSnapshot { player.snapshot() }

    /// The most entries the queue holds (MPD's `max_playlist_length`); adds past it add what fits.
    package var maxQueueLength: Int {
        get { player.maxQueueLength }
        nonmutating set { player.maxQueueLength = newValue }
    }

    /// Entries the queue has room for now.
    package var queueRoom: Int { player.queueRoom }

    // MARK: Queue

    /// Replaces the queue and starts at `index`.
    package func play(_ items: [QueueItem], startingAt index: Int = 0) { player.play(items, startingAt: index) }

    /// False when there is no item at `index`; `paused`: the item waits paused at its start.
    @discardableResult
    package func playItem(at index: Int, paused: Bool = false) -> Bool { player.playItem(at: index, paused: paused) }

    /// Appends without starting.
    package func add(_ items: [QueueItem]) { player.add(items) }

    /// Inserts at `position` (the end when nil); the new entries' ids, fewer than the items when the queue is full.
    @discardableResult
    package func insert(_ items: [QueueItem], at position: Int?) -> [Int] { player.insert(items, at: position) }

    /// Empties the queue and inserts `items` in one step; the new entries' ids.
    @discardableResult
    package func replaceQueue(with items: [QueueItem]) -> [Int] { player.replaceQueue(with: items) }

    package func clearQueue() { player.clearQueue() }

    /// False when `range` is empty or reaches past the queue.
    @discardableResult
    package func removeFromQueue(range: Range<Int>) -> Bool { player.removeFromQueue(range: range) }

    @discardableResult
    package func move(range: Range<Int>, to position: Int) -> Bool { player.move(range: range, to: position) }

    @discardableResult
    package func shuffleQueue(range: Range<Int>) -> Bool { player.shuffleQueue(range: range) }

    @discardableResult
    package func swap(_ first: Int, _ second: Int) -> Bool { player.swap(first, second) }

    @discardableResult
    package func setPriority(_ priority: Int, at indices: [Int]) -> Bool { player.setPriority(priority, at: indices) }

    /// Sets the part of the queue entry `id` that plays (nil: all of it).
    package func setRange(_ range: PlayRange?, id: Int) -> PlayRange.Edit { player.setRange(range, id: id) }

    // MARK: Options

    package func setRepeats(_ on: Bool) { player.setRepeats(on) }
    package func setSingle(_ mode: SingleMode) { player.setSingle(mode) }
    package func setConsume(_ on: Bool) { player.setConsume(on) }
    /// MPD's `repeat` and `single` at once, as the prompt's and MPRIS's LoopStatus say it.
    package func setRepeat(_ mode: RepeatMode) { player.setRepeat(mode) }
    package func setShuffle(_ on: Bool) { player.setShuffle(on) }
    /// Forgets the last track error (MPD's `clearerror`).
    package func clearError() { player.clearError() }

    /// 0...100, clamped.
    package func setVolume(_ percent: Int) { player.setVolume(percent) }
    /// Moves the volume by `step` points from where it is.
    package func changeVolume(by step: Int) { player.changeVolume(by: step) }

    /// Applies from the next track that starts.
    package var replayGain: ReplayGainSettings {
        get { player.replayGain }
        nonmutating set { player.replayGain = newValue }
    }

    /// Crossfade and MixRamp, from the next song's end on.
    package var crossfade: CrossfadeSettings {
        get { player.crossfade }
        nonmutating set { player.crossfade = newValue }
    }

    /// Changes some of the crossfade settings in one step.
    package func updateCrossfade(_ change: (inout CrossfadeSettings) -> Void) { player.updateCrossfade(change) }

    /// Seconds of a stream's audio that must have arrived before it starts.
    package var prebufferSeconds: Double {
        get { player.prebufferSeconds }
        nonmutating set { player.prebufferSeconds = newValue }
    }

    /// Shifts the playing track's lyrics (positive = sooner).
    package func setLyricsAdjustment(_ ms: Int) { player.setLyricsAdjustment(ms) }

    // MARK: Transport

    package func next() { player.next() }
    package func previous() { player.previous() }
    /// playing <-> paused; a stopped queue starts again.
    package func togglePause() { player.togglePause() }
    /// Pauses what plays; anything else stays as it is.
    package func pause() { player.pause() }
    /// Goes on from a pause; anything else stays as it is.
    package func resume() { player.resume() }
    package func stop() { player.stop() }

    /// MPD's `next` and MPRIS's Next: only a loaded song moves on; false when none is.
    @discardableResult
    package func nextIfLoaded() -> Bool {
        guard snapshot().state.isLoaded else { return false }
        player.next()
        return true
    }

    /// MPD's `previous` and MPRIS's Previous: only with a loaded song; false when none is.
    @discardableResult
    package func previousIfLoaded() -> Bool {
        guard snapshot().state.isLoaded else { return false }
        player.previous()
        return true
    }

    /// MPD's `play` without a position and MPRIS's Play: paused goes on, stopped starts the current song
    /// (else the first); playing or an empty player stays as it is.
    package func playFromWhereItIs() {
        switch snapshot().state {
        case .paused: player.resume()
        case .stopped: player.togglePause()
        case .playing, .idle: break
        }
    }

    /// MPRIS's PlayPause: stopped starts where it is, playing and paused swap, an empty player stays so.
    package func playOrPause() {
        switch snapshot().state {
        case .stopped: playFromWhereItIs()
        case .playing, .paused: player.togglePause()
        case .idle: break
        }
    }

    /// Nil when nothing is loaded (ignored); else the seek to wait for outside the turn (`PlayerHost.waitForSeek`).
    /// A relative seek counts from where the audio thread is when it carries the seek out.
    @discardableResult
    package func requestSeek(_ target: SeekTarget) -> PlayerHost.SeekTicket? { player.requestSeek(target) }

    // MARK: Outputs

    /// MPD's `enableoutput` / `disableoutput`; false when there is no output `id`.
    @discardableResult
    package func setOutputEnabled(_ enabled: Bool, id: Int = 0) -> Bool {
        host.switchOutput(id, mixerHeardOnEnabling: true) { _ in enabled }
    }

    /// MPD's `toggleoutput`; false when there is no output `id`.
    @discardableResult
    package func toggleOutput(id: Int = 0) -> Bool {
        host.switchOutput(id, mixerHeardOnEnabling: false) { !$0 }
    }
}

@available(*, unavailable, message: "a turn belongs to the thread inside PlayerHost.exclusively")
extension PlayerTurn: Sendable {}

/// The verbs every front end (MPD clients, MPRIS, the prompt, one-shot `play`) drives the player by: each
/// change takes its turn under the host's one-at-a-time rule; reads take none, the player's own lock
/// makes each one whole.
extension PlayerHost {
    /// A seek handed to the audio thread, to wait for (`waitForSeek`).
    package typealias SeekTicket = Player.SeekTicket

    /// Runs `body` as the only change to the player under way, host-wide: MPD's one thread, or its
    /// `PlayerControl` lock, which every caller takes. A `turn` already held (a command list's) is used as
    /// it is. Never wait in `body` (a seek's arrival, a file, the database): every other caller waits for it.
    package func exclusively<Result, Failure: Error>(holding turn: PlayerTurn? = nil,
                                                     _ body: (PlayerTurn) throws(Failure) -> Result) throws(Failure) -> Result {
        if let turn {
            precondition(turn.host === self, "a turn of another host")
            return try body(turn)
        }
        let thread = pthread_self()
        // A verb called inside a turn would wait for itself forever: said at once instead.
        precondition(turnHolder.load(ordering: .relaxed) != thread, "PlayerHost: a verb called inside exclusively; use its turn")
        return try turns.withLock { _ throws(Failure) -> sending Result in
            turnHolder.store(thread, ordering: .relaxed)
            defer { turnHolder.store(0, ordering: .relaxed) }
            return try body(PlayerTurn(host: self))
        }
    }

    /// This thread is inside `exclusively`.
    var holdsTurn: Bool { turnHolder.load(ordering: .relaxed) == pthread_self() }

    // MARK: Reads, which take no turn

    /// The whole state in one read.
    package func snapshot() -> PlayerSnapshot { player.snapshot() }

    /// Entries the queue has room for now.
    package var queueRoom: Int { player.queueRoom }

    /// Tracks that ended with an error so far (a one-shot command's exit status).
    package var failedTrackCount: Int { player.failedTrackCount }

    /// The most entries the queue holds (MPD's `max_playlist_length`).
    package var maxQueueLength: Int {
        get { player.maxQueueLength }
        set { exclusively { $0.maxQueueLength = newValue } }
    }

    // MARK: Changes, one turn each

    /// Replaces the queue and starts at `index`.
    package func play(_ items: [QueueItem], startingAt index: Int = 0) { exclusively { $0.play(items, startingAt: index) } }

    /// False when there is no item at `index`.
    @discardableResult
    package func playItem(at index: Int, paused: Bool = false) -> Bool { exclusively { $0.playItem(at: index, paused: paused) } }

    /// Appends without starting.
    package func add(_ items: [QueueItem]) { exclusively { $0.add(items) } }

    /// Inserts at `position` (the end when nil); the new entries' ids, fewer when the queue is full.
    @discardableResult
    package func insert(_ items: [QueueItem], at position: Int?) -> [Int] { exclusively { $0.insert(items, at: position) } }

    package func clearQueue() { exclusively { $0.clearQueue() } }
    package func stop() { exclusively { $0.stop() } }
    /// Pauses what plays.
    package func pause() { exclusively { $0.pause() } }
    /// Goes on from a pause.
    package func resume() { exclusively { $0.resume() } }
    /// See `PlayerTurn.playFromWhereItIs`.
    package func playFromWhereItIs() { exclusively { $0.playFromWhereItIs() } }
    /// See `PlayerTurn.playOrPause`.
    package func playOrPause() { exclusively { $0.playOrPause() } }
    @discardableResult
    package func nextIfLoaded() -> Bool { exclusively { $0.nextIfLoaded() } }
    @discardableResult
    package func previousIfLoaded() -> Bool { exclusively { $0.previousIfLoaded() } }
    package func setVolume(_ percent: Int) { exclusively { $0.setVolume(percent) } }
    package func setRepeat(_ mode: RepeatMode) { exclusively { $0.setRepeat(mode) } }
    package func setShuffle(_ on: Bool) { exclusively { $0.setShuffle(on) } }

    /// Nil when nothing is loaded; else the seek to wait for.
    @discardableResult
    package func requestSeek(_ target: SeekTarget) -> SeekTicket? { exclusively { $0.requestSeek(target) } }

    /// MPD's `enableoutput` / `disableoutput`: a change is heard as the output's and its mixer's.
    /// False when there is no output `id`.
    @discardableResult
    package func setOutputEnabled(_ enabled: Bool, id: Int = 0) -> Bool { exclusively { $0.setOutputEnabled(enabled, id: id) } }

    /// MPD's `toggleoutput`, whose change is heard as the mixer's too only when the output goes off.
    @discardableResult
    package func toggleOutput(id: Int = 0) -> Bool { exclusively { $0.toggleOutput(id: id) } }

    // MARK: Waits, outside any turn

    /// Returns once the audio thread has carried out (or given up) the seek of `ticket` and every one
    /// before it, or after `patience` seconds.
    package func waitForSeek(_ ticket: SeekTicket, patience: TimeInterval) {
        player.waitForSeek(ticket, patience: patience)
    }

    /// Blocks until nothing is playing or paused; false when `timeout` passed first.
    @discardableResult
    package func waitUntilFinished(timeout: TimeInterval? = nil) -> Bool {
        player.waitUntilFinished(timeout: timeout)
    }
}
