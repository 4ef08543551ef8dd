/// What changed, in MPD's `idle` words.
package enum IdleSubsystem: String, Sendable, CaseIterable {
    case database, update, storedPlaylist = "stored_playlist", playlist, player, mixer, output, options
    case partition, sticker, subscription, message, neighbor, mount
}
