import Foundation
import XZAudio
import XZSystem
import XZPlaybackValues

/// MPD's ReplayGain settings, with its names and defaults (`replaygain_preamp`, `replaygain_missing_preamp`,
/// `replaygain_limit`).
package struct ReplayGainSettings: Sendable, Equatable {
    package var mode: ReplayGainMode
    /// Added to every tag's gain, in dB (-15...15).
    package var preampDB: Double
    /// The gain of a song without ReplayGain tags, in dB (-15...15).
    package var missingPreampDB: Double
    /// Keeps a gain from pushing the tag's peak past full scale.
    package var limit: Bool

    package init(mode: ReplayGainMode = .off, preampDB: Double = 0, missingPreampDB: Double = 0, limit: Bool = true) {
        self.mode = mode
        self.preampDB = preampDB
        self.missingPreampDB = missingPreampDB
        self.limit = limit
    }

    /// The most a gain may change a song's level, in dB either way: tags and config are outside data,
    /// and a gain of 1e308 dB or NaN must not reach the samples as infinity or NaN.
    static let largestGainDB = 60.0

    /// The linear factor of a gain, the gain held to ±`largestGainDB` (NaN: none).
    static func factor(decibels: Double) -> Double {
        pow(10, decibels.clamped(to: -largestGainDB...largestGainDB, nan: 0) / 20)
    }

    /// The linear factor for a song with `tags` (nil or empty: none), as MPD's ReplayGainTuple computes it:
    /// the mode's gain, else the other one; `shuffle` decides what `auto` means.
    package func scale(for tags: ReplayGainTags?, shuffle: Bool) -> Double {
        let mode = self.mode == .auto ? (shuffle ? ReplayGainMode.track : .album) : self.mode
        guard mode != .off else { return 1 }
        let tags = tags ?? ReplayGainTags()
        let chosen: (gain: Double, peak: Double?)?
        switch mode {
        case .album:
            chosen = tags.albumGain.map { ($0, tags.albumPeak) } ?? tags.trackGain.map { ($0, tags.trackPeak) }
        default:
            chosen = tags.trackGain.map { ($0, tags.trackPeak) } ?? tags.albumGain.map { ($0, tags.albumPeak) }
        }
        guard let chosen else { return Self.factor(decibels: missingPreampDB) }
        var scale = Self.factor(decibels: chosen.gain + preampDB)
        // A peak is a tag too: only a finite, positive one limits.
        if limit, let peak = chosen.peak, peak.isFinite, peak > 0, scale * peak > 1 { scale = max(1 / peak, Self.factor(decibels: -Self.largestGainDB)) }
        return scale
    }
}
