import XZSystem

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
