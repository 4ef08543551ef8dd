/// A failure of the stats layer, told apart by kind (`error == .noSuchSticker`); the message is the
/// line shown to the user and takes no part in equality.
public struct StatsError: Error, Hashable, CustomStringConvertible, Sendable {
    private enum Code: Hashable, Sendable {
        case noSuchSong, badSince, badArchive, io, noSuchSticker, stickerRefused
    }

    private let code: Code
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    public static func == (a: StatsError, b: StatsError) -> Bool { a.code == b.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// No song, in the catalogue or in past plays, has the key.
    public static let noSuchSong = StatsError(.noSuchSong, "no such song")
    /// A `--since` that is neither a number of days nor a date.
    public static let badSince = StatsError(.badSince, "bad --since")
    /// An import that is not a stats export, or has a malformed line.
    public static let badArchive = StatsError(.badArchive, "not a stats export")
    /// An export that cannot be written.
    public static let io = StatsError(.io, "cannot write the export")
    /// The song has no sticker of that name.
    public static let noSuchSticker = StatsError(.noSuchSticker, "no such sticker")
    /// A statistic XZMusic keeps itself, or a value the sticker does not take.
    public static let stickerRefused = StatsError(.stickerRefused, "sticker refused")

    public static func noSuchSong(_ message: String) -> StatsError { StatsError(.noSuchSong, message) }
    public static func badSince(_ message: String) -> StatsError { StatsError(.badSince, message) }
    public static func badArchive(_ message: String) -> StatsError { StatsError(.badArchive, message) }
    public static func io(_ message: String) -> StatsError { StatsError(.io, message) }
    public static func stickerRefused(_ message: String) -> StatsError { StatsError(.stickerRefused, message) }
}
