import Dispatch
import Foundation
import XZAudio
import XZSystem
import XZLyrics
import XZPlaybackValues

/// Samples and milliseconds: a part's first and last sample, positions in milliseconds.
extension PlaybackEngine {
    /// A part's first sample: a CUE track's exactly from its CD frames, a `rangeid` part's from its milliseconds.
    static func startSample(of range: PlayRange, sampleRate: Int) -> Int {
        range.cdFrames.map { CueSheet.samples(frames: $0.start, sampleRate: sampleRate) }
            ?? LyricTimeline.firstSample(atMs: range.startMs, sampleRate: sampleRate)
    }

    /// The sample after a part's last, by the same rule as `startSample`; nil: the song's end.
    static func endSample(of range: PlayRange, sampleRate: Int) -> Int? {
        if let frames = range.cdFrames { return frames.end.map { CueSheet.samples(frames: $0, sampleRate: sampleRate) } }
        return range.endMs.map { LyricTimeline.firstSample(atMs: $0, sampleRate: sampleRate) }
    }

    /// Exact: floor(sample * 1000 / rate).
    func ms(_ sample: Int, _ track: LoadedTrack) -> Int {
        LyricTimeline.milliseconds(atSample: sample, sampleRate: track.format.sampleRate)
    }

    /// The first sample of the next multiple of 250 ms after `sample`.
    func nextPositionBoundary(after sample: Int, _ track: LoadedTrack) -> Int {
        let step = Self.positionStepMs
        let next = (ms(sample, track) / step + 1) * step
        return LyricTimeline.firstSample(atMs: next, sampleRate: track.format.sampleRate)
    }
}
