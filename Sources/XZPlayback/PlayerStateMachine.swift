/// The player's queue and transport logic as a pure value: every command and every track outcome is a
/// transition that returns the effects the audio engine must carry out, in order. No I/O, no clock;
/// shuffling uses its own seeded generator so tests are repeatable.
///
/// States: idle (empty queue), stopped (queue, nothing loaded), playing, paused.
/// Each `.start` carries a generation number; a track outcome reported for an older generation is stale
/// (the user moved on meanwhile) and changes nothing.
public struct PlayerStateMachine: Sendable, Equatable {
    public struct TrackStart: Sendable, Equatable {
        public var index: Int
        public var item: QueueItem
        public var generation: Int
    }

    public enum Effect: Sendable, Equatable {
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
    }

    public private(set) var state: PlayerState = .idle
    public private(set) var queue: [QueueItem] = []
    public private(set) var currentIndex: Int?
    public private(set) var repeatMode: RepeatMode = .off
    public private(set) var shuffle = false
    /// Queue indices in play order: the identity without shuffle, a permutation with it.
    public private(set) var order: [Int] = []
    public private(set) var generation = 0
    /// Failures in a row; when every item has failed in a row, playback stops instead of cycling.
    private var consecutiveFailures = 0
    private var random: SplitMix64

    public init(seed: UInt64 = UInt64.random(in: 0 ... .max)) {
        random = SplitMix64(seed: seed)
    }

    public var isActive: Bool { state == .playing || state == .paused }
    public var current: QueueItem? { currentIndex.map { queue[$0] } }

    // MARK: Commands

    /// Replaces the queue and starts playing at `index` (clamped).
    public mutating func play(_ items: [QueueItem], startingAt index: Int = 0) -> [Effect] {
        let ending = endIfActive(items.isEmpty ? .stopped : .skipped)
        queue = items
        currentIndex = nil
        consecutiveFailures = 0
        guard !items.isEmpty else {
            state = .idle
            order = []
            return ending.isEmpty ? [] : ending + [.release]
        }
        let start = min(max(index, 0), items.count - 1)
        order = makeOrder(first: start)
        return ending + [begin(start)]
    }

    /// Starts the queue item at `index`; nil when there is no such item.
    public mutating func playItem(at index: Int) -> [Effect]? {
        guard queue.indices.contains(index) else { return nil }
        consecutiveFailures = 0
        return endIfActive(.skipped) + [begin(index)]
    }

