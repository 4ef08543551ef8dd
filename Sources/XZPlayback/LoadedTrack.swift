import XZAudio
import XZLyrics

/// The track on the audio thread, with its clock and lyric state.
final class LoadedTrack {
    let start: PlayerStateMachine.TrackStart
    let decoder: AudioDecoder
    let format: AudioFormat
    /// What the output takes for this track.
    var outputFormat: AudioFormat
    /// The ReplayGain scale of this track under the settings it started with.
    var replayGainScale = 1.0
    /// The growing file a stream plays from; nil for a plain file.
    let source: GrowingFile?
    /// A stream waiting for bytes (its first second, or after catching up with the download).
    var waiting = false
    /// `.started` has gone out (a stream's waits until its first second is in).
    var announced = false
    var durationMs: Int?
    /// Heard position in samples.
    var positionSample = 0
    var nextPositionSample = 0
    var tracker: LyricSyncTracker?
    var nextLyricSample: Int?
    var lyricsPendingAfterSeek = false
    var formatSummary: AudioFormatSummary?
    /// What a stream said of itself last, as its queue entry shows it.
    var streamTags: StreamTags?

    init(start: PlayerStateMachine.TrackStart, decoder: AudioDecoder, outputFormat: AudioFormat, source: GrowingFile? = nil) {
        self.start = start
        self.decoder = decoder
        self.source = source
        self.format = decoder.format
        self.outputFormat = outputFormat
    }
}

/// Keeps unpaced writes (null driver, realtime files) in step with the wall clock: the next chunk is
/// written only once the clock has reached the end of what was written, so audio is at most one chunk ahead.
struct Pacer {
    /// Behind the clock by more than this (a stall, a gap between tracks) starts a new timeline instead of bursting.
    static let slackNs = 200_000_000.0
    private var anchorNs: UInt64?
    private var audioNs = 0.0

    mutating func reset() {
        anchorNs = nil
    }

    /// Nanoseconds to wait before the next write.
    mutating func delay(nowNs: UInt64) -> UInt64 {
        guard let anchor = anchorNs, nowNs >= anchor else {
            anchorNs = nowNs
            audioNs = 0
            return 0
        }
        let elapsed = Double(nowNs - anchor)
        if elapsed > audioNs + Self.slackNs {
            anchorNs = nowNs
            audioNs = 0
            return 0
        }
        return audioNs > elapsed ? UInt64(audioNs - elapsed) : 0
    }

    mutating func didWrite(frames: Int, rate: Int) {
        audioNs += Double(frames) * 1e9 / Double(max(rate, 1))
    }
}
