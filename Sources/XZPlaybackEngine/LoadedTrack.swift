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
    /// The output was told this song started (at its first samples, so at the gapless boundary).
    var startTold = false
    var durationMs: Int?
    /// Heard position in samples.
    var positionSample = 0
    /// When `positionSample` was heard (monotonic clock).
    var heardAtNs: UInt64 = 0
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

/// The clock of an output that takes audio at once (null driver, realtime files), kept as a sound card's:
/// a whole period is handed over in one write and is then held until the wall clock has played it, so the
/// player sleeps once per period, until the absolute moment the held audio runs out (`deadline`).
struct Pacer {
    /// Behind the clock by more than this (a stall, a gap between tracks) starts a new timeline instead of bursting.
    static let slackNs = 200_000_000.0
    /// When the timeline's first frame was heard.
    private var anchorNs: UInt64?
    /// The length of the audio written on this timeline.
    private var audioNs = 0.0
    /// What was held when playing paused; the clock stands still until `resume`.
    private var pausedHeldNs: Double?

    /// Drops what is held (a seek, a skip, a stop): the next write starts a new timeline.
    mutating func reset() {
        anchorNs = nil
        audioNs = 0
        pausedHeldNs = nil
    }

    /// When the audio written so far will all have been heard; nil when nothing is held (or the clock is paused).
    func deadline(nowNs: UInt64) -> UInt64? {
        guard pausedHeldNs == nil, let anchorNs else { return nil }
        let end = anchorNs &+ UInt64(audioNs)
        return end > nowNs ? end : nil
    }

    /// Frames written but not yet heard at `nowNs`.
    func heldFrames(nowNs: UInt64, rate: Int) -> Int {
        Int((heldNs(nowNs: nowNs) * Double(max(rate, 1)) / 1e9).rounded(.up))
    }

    private func heldNs(nowNs: UInt64) -> Double {
        if let pausedHeldNs { return pausedHeldNs }
        guard let anchorNs else { return 0 }
        return nowNs >= anchorNs ? max(0, audioNs - Double(nowNs - anchorNs)) : audioNs
    }

    /// True when a write now goes on with the timeline; false when it starts a new one (nothing written yet,
    /// or the writer fell behind the clock by more than the slack).
    func continues(nowNs: UInt64) -> Bool {
        guard let anchorNs, nowNs >= anchorNs else { return false }
        return Double(nowNs - anchorNs) <= audioNs + Self.slackNs
    }

    /// Called as a write is handed over.
    mutating func willWrite(nowNs: UInt64) {
        pausedHeldNs = nil
        guard !continues(nowNs: nowNs) else { return }
        anchorNs = nowNs
        audioNs = 0
    }

    mutating func didWrite(frames: Int, rate: Int) {
        audioNs += Double(frames) * 1e9 / Double(max(rate, 1))
    }

    /// Stops the clock with what it holds.
    mutating func pause(nowNs: UInt64) {
        guard pausedHeldNs == nil, anchorNs != nil else { return }
        pausedHeldNs = heldNs(nowNs: nowNs)
    }

    /// Starts the clock again: what was held plays first.
    mutating func resume(nowNs: UInt64) {
        guard let held = pausedHeldNs else { return }
        pausedHeldNs = nil
        anchorNs = nowNs
        audioNs = held
    }
}
