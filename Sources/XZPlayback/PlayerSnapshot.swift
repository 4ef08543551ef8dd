import XZAudio
import XZPlaybackTerms

/// The player's state, read at once under its lock: what `status`, the queue listings and the prompt show.
public struct PlayerSnapshot: Sendable, Equatable {
    public var state: PlayerState
    /// Playing and waiting for a stream's bytes (MPD still says `play`).
    public var isBuffering = false
    public var currentIndex: Int?
    public var positionMs: Int
    public var durationMs: Int?
    public var entries: [QueueEntry]
    public var volume: Int
    public var shuffle: Bool
    /// MPD's options, the only repeat state the player keeps (`repeatMode` is a view of them).
    public var repeats: Bool
    public var single: SingleMode
    public var consume: Bool
    public var replayGainMode: ReplayGainMode
    public var queueVersion: Int
    public var nextIndex: Int?
    public var lyricLineIndex: Int?
    public var lyricText: String?
    /// Tracks that ended with `.error` since the player was made.
    public var failedTracks: Int
    /// The last track error, until cleared (MPD's `error` in `status`).
    public var lastError: String?
    /// Sample rate, bits and channels of the loaded track, and its nominal bitrate in kbit/s.
    public var audioFormat: AudioFormatSummary?
    /// Crossfade and MixRamp (MPD's `xfade`, `mixrampdb`, `mixrampdelay`).
    public var crossfade = CrossfadeSettings()

    public var current: QueueItem? { currentIndex.map { entries[$0].item } }
    public var currentId: Int? { currentIndex.map { entries[$0].id } }
    public var nextId: Int? { nextIndex.map { entries[$0].id } }
    public var queue: [QueueItem] { entries.map(\.item) }
    public var queueLength: Int { entries.count }
    public var repeatMode: RepeatMode { RepeatMode(repeats: repeats, single: single) }

    /// What our own output shows as the state: `buffering` while a stream waits for bytes.
    public var stateText: String { isBuffering && state == .playing ? "buffering" : state.rawValue }
}

/// What `status` reports as `audio` and `bitrate`.
public struct AudioFormatSummary: Sendable, Equatable {
    public var sampleRate: Int
    public var channels: Int
    /// MPD's sample field: "16", "24", "32" or "f" for float.
    public var bits: String
    public var bitrateKbps: Int?

    public init(sampleRate: Int, channels: Int, bits: String = "16", bitrateKbps: Int?) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.bits = bits
        self.bitrateKbps = bitrateKbps
    }

    public init(format: AudioFormat, bitrateKbps: Int?) {
        self.init(sampleRate: format.sampleRate, channels: format.channels,
                  bits: format.sample == .float32 ? "f" : "\(format.bits)", bitrateKbps: bitrateKbps)
    }

    /// MPD's `RATE:BITS:CHANNELS`.
    public var mpdFormat: String { "\(sampleRate):\(bits):\(channels)" }
}
