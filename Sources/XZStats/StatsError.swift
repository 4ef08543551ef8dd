import XZSystem
/// A failure of the stats layer, told apart by kind (`error == .noSuchSticker`); the message is the
/// line shown to the user and takes no part in equality.
public struct StatsError: KindedError {
    public enum Kind: Hashable, Sendable {
        case noSuchSong, badSince, badArchive, io, noSuchSticker, stickerRefused
    }

    public let kind: Kind
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    /// No song, in the catalogue or in past plays, has the key.
    public static let noSuchSong = StatsError(kind: .noSuchSong, message: "no such song")
    /// A `--since` that is neither a number of days nor a date.
    public static let badSince = StatsError(kind: .badSince, message: "bad --since")
    /// An import that is not a stats export, or has a malformed line.
    public static let badArchive = StatsError(kind: .badArchive, message: "not a stats export")
    /// An export that cannot be written.
    public static let io = StatsError(kind: .io, message: "cannot write the export")
    /// The song has no sticker of that name.
    public static let noSuchSticker = StatsError(kind: .noSuchSticker, message: "no such sticker")
    /// A statistic XZMusic keeps itself, or a value the sticker does not take.
    public static let stickerRefused = StatsError(kind: .stickerRefused, message: "sticker refused")
}
