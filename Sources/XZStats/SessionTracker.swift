import Foundation

/// One pass through a track, fed with player inputs and free of I/O: it adds up the audio actually
/// heard (forward movement between consecutive ticks while playing; pauses and seek jumps add
/// nothing) and reports the moment the play counts. Repeat-one is a new tracker for every pass.
package struct SessionTracker: Sendable, Equatable {
    /// Something the recorder must write.
    package enum Event: Sendable, Equatable {
        /// The play has just counted; `positionMs` is where in the track the threshold was crossed.
        case counted(positionMs: Int)
        /// Another `rule.checkpointMs` of audio has been heard since the last write.
        case checkpoint
        case ended(PlayEndReason)
    }

    package let rule: PlayCountRule
    package private(set) var durationMs: Int?
    package private(set) var playedMs = 0
    package private(set) var positionMs = 0
    package private(set) var isStarted = false
    package private(set) var isPlaying = false
    /// Where in the track the play counted; nil while it has not.
    package private(set) var countedAtPositionMs: Int?
    /// Nil while the session runs.
    package private(set) var endReason: PlayEndReason?
    /// Played milliseconds at the last event, so checkpoints come every `rule.checkpointMs` of audio.
    private var playedAtLastEvent = 0

    package init(rule: PlayCountRule = .lastFM) {
        self.rule = rule
    }

    package var isCounted: Bool { countedAtPositionMs != nil }
    package var isEnded: Bool { endReason != nil }
    package var thresholdMs: Int? { rule.thresholdMs(durationMs: durationMs) }

    /// A skip: the user moved on before the play counted, having listened at least `skipMinimumMs`.
    /// Errors, stops and quits are never skips.
    package var isSkip: Bool {
        endReason == .skipped && !isCounted && playedMs >= rule.skipMinimumMs
    }

    @discardableResult
    package mutating func handle(_ input: PlayerInput) -> [Event] {
        if isEnded { return [] }
        if case .started(let duration) = input {
            guard !isStarted else { return [] }
            isStarted = true
            isPlaying = true
            durationMs = duration.flatMap { $0 > 0 ? $0 : nil }
            return []
        }
        guard isStarted else { return [] }
        var events: [Event] = []
        switch input {
        case .started:
            break
        case .position(let ms):
            advance(to: ms, events: &events)
        case .seeked(let ms):
            positionMs = max(0, ms)
        case .paused:
            isPlaying = false
        case .resumed:
            isPlaying = true
        case .ended(let reason, let ms):
            // A failed track's last position says nothing about what was heard.
            if reason == .error {
                positionMs = max(0, ms)
            } else {
                advance(to: ms, events: &events)
            }
            isPlaying = false
            endReason = reason
            events.removeAll { $0 == .checkpoint } // the end write carries everything
            events.append(.ended(reason))
        }
        if !events.isEmpty { playedAtLastEvent = playedMs }
        return events
    }

    private mutating func advance(to ms: Int, events: inout [Event]) {
        let step = ms - positionMs
        let from = positionMs
        positionMs = max(0, ms)
        guard isPlaying, step > 0, step <= rule.maxStepMs else { return }
        let before = playedMs
        playedMs += step
        if !isCounted, let threshold = thresholdMs, before < threshold, playedMs >= threshold {
            countedAtPositionMs = from + (threshold - before)
            events.append(.counted(positionMs: from + (threshold - before)))
        }
        if playedMs - playedAtLastEvent >= rule.checkpointMs && events.isEmpty {
            events.append(.checkpoint)
        }
    }
}
