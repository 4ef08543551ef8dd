/// MPD's `replay_gain_mode`: which gain of a song's tags applies; `auto` is the track gain in random
/// mode (songs out of album order), else the album gain.
package enum ReplayGainMode: String, Sendable, Equatable, CaseIterable {
    case off, track, album, auto
}
