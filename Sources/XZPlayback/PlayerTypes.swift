import XZSystem
import XZAudio

/// One entry of the play queue. Only `path` is needed to play; the rest is for display and stats.
public struct QueueItem: Sendable, Equatable {
    public var songId: Int64?
    public var songKey: String?
    public var path: String
    public var title: String
    public var singer: String
    public var album: String?
    public var track: Int?
    public var year: Int?
    /// From the catalogue; the decoder's exact length wins once the file is open.
    public var durationMs: Int?
    /// An LRC file to sync while this item plays.
    public var lyricsPath: String?
    /// Synced lyrics kept in the library (fetched), for an item without an LRC file.
    public var lyricsText: String?
    /// Per-song shift of the lyrics; positive shows them sooner (as LRC `[offset:]`).
    public var lyricsAdjustmentMs: Int
    /// Gains measured by a loudness scan, for a song whose tags carry none; nil: the file's tags decide.
    public var replayGain: ReplayGainTags?
    /// The part of the song to play (MPD's `rangeid`); nil: all of it.
    public var range: PlayRange?

    public init(songId: Int64? = nil, songKey: String? = nil, path: String, title: String = "", singer: String = "",
                album: String? = nil, track: Int? = nil, year: Int? = nil,
                durationMs: Int? = nil, lyricsPath: String? = nil, lyricsAdjustmentMs: Int = 0,
                replayGain: ReplayGainTags? = nil) {
        self.replayGain = replayGain
        self.album = album
        self.track = track
        self.year = year
        self.songId = songId
        self.songKey = songKey
        self.path = path
        self.title = title
        self.singer = singer
        self.durationMs = durationMs
        self.lyricsPath = lyricsPath
        self.lyricsAdjustmentMs = lyricsAdjustmentMs
    }

    /// An http(s) URL, played through the player's stream opener rather than from a file.
    public var isStream: Bool { QueueItem.isStreamURL(path) }

    public static func isStreamURL(_ text: String) -> Bool {
        // Most names are paths: ruled out by their first byte, before any copy of the head.
        guard let first = text.utf8.first, first | 0x20 == UInt8(ascii: "h") else { return false }
        let head = text.utf8.prefix(8).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return head.starts(with: "http://".utf8) || head.starts(with: "https://".utf8)
    }
}

/// Gives the bytes of a stream item (see `QueueItem.isStream`) as a file that fills while it plays. Called on
/// the audio thread when the item starts, so it must return at once and fetch in the background; the player
/// calls `release()` on the file when it is done with it.
public typealias StreamOpener = @Sendable (QueueItem) throws -> GrowingFile

/// idle: empty queue. stopped: a queue, nothing playing. playing / paused: a track is loaded.
public enum PlayerState: String, Sendable, Equatable {
    case idle, playing, paused, stopped

    /// Playing or paused: a track is loaded.
    public var isLoaded: Bool { self == .playing || self == .paused }
}

/// The prompt's words for MPD's `repeat` and `single`, which are what the player stores: `off` is no
/// repeat, `one` is repeat with single on (the same song again), `all` is repeat without it. A view only:
/// `init(repeats:single:)` reads it from MPD's options, `repeats` and `single` give them back.
public enum RepeatMode: String, Sendable, Equatable, CaseIterable {
    case off, one, all

    /// Single `oneshot` with repeat reads as `all`: it stops after one song only once.
    public init(repeats: Bool, single: SingleMode) {
        self = !repeats ? .off : single == .on ? .one : .all
    }

    public var repeats: Bool { self != .off }
    public var single: SingleMode { self == .one ? .on : .off }
}

public enum EndReason: String, Sendable, Equatable {
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

public enum PlayerEvent: Sendable, Equatable {
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
public struct PlayerChanges: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The queue's contents, order or priorities (MPD's `playlist`).
    public static let queue = PlayerChanges(rawValue: 1 << 0)
    /// Playing, paused or stopped, the current song, a seek, waiting for a stream's bytes (MPD's `player`).
    public static let playback = PlayerChanges(rawValue: 1 << 1)
    /// The volume (MPD's `mixer`).
    public static let volume = PlayerChanges(rawValue: 1 << 2)
    /// repeat, random, single, consume, the ReplayGain mode, crossfade or MixRamp (MPD's `options`).
    public static let options = PlayerChanges(rawValue: 1 << 3)
}

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

/// Why the player, an output or a playback argument failed: a kind to match (`error == .outputFormatRefused`,
/// `catch PlaybackError.outputFailed`) and the one line users see.
public struct PlaybackError: KindedError {
    public enum Kind: Hashable, Sendable {
        case outputFailed, outputFormatRefused, invalidOutput, invalidSeekTarget, streamFailed, noAudio
    }

    public let kind: Kind
    /// What went wrong, in one line.
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    /// The output cannot be opened or stopped taking audio: every track would fail, so the queue stops.
    public static let outputFailed = PlaybackError(kind: .outputFailed, message: "")
    /// An output that works cannot take this track's format (a WAV file already holding another): the
    /// player fails that track alone and goes on.
    public static let outputFormatRefused = PlaybackError(kind: .outputFormatRefused, message: "")
    /// An output spec that cannot be read.
    public static let invalidOutput = PlaybackError(kind: .invalidOutput, message: "")
    /// A seek position that cannot be read.
    public static let invalidSeekTarget = PlaybackError(kind: .invalidSeekTarget, message: "")
    /// A URL that cannot be played here, or whose download failed before its audio began.
    public static let streamFailed = PlaybackError(kind: .streamFailed, message: "")
    /// A track that ended having less than half a second of audio from start to end (cut short, or empty): a
    /// failure like one that cannot be decoded, never a play.
    public static let noAudio = PlaybackError(kind: .noAudio, message: "")

    /// The message, or the kind's name for a bare kind.
    public var description: String { message.isEmpty ? "PlaybackError.\(kind)" : message }
}
