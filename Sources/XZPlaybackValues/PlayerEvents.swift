/// idle: empty queue. stopped: a queue, nothing playing. playing / paused: a track is loaded.
package enum PlayerState: String, Sendable, Equatable {
    case idle, playing, paused, stopped

    /// Playing or paused: a track is loaded.
    @inlinable package var isLoaded: Bool { self == .playing || self == .paused }
}

/// The prompt's words for MPD's `repeat` and `single`, which are what the player stores: `off` is no
/// repeat, `one` is repeat with single on (the same song again), `all` is repeat without it. A view only:
/// `init(repeats:single:)` reads it from MPD's options, `repeats` and `single` give them back.
package enum RepeatMode: String, Sendable, Equatable, CaseIterable {
    case off, one, all

    /// Single `oneshot` with repeat reads as `all`: it stops after one song only once.
    @inlinable package init(repeats: Bool, single: SingleMode) {
        self = !repeats ? .off : single == .on ? .one : .all
    }

    @inlinable package var repeats: Bool { self != .off }
    @inlinable package var single: SingleMode { self == .one ? .on : .off }
}

package enum EndReason: String, Sendable, Equatable {
    /// Played to its end.
    case completed
    /// Left for another track (next, previous, play, removal).
    case skipped
    /// stop() or clearQueue().
    case stopped
    /// shutdown() while the track was still loaded: the program is leaving.
    case shutdown
    /// Could not be opened or decoded; an `.error` event came first.
    case error
}

package enum PlayerEvent: Sendable, Equatable {
    /// The track is open and its audio is about to go out. Not sent for a track that cannot be opened.
    case started(QueueItem, durationMs: Int?)
    /// Every 250 ms of audio (at exact multiples of 250 ms) while playing.
    case position(ms: Int)
    case paused(ms: Int)
    case resumed(ms: Int)
    case seeked(ms: Int)
    /// Playing, but the bytes to go on have not arrived: the clock stands still (no position runs ahead,
    /// no listening time accrues, lyrics hold) until `.buffered`. Not an error.
    case buffering(ms: Int)
    /// Enough has arrived again; audio goes on from `ms`.
    case buffered(ms: Int)
    /// Every started track ends exactly once; a track that failed to open ends with `.error` and position 0.
    case ended(QueueItem, reason: EndReason, positionMs: Int)
    /// A track could not be opened or decoded (or the output refused it); `.ended(.error)` follows.
    case error(file: String, message: String)
    /// Something worth telling the user that is no failure: output fallback, damaged audio skipped,
    /// unreadable lyrics, a seek that could not be done.
    case notice(String)
    /// The audio position crossed `timeMs` of line `lineIndex` (or a seek landed inside it).
    case lyric(lineIndex: Int, timeMs: Int, positionMs: Int, text: String)
    /// The queue ran out (repeat off); playback has stopped and the output is closed.
    case queueFinished
    /// With repeat on, every track of a whole pass of the queue failed: playback has stopped rather than
    /// cycle through them again, and the output is closed.
    case queueUnplayable
    /// What a command or a track's outcome changed in the player's state, sent as soon as it changed (before
    /// the events of the audio it sets going): what MPD's `idle` reports.
    case changed(PlayerChanges)
}

/// The parts of the player's state an action changed, in MPD's `idle` subsystems.
package struct PlayerChanges: OptionSet, Sendable, Hashable {
    package let rawValue: Int

    @inlinable package init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The queue's contents, order or priorities (MPD's `playlist`).
    package static let queue = PlayerChanges(rawValue: 1 << 0)
    /// Playing, paused or stopped, the current song, a seek, waiting for a stream's bytes (MPD's `player`).
    package static let playback = PlayerChanges(rawValue: 1 << 1)
    /// The volume (MPD's `mixer`).
    package static let volume = PlayerChanges(rawValue: 1 << 2)
    /// repeat, random, single, consume, the ReplayGain mode, crossfade or MixRamp (MPD's `options`).
    package static let options = PlayerChanges(rawValue: 1 << 3)
}
