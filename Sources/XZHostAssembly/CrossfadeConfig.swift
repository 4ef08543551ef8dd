import XZPlaybackEngine
import XZSystem

extension CrossfadeSettings {
    /// The config's crossfade keys, our additions to MPD's crossfade (which clients set over the protocol):
    /// `crossfade_skip_albums` (no fade between consecutive songs of one album played in order) and
    /// `crossfade_on_skip` (fade only when the user skips; songs that end join gaplessly), yes/no, both no
    /// by default. The other settings are kept as they are.
    package func reading(_ config: ConfigFile) throws -> CrossfadeSettings {
        var settings = self
        if let skipsAlbums = try config.yesNo(.crossfadeSkipAlbums) { settings.skipsAlbums = skipsAlbums }
        if let onlyOnSkip = try config.yesNo(.crossfadeOnSkip) { settings.onlyOnSkip = onlyOnSkip }
        return settings
    }
}
