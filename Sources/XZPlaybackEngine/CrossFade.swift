import Foundation
import XZAudio
import XZSystem
import XZPlaybackValues

/// MPD's `crossfade`, `mixrampdb` and `mixrampdelay`, and the config's `crossfade_skip_albums` and
/// `crossfade_on_skip`. Plain values, so a state file can keep them.
package struct CrossfadeSettings: Sendable, Equatable {
    /// Seconds the end of one song overlaps the start of the next; 0 joins them gaplessly. Held to
    /// `longestSeconds`, whoever sets it (a client, the state file, the config).
    package var seconds = 0 {
        didSet { seconds = Self.held(seconds) }
    }
    /// The level (dB) at which MixRamp tags say two songs meet.
    package var mixRampDB = 0.0
    /// Seconds taken off the MixRamp overlap; 0, negative or NaN turns MixRamp off (MPD's default is -1).
    package var mixRampDelay = -1.0
    /// No fade between consecutive songs of one album played in order.
    package var skipsAlbums = false
    /// Fade only when the user leaves a song (next, previous, play another); songs that end join gaplessly.
    package var onlyOnSkip = false

    package init(seconds: Int = 0, mixRampDB: Double = 0, mixRampDelay: Double = -1, skipsAlbums: Bool = false,
                onlyOnSkip: Bool = false) {
        self.seconds = Self.held(seconds)
        self.mixRampDB = mixRampDB
        self.mixRampDelay = mixRampDelay
        self.skipsAlbums = skipsAlbums
        self.onlyOnSkip = onlyOnSkip
    }

    /// NaN delays count as equal, so setting `nan` twice is no change.
    package static func == (lhs: CrossfadeSettings, rhs: CrossfadeSettings) -> Bool {
        func same(_ a: Double, _ b: Double) -> Bool { a == b || (a.isNaN && b.isNaN) }
        return lhs.seconds == rhs.seconds && same(lhs.mixRampDB, rhs.mixRampDB) && same(lhs.mixRampDelay, rhs.mixRampDelay)
            && lhs.skipsAlbums == rhs.skipsAlbums && lhs.onlyOnSkip == rhs.onlyOnSkip
    }

    /// The longest fade (a day): MPD takes any 32-bit number, and times the sample rate it must not overflow.
    package static let longestSeconds = 86_400

    private static func held(_ seconds: Int) -> Int { min(max(seconds, 0), longestSeconds) }

    package var isEnabled: Bool { seconds > 0 }
    /// NaN compares false, so `nan` turns MixRamp off as in MPD.
    package var isMixRampEnabled: Bool { mixRampDelay > 0 }

    /// MPD does not fade a song shorter than this.
    static let minimumSongSeconds = 20
    /// How far ahead of a song's end the next one is looked at when MixRamp tags may ask for a longer
    /// overlap than `seconds` (MPD's bound is its audio buffer, some 20 s).
    static let mixRampLookaheadSeconds = 20

    /// Sample frames before the end of a song at which the next one is opened and the overlap decided.
    func lookaheadFrames(rate: Int) -> Int {
        (isMixRampEnabled ? max(seconds, Self.mixRampLookaheadSeconds) : seconds) * rate
    }

    /// MPD's rule: both songs of known length, at least 20 s long and longer than the fade, in one format
    /// (songs of different formats are not resampled to fade; they join as they are).
    func canCrossFade(currentFrames: Int?, nextFrames: Int?, format: AudioFormat, nextFormat: AudioFormat) -> Bool {
        guard isEnabled, format == nextFormat else { return false }
        let minimum = max(Self.minimumSongSeconds * format.sampleRate, seconds * format.sampleRate + 1)
        guard let currentFrames, let nextFrames else { return false }
        return currentFrames >= minimum && nextFrames >= minimum
    }

    /// The overlap in frames and whether the songs are summed at full level (MixRamp) rather than faded.
    /// With MixRamp on and both tags present MPD's overlap is taken from the tags (none when they do not
    /// reach the delay); without the tags it is the plain crossfade.
    func overlap(rate: Int, mixRampStart: String?, mixRampPreviousEnd: String?, gainDB: Double,
                 previousGainDB: Double) -> (frames: Int, sums: Bool) {
        guard isMixRampEnabled, let mixRampStart, let mixRampPreviousEnd else { return (seconds * rate, false) }
        let current = Self.interpolate(mixRampStart, requiredDB: mixRampDB - gainDB)
        let previous = Self.interpolate(mixRampPreviousEnd, requiredDB: mixRampDB - previousGainDB)
        guard current >= 0, previous >= 0, mixRampDelay <= current + previous else { return (0, true) }
        // Tags are outside data: "1e300" seconds or a NaN level must give a frame count, not a trap.
        let frames = Int(clamping: (current + previous - mixRampDelay) * Double(rate), to: 0...Self.mixRampLookaheadSeconds * rate)
        return (frames, true)
    }

    /// MPD's `mixramp_interpolate`: a MixRamp tag is "dB seconds;dB seconds;…" with rising levels; the
    /// seconds at `requiredDB`, interpolated between pairs; -1 when the tag holds no pair.
    static func interpolate(_ ramp: String, requiredDB: Double) -> Double {
        var last: (db: Double, seconds: Double)?
        for pair in ramp.split(separator: ";", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 2, let db = Double(parts[0]), let seconds = Double(parts[1]) else { break }
            if db == requiredDB { return seconds }
            if db < requiredDB {
                last = (db, seconds)
                continue
            }
            guard let last else { return seconds }
            return last.seconds + (requiredDB - last.db) * (seconds - last.seconds) / (db - last.db)
        }
        return -1
    }

    /// The next song continues the album of `current` in order: the same album, and the next track number
    /// when both have one.
    static func continuesAlbum(from current: QueueItem, to next: QueueItem) -> Bool {
        guard let album = current.album, !album.isEmpty, next.album == album else { return false }
        guard let track = current.track, let nextTrack = next.track else { return true }
        return nextTrack == track + 1
    }
}

