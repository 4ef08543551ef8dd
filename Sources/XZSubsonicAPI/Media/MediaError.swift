import XZSystem

/// A media request the transport answers with an HTTP status rather than an API error document.
package struct MediaError: KindedError {
    package enum Kind: Hashable, Sendable {
        /// No byte of the file lies in the `Range` asked for: 416 with `Content-Range: bytes */fileSize`.
        case rangeNotSatisfiable
    }

    package let kind: Kind
    package var message: String
    /// The whole file's size, for the 416's `Content-Range`.
    package var fileSize: Int64 = 0

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    package static let rangeNotSatisfiable = MediaError(kind: .rangeNotSatisfiable, message: "requested range not satisfiable")

    package static func rangeNotSatisfiable(fileSize: Int64) -> MediaError {
        var error = rangeNotSatisfiable
        error.fileSize = fileSize
        return error
    }
}

extension SubsonicError {
    /// Past `SubsonicSettings.maxTranscodes` running at once: the spec's generic error (code 0), which a
    /// transport may send as HTTP 429 instead.
    package static let tooManyTranscodes = SubsonicError(kind: .generic, message: "too many transcodes running; try again later")

    /// Whether this is `tooManyTranscodes` (its kind alone is code 0, shared by every generic error).
    package var isTooManyTranscodes: Bool { kind == .generic && message == Self.tooManyTranscodes.message }
}
