import XZPlaybackEngine
import XZPlaybackValues
import XZSystem

extension ReplayGainSettings {
    /// The config file's ReplayGain keys, with MPD's names: `replay_gain_mode`, `replaygain_preamp`,
    /// `replaygain_missing_preamp` (dB, -15 to 15) and `replaygain_limit` (yes/no).
    package init(config: ConfigFile) throws {
        self.init()
        if let mode = try config.text(.replayGainMode) { self.mode = ReplayGainMode(rawValue: mode) ?? .off }
        if let decibels = try config.number(.replayGainPreamp) { preampDB = decibels }
        if let decibels = try config.number(.replayGainMissingPreamp) { missingPreampDB = decibels }
        if let limit = try config.yesNo(.replayGainLimit) { self.limit = limit }
    }
}
