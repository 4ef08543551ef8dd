import Foundation

/// Why a play session ended, as the player saw it.
package enum PlayEndReason: String, Codable, Sendable, CaseIterable {
    /// Playback reached the end of the track.
    case completed
    /// The user moved on to another song (next, previous, or picked another).
    case skipped
    /// The user stopped playback.
    case stopped
    /// Decoding, reading or audio output failed.
    case error
    /// The program exited while the song played.
    case quit
}

/// What the player tells a session. Positions are in the track, in milliseconds.
package enum PlayerInput: Sendable, Equatable {
    /// A new pass through a track begins at position 0; nil or 0 when the length is unknown.
    case started(durationMs: Int?)
    /// The playhead is at `ms` (the player's regular tick, at most a few seconds apart).
    case position(ms: Int)
    /// The user jumped to `toMs`; the jump itself is not listening.
    case seeked(toMs: Int)
    case paused
    case resumed
    /// The session is over.
    case ended(reason: PlayEndReason, positionMs: Int)
}

/// Last.fm's rule for an honest play count, plus the recorder's checkpoint spacing.
package struct PlayCountRule: Sendable, Equatable {
    /// A track must be longer than this to count at all.
    package var minimumDurationMs = 30_000
    /// A play counts after half the track or this much, whichever is less.
    package var capMs = 240_000
    /// Moving on after less than this much listening is a glance, not a skip.
    package var skipMinimumMs = 5_000
    /// A running session is written at least this often, in played audio.
    package var checkpointMs = 10_000
    /// A forward step larger than this between two ticks is a seek the player did not report.
    package var maxStepMs = 15_000

    package init() {}

    package static let lastFM = PlayCountRule()

    /// Played milliseconds at which a track of `durationMs` counts, or nil when it never can.
    /// An unknown length counts after the cap: having played that long proves it is long enough.
    package func thresholdMs(durationMs: Int?) -> Int? {
        guard let duration = durationMs, duration > 0 else { return capMs }
        guard duration > minimumDurationMs else { return nil }
        return min((duration + 1) / 2, capMs) // "at least half": round an odd half up
    }
}
