import XZPlayback
import XZSystem

extension ReplayGainSettings {
    /// The config file's ReplayGain keys, with MPD's names: `replay_gain_mode`, `replaygain_preamp`,
    /// `replaygain_missing_preamp` (dB, -15 to 15) and `replaygain_limit` (yes/no).
    init(config: ConfigFile) throws {
        self.init()
        for entry in config.entries {
            func decibels() throws -> Double {
                guard let value = Double(entry.value), (-15...15).contains(value) else {
                    throw config.error(entry, "\(entry.key) must be a number of dB from -15 to 15")
                }
                return value
            }
            switch entry.key {
            case "replay_gain_mode":
                guard let mode = ReplayGainMode(rawValue: entry.value) else {
                    throw config.error(entry, "replay_gain_mode must be off, track, album or auto")
                }
                self.mode = mode
            case "replaygain_preamp": preampDB = try decibels()
            case "replaygain_missing_preamp": missingPreampDB = try decibels()
            case "replaygain_limit": limit = try config.yesNo(entry)
            default: continue
            }
        }
    }
}
