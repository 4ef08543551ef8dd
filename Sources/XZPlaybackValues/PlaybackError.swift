import XZSystem

/// Why the player, an output or a playback argument failed: a kind to match (`error == .outputFormatRefused`,
/// `catch PlaybackError.outputFailed`) and the one line users see.
package struct PlaybackError: KindedError {
    package enum Kind: Hashable, Sendable {
        case outputFailed, outputFormatRefused, invalidOutput, invalidSeekTarget, streamFailed, noAudio
    }

    package let kind: Kind
    /// What went wrong, in one line.
    package var message: String

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    /// The output cannot be opened or stopped taking audio: every track would fail, so the queue stops.
    package static let outputFailed = PlaybackError(kind: .outputFailed, message: "")
    /// An output that works cannot take this track's format (a WAV file already holding another): the
    /// player fails that track alone and goes on.
    package static let outputFormatRefused = PlaybackError(kind: .outputFormatRefused, message: "")
    /// An output spec that cannot be read.
    package static let invalidOutput = PlaybackError(kind: .invalidOutput, message: "")
    /// A seek position that cannot be read.
    package static let invalidSeekTarget = PlaybackError(kind: .invalidSeekTarget, message: "")
    /// A URL that cannot be played here, or whose download failed before its audio began.
    package static let streamFailed = PlaybackError(kind: .streamFailed, message: "")
    /// A track that ended having less than half a second of audio from start to end (cut short, or empty): a
    /// failure like one that cannot be decoded, never a play.
    package static let noAudio = PlaybackError(kind: .noAudio, message: "")

    /// The message, or the kind's name for a bare kind.
    package var description: String { message.isEmpty ? "PlaybackError.\(kind)" : message }
}
