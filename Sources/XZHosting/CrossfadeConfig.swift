import XZPlayback
import XZSystem

extension CrossfadeSettings {
    /// The config's crossfade keys, our additions to MPD's crossfade (which clients set over the protocol):
    /// `crossfade_skip_albums` (no fade between consecutive songs of one album played in order) and
    /// `crossfade_on_skip` (fade only when the user skips; songs that end join gaplessly), yes/no, both no
    /// by default. The other settings are kept as they are.
    func reading(_ config: ConfigFile) throws -> CrossfadeSettings {
        var settings = self
        for entry in config.entries {
            switch entry.key {
            case "crossfade_skip_albums": settings.skipsAlbums = try config.yesNo(entry)
            case "crossfade_on_skip": settings.onlyOnSkip = try config.yesNo(entry)
            default: continue
            }
        }
        return settings
    }
}

extension ConfigFile {
    /// A yes/no key's value (also true/false, on/off, 1/0).
    func yesNo(_ entry: Entry) throws(SystemError) -> Bool {
        switch entry.value.lowercased() {
        case "yes", "true", "on", "1": return true
        case "no", "false", "off", "0": return false
        default: throw error(entry, "\(entry.key) must be yes or no")
        }
    }
}
