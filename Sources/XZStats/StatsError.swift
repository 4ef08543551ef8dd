import XZSystem
/// A failure of the stats layer, told apart by kind (`error == .noSuchSticker`); the message is the
/// line shown to the user and takes no part in equality.
package struct StatsError: KindedError {
    package enum Kind: Hashable, Sendable {
        case noSuchSong, badSince, badArchive, io, noSuchSticker, stickerRefused
    }

    package let kind: Kind
    package var message: String

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    /// No song, in the catalogue or in past plays, has the key.
    package static let noSuchSong = StatsError(kind: .noSuchSong, message: "no such song")
    /// A `--since` that is neither a number of days nor a date.
    package static let badSince = StatsError(kind: .badSince, message: "bad --since")
    /// An import that is not a stats export, or has a malformed line.
    package static let badArchive = StatsError(kind: .badArchive, message: "not a stats export")
    /// An export that cannot be written.
    package static let io = StatsError(kind: .io, message: "cannot write the export")
    /// The song has no sticker of that name.
    package static let noSuchSticker = StatsError(kind: .noSuchSticker, message: "no such sticker")
    /// A statistic XZMusic keeps itself, or a value the sticker does not take.
    package static let stickerRefused = StatsError(kind: .stickerRefused, message: "sticker refused")
}
