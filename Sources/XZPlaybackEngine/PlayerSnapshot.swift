import XZAudio
import XZPlaybackValues

/// The player's state, read at once under its lock: what `status`, the queue listings and the prompt show.
package struct PlayerSnapshot: Sendable, Equatable {
    package var state: PlayerState
    /// Playing and waiting for a stream's bytes (MPD still says `play`).
    package var isBuffering = false
    package var currentIndex: Int?
    package var positionMs: Int
    package var durationMs: Int?
    package var entries: [QueueEntry]
    package var volume: Int
    package var shuffle: Bool
    /// MPD's options, the only repeat state the player keeps (`repeatMode` is a view of them).
    package var repeats: Bool
    package var single: SingleMode
    package var consume: Bool
    package var replayGainMode: ReplayGainMode
    package var queueVersion: Int
    package var nextIndex: Int?
    package var lyricLineIndex: Int?
    package var lyricText: String?
    /// Tracks that ended with `.error` since the player was made.
    package var failedTracks: Int
    /// The last track error, until cleared (MPD's `error` in `status`).
    package var lastError: String?
    /// Sample rate, bits and channels of the loaded track, and its nominal bitrate in kbit/s.
    package var audioFormat: AudioFormatSummary?
    /// Crossfade and MixRamp (MPD's `xfade`, `mixrampdb`, `mixrampdelay`).
    package var crossfade = CrossfadeSettings()

    package var current: QueueItem? { currentIndex.map { entries[$0].item } }
    package var currentId: Int? { currentIndex.map { entries[$0].id } }
    package var nextId: Int? { nextIndex.map { entries[$0].id } }
    package var queue: [QueueItem] { entries.map(\.item) }
    package var queueLength: Int { entries.count }
    package var repeatMode: RepeatMode { RepeatMode(repeats: repeats, single: single) }

    /// What our own output shows as the state: `buffering` while a stream waits for bytes.
    package var stateText: String { isBuffering && state == .playing ? "buffering" : state.rawValue }
}

/// What `status` reports as `audio` and `bitrate`.
package struct AudioFormatSummary: Sendable, Equatable {
    package var sampleRate: Int
    package var channels: Int
    /// MPD's sample field: "16", "24", "32" or "f" for float.
    package var bits: String
    package var bitrateKbps: Int?

    package init(sampleRate: Int, channels: Int, bits: String = "16", bitrateKbps: Int?) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.bits = bits
        self.bitrateKbps = bitrateKbps
    }

    package init(format: AudioFormat, bitrateKbps: Int?) {
        self.init(sampleRate: format.sampleRate, channels: format.channels,
                  bits: format.sample == .float32 ? "f" : "\(format.bits)", bitrateKbps: bitrateKbps)
    }

    /// MPD's `RATE:BITS:CHANNELS`.
    package var mpdFormat: String { "\(sampleRate):\(bits):\(channels)" }
}
