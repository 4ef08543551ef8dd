import Dispatch
import Foundation
import XZAudio
import XZSystem
import XZLyrics
import XZPlaybackValues

/// A seek inside the loaded track.
extension PlaybackEngine {
    func seek(_ target: SeekTarget) {
        guard let track else { return }
        let rate = track.format.sampleRate
        let length = track.decoder.lengthInSamples
        var sample: Int
        switch target {
        case .absolute(let ms):
            sample = LyricTimeline.firstSample(atMs: max(0, ms), sampleRate: rate)
        case .relative(let ms):
            sample = max(0, track.positionSample + ms * rate / 1000)
        case .percent(let percent):
            guard let length else {
                emit(.notice("Cannot seek to \(percent)% in \(track.start.item.path): its length is unknown."))
                return
            }
            sample = Int(Double(length) * min(max(percent, 0), 100) / 100)
        }
        if let length { sample = min(sample, length) }
        // The place may not have arrived: the clock waits there until a second of audio has.
        if let source = track.source, !source.isComplete { startWaiting(track) }
        do {
            try track.decoder.seek(toSample: sample)
        } catch {
            if interrupted() { return }
            let message = (error as? AudioError)?.message ?? "\(error)"
            emit(.notice("Cannot seek in \(track.start.item.path): \(message)"))
            return
        }
        track.positionSample = track.decoder.positionInSamples
        track.heardAtNs = Self.nowNs()
        // A seek ends a fade, and the place to fade into the next song comes anew.
        outgoing = nil
        fadePlan = .undecided
        pacer.reset()
        track.nextPositionSample = nextPositionBoundary(after: track.positionSample, track)
        publish()
        emit(.seeked(ms: ms(track.positionSample, track)))
        emit(.changed(.playback))
        if paused {
            // No lyric event while paused; the line at the new place comes on resume.
            track.lyricsPendingAfterSeek = track.tracker != nil
            track.nextLyricSample = track.tracker?.timeline.nextChange(afterSample: track.positionSample, sampleRate: rate)
        } else {
            updateLyrics(track, seeked: true)
        }
    }
}
