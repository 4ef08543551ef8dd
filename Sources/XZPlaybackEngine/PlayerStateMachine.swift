import XZAudio
import XZPlaybackValues

/// The player's queue and transport logic as a pure value: every command and every track outcome is a
/// transition that returns the effects the audio engine must carry out, in order. No I/O, no clock;
/// shuffling uses its own seeded generator so tests are repeatable.
///
/// States: idle (empty queue), stopped (queue, nothing loaded), playing, paused.
/// Each `.start` carries a generation number; a track outcome reported for an older generation is stale
/// (the user moved on meanwhile) and changes nothing.
///
/// Every transition also notes what it changed (`changes`, taken with `takeChanges()`), at the place it
/// changes it: the player reports that instead of comparing states.
package struct PlayerStateMachine: Sendable, Equatable {
    package struct TrackStart: Sendable, Equatable {
        package var index: Int
        package var item: QueueItem
        package var generation: Int
    }

    package enum Effect: Sendable, Equatable {
        /// Open the item and play it from its start.
        case start(TrackStart)
        /// Stop the loaded track and report it ended for this reason.
        case end(EndReason)
        case pause
        case resume
        /// Playback stopped by command: close the output (finishes files, frees the device).
        case release
        /// The queue ran out: close the output and report it.
        case queueFinished
        /// With repeat on, a whole pass of the queue failed: close the output and report that playback
        /// stopped rather than cycle.
        case queueUnplayable
    }

    /// Idle and stopped differ only in the queue (which `.queue` reports): between them playback is unchanged.
    package private(set) var state: PlayerState = .idle {
        didSet { if state != oldValue, state.isLoaded || oldValue.isLoaded { changes.insert(.playback) } }
    }
    /// The queue with each entry's id, priority and the queue version that last moved it.
    package internal(set) var entries: [QueueEntry] = []
    /// A move of the current entry keeps its song; only gaining or losing one is a change here (a new
    /// song comes through `begin`).
    package private(set) var currentIndex: Int? {
        didSet { if (currentIndex == nil) != (oldValue == nil) { changes.insert(.playback) } }
    }
    /// Plays the queue again from the top when it runs out (MPD's `repeat`).
    package private(set) var repeats = false {
        didSet { if repeats != oldValue { changes.insert(.options) } }
    }
    /// Stop after the current track (`on`; with `repeats` it plays again), or do so once (`oneshot`).
    package private(set) var single: SingleMode = .off {
        didSet { if single != oldValue { changes.insert(.options) } }
    }
    /// Each track leaves the queue once it has played or was skipped.
    package private(set) var consume = false {
        didSet { if consume != oldValue { changes.insert(.options) } }
    }
    package private(set) var shuffle = false {
        didSet { if shuffle != oldValue { changes.insert(.options) } }
    }
    /// 0...100, linear software scaling.
    package private(set) var volume = 100 {
        didSet { if volume != oldValue { changes.insert(.volume) } }
    }
    /// Applies from the next track that starts; only its mode is one of MPD's options.
    package private(set) var replayGain = ReplayGainSettings() {
        didSet { if replayGain.mode != oldValue.mode { changes.insert(.options) } }
    }
    /// Crossfade and MixRamp; the engine reads them at each song's end (MPD's `options` too).
    package private(set) var crossfade = CrossfadeSettings() {
        didSet { if crossfade != oldValue { changes.insert(.options) } }
    }
    /// Changes with every change of the queue (MPD's playlist version).
    package internal(set) var version = 1 {
        didSet { changes.insert(.queue) }
    }
    /// What the transitions since the last `takeChanges()` changed.
    package private(set) var changes: PlayerChanges = []
    private var nextId = 1
    /// Queue indices in play order: the identity without shuffle, a permutation with it.
    package internal(set) var order: [Int] = []
    package private(set) var generation = 0
    /// Failures in a row; when every item has failed in a row, playback stops instead of cycling. (A track
    /// of less than half a second fails too: see `PlaybackError.noAudio`.)
    private var consecutiveFailures = 0
    var random: SplitMix64

    /// MPD's `max_playlist_length` default: the most entries the queue holds.
    package static let defaultMaxLength = 16_384
    /// The most entries the queue holds; what would pass it is not added.
    package var maxLength = PlayerStateMachine.defaultMaxLength {
        didSet { maxLength = max(maxLength, 1) }
    }
    /// Entries the queue has room for.
    package var room: Int { max(maxLength - entries.count, 0) }

    package init(seed: UInt64 = UInt64.random(in: 0 ... .max)) {
        random = SplitMix64(seed: seed)
    }

    package var isActive: Bool { state.isLoaded }

    /// The loaded track waits for bytes that have not arrived (a stream caught up with its download, or its
    /// first second is still coming): playing, but the clock stands still until they come.
    package var isBuffering: Bool { state == .playing && waitingForBytes }
    private var waitingForBytes = false {
        didSet { if waitingForBytes != oldValue { changes.insert(.playback) } }
    }

    /// What our own output shows: `buffering` while playing and waiting for bytes, else the state's name.
    /// (MPD's `status` keeps saying `play`.)
    package var stateText: String { state == .playing && isBuffering ? "buffering" : state.rawValue }

    /// The engine found the track of `generation` waiting for bytes (or able to go on); false when stale or
    /// no change. No effects: the engine itself holds the audio back.
    package mutating func setBuffering(_ waiting: Bool, generation: Int) -> Bool {
        guard generation == self.generation, isActive, waiting != waitingForBytes else { return false }
        waitingForBytes = waiting
        return true
    }

    /// What the playing stream of `generation` says of itself now goes onto its queue entry, where MPD keeps
    /// it (listed by `currentsong` and `playlistinfo`, and after it stops); a change is a new queue version
    /// and wakes `player` and `playlist`, as MPD's. False when stale or no change.
    package mutating func setStreamTags(_ tags: StreamTags, generation: Int) -> Bool {
        guard generation == self.generation, isActive, let index = currentIndex else { return false }
        var item = entries[index].item
        item.take(tags)
        guard item != entries[index].item else { return false }
        version += 1
        entries[index].item = item
        entries[index].version = version
        changes.insert(.playback)
        return true
    }

    package var current: QueueItem? { currentIndex.map { entries[$0].item } }
    package var queue: [QueueItem] { entries.map(\.item) }

    /// What changed since the last call, and starts noting afresh.
    package mutating func takeChanges() -> PlayerChanges {
        defer { changes = [] }
        return changes
    }

    /// The queue index that plays after the current one, as far as it is known now.
    package var nextIndex: Int? {
        guard !entries.isEmpty else { return nil }
        // As MPD reckons it: single with repeat plays the same song again.
        if single != .off, repeats { return currentIndex }
        let position = currentIndex.flatMap { order.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
        if position < order.count { return order[position] }
        return repeats && !order.isEmpty ? order[0] : nil
    }

    package func index(ofId id: Int) -> Int? { entries.firstIndex { $0.id == id } }

    // MARK: Commands

    /// Replaces the queue and starts playing at `index` (clamped).
    package mutating func play(_ items: [QueueItem], startingAt index: Int = 0) -> [Effect] {
        let ending = endIfActive(items.isEmpty ? .stopped : .skipped)
        entries = []
        order = []
        currentIndex = nil
        _ = appendEntries(items, at: nil)
        consecutiveFailures = 0
        guard !items.isEmpty else {
            state = .idle
            order = []
            return ending.isEmpty ? [] : ending + [.release]
        }
        let start = min(max(index, 0), entries.count - 1)
        order = makeOrder(first: start)
        return ending + [begin(start)]
    }

    /// Starts the queue item at `index`; nil when there is no such item.
    package mutating func playItem(at index: Int) -> [Effect]? {
        guard entries.indices.contains(index) else { return nil }
        consecutiveFailures = 0
        // As MPD: consume takes a song out when it finishes or is skipped with next, not when another is chosen.
        return endIfActive(.skipped) + [begin(index)]
    }

    /// As `playItem(at:)`, the new song paused at its start when `paused` (MPD's seek into another song
    /// while paused).
    package mutating func playItem(at index: Int, paused: Bool) -> [Effect]? {
        guard var effects = playItem(at: index) else { return nil }
        if paused {
            state = .paused
            effects.append(.pause)
        }
        return effects
    }

    /// Appends to the queue without starting playback.
    package mutating func add(_ items: [QueueItem]) -> [Effect] {
        _ = insert(items, at: nil)
        return []
    }

    /// Inserts at `position` (the end when nil) without starting playback; returns the new entries' ids,
    /// fewer than the items when the queue is full (`maxLength`).
    package mutating func insert(_ items: [QueueItem], at position: Int?) -> [Int] {
        // A full queue is left as it is (its version too), as MPD's.
        guard !items.isEmpty, room > 0 else { return [] }
        let ids = appendEntries(items, at: position)
        if state == .idle { state = .stopped }
        return ids
    }

    private mutating func appendEntries(_ items: [QueueItem], at position: Int?) -> [Int] {
        // As MPD: what fits is added, the rest is not.
        let items = items.prefix(room)
        let ids = items.indices.map { nextId + $0 }
        nextId += items.count
        let at = min(max(position ?? entries.count, 0), entries.count)
        if at == entries.count {
            // At the end no entry moves: the new ones take the new version, without a pass over the others
            // (a command list's 10,000 adds land here in one step).
            version += 1
            entries.reserveCapacity(entries.count + items.count)
            for (item, id) in zip(items, ids) { entries.append(QueueEntry(item: item, id: id, priority: 0, version: version)) }
        } else {
            var updated = entries
            updated.insert(contentsOf: zip(items, ids).map { QueueEntry(item: $0, id: $1, priority: 0, version: version) }, at: at)
            rebuild(updated)
        }
        let added = at..<(at + items.count)
        if shuffle {
            // New items go at random places among those still to come, so each still plays once this round.
            let from = currentIndex.flatMap { order.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
            for index in added {
                order.insert(index, at: from + random.next(below: order.count - from + 1))
            }
        } else {
            order = Array(entries.indices)
        }
        return ids
    }

    /// Removes the item at `index`; nil when there is none. Removing the playing item moves on to the next.
    package mutating func remove(at index: Int) -> [Effect]? {
        remove(range: index..<(index + 1))
    }

    /// Removes the items in `range`; nil when it is empty or reaches past the queue. Removing the playing
    /// item moves on to the next one in play order that stays.
    package mutating func remove(range: Range<Int>) -> [Effect]? {
        guard !range.isEmpty, range.lowerBound >= 0, range.upperBound <= entries.count else { return nil }
        let removedCurrent = currentIndex.map(range.contains) ?? false
        // The first item after the current one in play order that stays.
        var successor: Int?
        if removedCurrent, let current = currentIndex, let position = order.firstIndex(of: current) {
            successor = order[(position + 1)...].first { !range.contains($0) }.map { entries[$0].id }
        }
        var updated = entries
        updated.removeSubrange(range)
        if removedCurrent { currentIndex = nil }
        rebuild(updated)
        guard removedCurrent, isActive else {
            if entries.isEmpty { state = .idle }
            return []
        }
        var effects: [Effect] = [.end(.skipped)]
        if let successor, let index = self.index(ofId: successor) {
            effects.append(begin(index))
        } else if repeats, !order.isEmpty {
            newRound()
            effects.append(begin(order[0]))
        } else {
            effects += finish()
        }
        return effects
    }

    /// Empties the queue and stops.
    package mutating func clear() -> [Effect] {
        let ending = endIfActive(.stopped)
        if !entries.isEmpty { version += 1 }
        entries = []
        order = []
        currentIndex = nil
        state = .idle
        return ending.isEmpty ? [] : ending + [.release]
    }

    /// The next item in play order (wrapping with repeat all); at the end of the queue playback finishes.
    /// Repeat one does not hold a manual next back.
    package mutating func next() -> [Effect] {
        guard !entries.isEmpty else { return [] }
        let position = currentIndex.flatMap { order.firstIndex(of: $0) }
        let hasNext = (position.map { $0 + 1 } ?? 0) < order.count || repeats
        guard isActive || hasNext else { return [] }
        consecutiveFailures = 0
        let ending = endIfActive(.skipped)
        if consume, isActive { return ending + consumeCurrent() }
        return ending + advance()
    }

    /// The previous item in play order, wherever the track is (MPD's rule; the prompt's `prev` restarts
    /// a track more than 3 s in itself); at the first item it wraps with repeat all, else restarts the first.
    package mutating func previous() -> [Effect] {
        guard !entries.isEmpty else { return [] }
        consecutiveFailures = 0
        let position = currentIndex.flatMap { order.firstIndex(of: $0) } ?? 0
        let target: Int
        if position > 0 {
            target = order[position - 1]
        } else if repeats {
            target = order[order.count - 1]
        } else {
            target = order[0]
        }
        return endIfActive(.skipped) + [begin(target)]
    }

    /// playing <-> paused; stopped starts the current item (or the first in order); idle does nothing.
    package mutating func togglePause() -> [Effect] {
        switch state {
        case .playing:
            state = .paused
            return [.pause]
        case .paused:
            state = .playing
            return [.resume]
        case .stopped:
            guard let start = currentIndex ?? order.first else { return [] }
            consecutiveFailures = 0
            return [begin(start)]
        case .idle:
            return []
        }
    }

    /// Keeps the queue and the current item; togglePause() starts it again from its beginning.
    package mutating func stop() -> [Effect] {
        guard isActive else { return [] }
        state = .stopped
        waitingForBytes = false
        return [.end(.stopped), .release]
    }

    /// Sets MPD's `repeat` and `single` as the prompt's word says.
    package mutating func setRepeat(_ mode: RepeatMode) {
        repeats = mode.repeats
        single = mode.single
    }

    package mutating func setRepeats(_ on: Bool) { repeats = on }
    package mutating func setSingle(_ mode: SingleMode) { single = mode }
    package mutating func setConsume(_ on: Bool) { consume = on }

    /// Clamped to 0...100.
    package mutating func setVolume(_ percent: Int) { volume = min(max(percent, 0), 100) }
    package mutating func setReplayGain(_ settings: ReplayGainSettings) { replayGain = settings }
    package mutating func setCrossfade(_ settings: CrossfadeSettings) { crossfade = settings }

    /// The track `trackEnded(generation:)` would start now, changing nothing: what a crossfade fades into.
    package func upcomingStart(afterEndOf generation: Int) -> TrackStart? {
        var copy = self
        for case .start(let start) in copy.trackEnded(generation: generation) { return start }
        return nil
    }

    /// Turning shuffle on keeps the current item and shuffles the rest after it; off restores queue order.
    package mutating func setShuffle(_ on: Bool) {
        guard on != shuffle else { return }
        shuffle = on
        order = makeOrder(first: currentIndex)
    }

    // MARK: Track outcomes

    /// The track of `generation` played to its end.
    package mutating func trackEnded(generation: Int) -> [Effect] {
        guard generation == self.generation, isActive else { return [] }
        consecutiveFailures = 0
        switch single {
        case .on where repeats:
            if let current = currentIndex { return [begin(current)] }
        case .on, .oneshot:
            // As MPD: the next song is loaded and paused at its start, which spends a oneshot; after the
            // last song playback stops and a oneshot stays.
            var effects = consume ? consumeCurrent() : advance()
            if state == .playing {
                if single == .oneshot { single = .off }
                state = .paused
                effects.append(.pause)
            }
            return effects
        case .off:
            break
        }
        if consume { return consumeCurrent() }
        return advance()
    }

    /// The track of `generation` could not be opened or decoded. Repeat one does not retry it.
    package mutating func trackFailed(generation: Int) -> [Effect] {
        guard generation == self.generation, isActive else { return [] }
        consecutiveFailures += 1
        if consecutiveFailures >= entries.count { return giveUp() }
        return advance()
    }

    /// The output failed while starting or playing the track of `generation`: stop, as every other track would fail too.
    package mutating func outputFailed(generation: Int) -> [Effect] {
        guard generation == self.generation, isActive else { return [] }
        return finish()
    }

    // MARK: Helpers

    private mutating func begin(_ index: Int) -> Effect {
        // A new song, or the same one from its start again.
        changes.insert(.playback)
        generation += 1
        waitingForBytes = false
        currentIndex = index
        state = .playing
        return .start(TrackStart(index: index, item: entries[index].item, generation: generation))
    }

    /// Consume mode: the current entry leaves the queue and the one after it in play order starts (or the
    /// queue finishes). The caller has already ended the track.
    private mutating func consumeCurrent() -> [Effect] {
        guard let current = currentIndex, let position = order.firstIndex(of: current) else { return advance() }
        let successor = position + 1 < order.count ? entries[order[position + 1]].id : nil
        dropCurrent()
        if let successor, let index = index(ofId: successor) { return [begin(index)] }
        if repeats, !order.isEmpty {
            newRound()
            return [begin(order[0])]
        }
        return finish()
    }

    /// Consume mode: the current entry leaves the queue; nothing starts.
    private mutating func dropCurrent() {
        guard let current = currentIndex else { return }
        var updated = entries
        updated.remove(at: current)
        currentIndex = nil
        rebuild(updated)
    }

    /// Takes a new arrangement of the entries (some may be gone): the play order and the current item
    /// follow their ids, and every entry that changed place gets the new version.
    mutating func rebuild(_ updated: [QueueEntry]) {
        let currentId = currentIndex.map { entries[$0].id }
        let orderIds = order.map { entries[$0].id }
        var oldIndex: [Int: Int] = [:]
        for (index, entry) in entries.enumerated() { oldIndex[entry.id] = index }
        version += 1
        var newIndex: [Int: Int] = [:]
        entries = updated
        for index in entries.indices {
            newIndex[entries[index].id] = index
            if oldIndex[entries[index].id] != index { entries[index].version = version }
        }
        currentIndex = currentId.flatMap { newIndex[$0] }
        // Without shuffle the play order is the queue order, whatever moved.
        order = shuffle ? orderIds.compactMap { newIndex[$0] } : Array(entries.indices)
    }

    private mutating func endIfActive(_ reason: EndReason) -> [Effect] {
        isActive ? [.end(reason)] : []
    }

    private mutating func advance() -> [Effect] {
        let nextPosition = currentIndex.flatMap { order.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
        if nextPosition < order.count { return [begin(order[nextPosition])] }
        if repeats, !order.isEmpty {
            newRound()
            return [begin(order[0])]
        }
        return finish()
    }

    /// A whole pass gave nothing: stop. With repeat off the queue has simply run out.
    private mutating func giveUp() -> [Effect] {
        // As MPD, which stops on too many errors as on `stop`: the song that failed last stays current.
        let failed = currentIndex
        let effects = finish()
        currentIndex = failed
        return repeats ? [.queueUnplayable] : effects
    }

    private mutating func finish() -> [Effect] {
        state = entries.isEmpty ? .idle : .stopped
        waitingForBytes = false
        currentIndex = nil
        return [.queueFinished]
    }

    /// Repeat all with shuffle: a fresh order for each round.
    private mutating func newRound() {
        if shuffle { order = makeOrder(first: nil) }
    }

    private mutating func makeOrder(first: Int?) -> [Int] {
        guard shuffle else { return Array(entries.indices) }
        var rest = entries.indices.filter { $0 != first }
        // Fisher-Yates.
        if rest.count > 1 {
            for i in stride(from: rest.count - 1, to: 0, by: -1) {
                rest.swapAt(i, random.next(below: i + 1))
            }
        }
        return (first.map { [$0] } ?? []) + rest
    }
}

/// Small seeded generator (SplitMix64) so a machine is a plain value and shuffles are repeatable.
struct SplitMix64: Sendable, Equatable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 0..<bound (bound > 0); the modulo bias is negligible for queue sizes.
    mutating func next(below bound: Int) -> Int {
        bound <= 1 ? 0 : Int(next() % UInt64(bound))
    }
}

/// One queue entry: the item and what MPD clients see of it.
package struct QueueEntry: Sendable, Equatable {
    package var item: QueueItem
    /// Unique in the player's life; stays while the entry moves.
    package var id: Int
    /// 0-255; in random mode higher priorities play sooner.
    package var priority: Int
    /// The queue version when the entry was added or last changed place.
    package var version: Int
}