    /// Appends to the queue without starting playback.
    public mutating func add(_ items: [QueueItem]) -> [Effect] {
        guard !items.isEmpty else { return [] }
        let first = queue.count
        queue += items
        if shuffle {
            // New items go at random places among those still to come, so each still plays once this round.
            let from = currentIndex.flatMap { order.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
            for index in first..<queue.count {
                order.insert(index, at: from + random.next(below: order.count - from + 1))
            }
        } else {
            order += first..<queue.count
        }
        if state == .idle { state = .stopped }
        return []
    }

    /// Removes the item at `index`; nil when there is none. Removing the playing item moves on to the next.
    public mutating func remove(at index: Int) -> [Effect]? {
        guard queue.indices.contains(index), let position = order.firstIndex(of: index) else { return nil }
        let wasCurrent = index == currentIndex
        queue.remove(at: index)
        order.remove(at: position)
        order = order.map { $0 > index ? $0 - 1 : $0 }
        if let current = currentIndex, current > index { currentIndex = current - 1 }
        guard wasCurrent else {
            if queue.isEmpty { state = .idle }
            return []
        }
        currentIndex = nil
        guard isActive else {
            if queue.isEmpty { state = .idle }
            return []
        }
        // The item that followed the removed one now sits at its place in the order.
        var effects: [Effect] = [.end(.skipped)]
        if position < order.count {
            effects.append(begin(order[position]))
        } else if repeatMode == .all, !order.isEmpty {
            newRound()
            effects.append(begin(order[0]))
        } else {
            effects += finish()
        }
        return effects
    }

    /// Empties the queue and stops.
    public mutating func clear() -> [Effect] {
        let ending = endIfActive(.stopped)
        queue = []
        order = []
        currentIndex = nil
        state = .idle
        return ending.isEmpty ? [] : ending + [.release]
    }

    /// The next item in play order (wrapping with repeat all); at the end of the queue playback finishes.
    /// Repeat one does not hold a manual next back.
    public mutating func next() -> [Effect] {
        guard !queue.isEmpty else { return [] }
        let position = currentIndex.flatMap { order.firstIndex(of: $0) }
        let hasNext = (position.map { $0 + 1 } ?? 0) < order.count || repeatMode == .all
        guard isActive || hasNext else { return [] }
        consecutiveFailures = 0
        return endIfActive(.skipped) + advance()
    }

    /// More than 3 s into the track: restart it. Otherwise the previous item in play order; at the first
    /// item it wraps with repeat all, else restarts the first.
    public mutating func previous(positionMs: Int) -> [Effect] {
        guard !queue.isEmpty else { return [] }
        consecutiveFailures = 0
        if isActive, let current = currentIndex, positionMs > 3000 {
            return [.end(.skipped), begin(current)]
        }
        let position = currentIndex.flatMap { order.firstIndex(of: $0) } ?? 0
        let target: Int
        if position > 0 {
            target = order[position - 1]
        } else if repeatMode == .all {
            target = order[order.count - 1]
        } else {
            target = order[0]
        }
        return endIfActive(.skipped) + [begin(target)]
    }

    /// playing <-> paused; stopped starts the current item (or the first in order); idle does nothing.
    public mutating func togglePause() -> [Effect] {
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
    public mutating func stop() -> [Effect] {
        guard isActive else { return [] }
        state = .stopped
        return [.end(.stopped), .release]
    }

    public mutating func setRepeat(_ mode: RepeatMode) {
        repeatMode = mode
    }

    /// Turning shuffle on keeps the current item and shuffles the rest after it; off restores queue order.
    public mutating func setShuffle(_ on: Bool) {
        guard on != shuffle else { return }
        shuffle = on
        order = makeOrder(first: currentIndex)
    }

    // MARK: Track outcomes

    /// The track of `generation` played to its end.
    public mutating func trackEnded(generation: Int) -> [Effect] {
        guard generation == self.generation, isActive else { return [] }
        consecutiveFailures = 0
        if repeatMode == .one, let current = currentIndex { return [begin(current)] }
        return advance()
    }

    /// The track of `generation` could not be opened or decoded. Repeat one does not retry it.
    public mutating func trackFailed(generation: Int) -> [Effect] {
        guard generation == self.generation, isActive else { return [] }
        consecutiveFailures += 1
        if consecutiveFailures >= queue.count { return finish() }
        return advance()
    }

    /// The output failed while starting or playing the track of `generation`: stop, as every other track would fail too.
    public mutating func outputFailed(generation: Int) -> [Effect] {
        guard generation == self.generation, isActive else { return [] }
        return finish()
    }

    // MARK: Helpers

    private mutating func begin(_ index: Int) -> Effect {
        generation += 1
        currentIndex = index
        state = .playing
        return .start(TrackStart(index: index, item: queue[index], generation: generation))
    }

    private mutating func endIfActive(_ reason: EndReason) -> [Effect] {
        isActive ? [.end(reason)] : []
    }

    private mutating func advance() -> [Effect] {
        let nextPosition = currentIndex.flatMap { order.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
        if nextPosition < order.count { return [begin(order[nextPosition])] }
        if repeatMode == .all, !order.isEmpty {
            newRound()
            return [begin(order[0])]
        }
        return finish()
    }

    private mutating func finish() -> [Effect] {
        state = queue.isEmpty ? .idle : .stopped
        currentIndex = nil
        return [.queueFinished]
    }

    /// Repeat all with shuffle: a fresh order for each round.
    private mutating func newRound() {
        if shuffle { order = makeOrder(first: nil) }
    }

    private mutating func makeOrder(first: Int?) -> [Int] {
        guard shuffle else { return Array(queue.indices) }
        var rest = queue.indices.filter { $0 != first }
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