/// Mixes the end of one song into the start of the next, in the output's sample layout.
enum CrossFadeMix {
    /// Adds `frames` frames of `outgoing` into `incoming`: equal-power gains (cos for the song leaving,
    /// sin for the one coming, so the sum keeps its loudness) at `done` of `total` frames into the fade,
    /// or both at full level when `sums` (MixRamp, as MPD).
    static func mix(into incoming: UnsafeMutableRawPointer, _ outgoing: UnsafeRawPointer, _ sample: SampleFormat,
                    channels: Int, frames: Int, done: Int, total: Int, sums: Bool) {
        let step = Double.pi / 2 / Double(max(total, 1))
        for frame in 0..<frames {
            let angle = Double(done + frame) * step
            let gainIn = sums ? 1 : sin(angle), gainOut = sums ? 1 : cos(angle)
            for channel in 0..<channels {
                let i = frame * channels + channel
                switch sample {
                case .s16:
                    let a = incoming.assumingMemoryBound(to: Int16.self), b = outgoing.assumingMemoryBound(to: Int16.self)
                    let value = (Double(a[i]) * gainIn + Double(b[i]) * gainOut).rounded()
                    a[i] = Int16(min(max(value, -32768), 32767))
                case .s32:
                    let a = incoming.assumingMemoryBound(to: Int32.self), b = outgoing.assumingMemoryBound(to: Int32.self)
                    let value = (Double(a[i]) * gainIn + Double(b[i]) * gainOut).rounded()
                    a[i] = Int32(min(max(value, -2147483648), 2147483647))
                case .float32:
                    let a = incoming.assumingMemoryBound(to: Float.self), b = outgoing.assumingMemoryBound(to: Float.self)
                    a[i] = Float(Double(a[i]) * gainIn + Double(b[i]) * gainOut)
                }
            }
        }
    }
}

/// The next song opened to fade into, and how: what the audio thread hands from one song to the next.
struct Handoff {
    let item: QueueItem
    let decoder: AudioDecoder
    /// Frames of overlap.
    let frames: Int
    let sums: Bool
}

/// Whether and into what the loaded song fades at its end; decided once, when its end comes near.
enum FadePlan {
    case undecided, none
    case planned(Handoff)
}

/// A song fading out under the loaded one.
struct Outgoing {
    let track: LoadedTrack
    let frames: Int
    var done = 0
    let sums: Bool
}
