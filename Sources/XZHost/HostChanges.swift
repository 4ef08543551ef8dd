/// What changed in a host, told to everyone who observes it (MPD clients in `idle`, a prompt's status line).
public struct HostChanges: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Songs of the catalogue.
    public static let database = HostChanges(rawValue: 1 << 0)
    /// A folder update started or finished.
    public static let update = HostChanges(rawValue: 1 << 1)
    public static let storedPlaylists = HostChanges(rawValue: 1 << 2)
    /// The queue's songs, order or priorities.
    public static let queue = HostChanges(rawValue: 1 << 3)
    /// Play state, current song, position jumps.
    public static let playback = HostChanges(rawValue: 1 << 4)
    public static let volume = HostChanges(rawValue: 1 << 5)
    /// Repeat, random, single, consume, ReplayGain mode.
    public static let options = HostChanges(rawValue: 1 << 6)
    public static let output = HostChanges(rawValue: 1 << 7)
    /// Likes, ratings and other song stickers.
    public static let stickers = HostChanges(rawValue: 1 << 8)
    /// A client subscribed to or left a message channel.
    public static let subscriptions = HostChanges(rawValue: 1 << 9)
    /// A client sent a message; only its channel's subscribers hear of it.
    public static let messages = HostChanges(rawValue: 1 << 10)
}
