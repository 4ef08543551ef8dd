/// What changed in a host, told to everyone who observes it (MPD clients in `idle`, a prompt's status line).
package struct HostChanges: OptionSet, Sendable, Hashable {
    package let rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Songs of the catalogue.
    package static let database = HostChanges(rawValue: 1 << 0)
    /// A folder update started or finished.
    package static let update = HostChanges(rawValue: 1 << 1)
    package static let storedPlaylists = HostChanges(rawValue: 1 << 2)
    /// The queue's songs, order or priorities.
    package static let queue = HostChanges(rawValue: 1 << 3)
    /// Play state, current song, position jumps.
    package static let playback = HostChanges(rawValue: 1 << 4)
    package static let volume = HostChanges(rawValue: 1 << 5)
    /// Repeat, random, single, consume, ReplayGain mode.
    package static let options = HostChanges(rawValue: 1 << 6)
    package static let output = HostChanges(rawValue: 1 << 7)
    /// Likes, ratings and other song stickers.
    package static let stickers = HostChanges(rawValue: 1 << 8)
    /// A client subscribed to or left a message channel.
    package static let subscriptions = HostChanges(rawValue: 1 << 9)
    /// A client sent a message; only its channel's subscribers hear of it.
    package static let messages = HostChanges(rawValue: 1 << 10)
}
