import Dispatch
import Foundation
import XZAudio
import XZSystem
import XZLyrics
import XZPlaybackValues

/// How a track ends: reported (damage first), retired to fade out, or failed.
extension PlaybackEngine {
    /// Reports the end of the loaded track (damage first, if any) and drops it.
    func endTrack(_ reason: EndReason) {
        guard let track else { return }
        self.track = nil
        fadePlan = .undecided
        track.source?.release()
        publish()
        reportEnd(track, reason, positionMs: ms(track.positionSample, track))
    }

    private func reportEnd(_ track: LoadedTrack, _ reason: EndReason, positionMs: Int) {
        if let report = track.decoder.damageReport { emit(.notice("\(track.start.item.path): \(report)")) }
        emit(.ended(track.start.item, reason: reason, positionMs: positionMs))
    }

    /// Reports the end of the loaded track as `endTrack` does but keeps its decoder, to fade out under the
    /// next song. A song fading out at its end is reported as played through.
    func retire(_ reason: EndReason) -> LoadedTrack? {
        guard let track else { return nil }
        self.track = nil
        fadePlan = .undecided
        publish()
        let heard = ms(track.positionSample, track)
        reportEnd(track, reason, positionMs: reason == .completed ? max(heard, track.durationMs ?? 0) : heard)
        return track
    }

    /// One `.error` naming the file, `.ended(.error)`, then whatever the machine does next (usually the next track).
    /// With `outputBroken` the queue stops instead, rather than failing every remaining track the same way.
    func fail(_ start: PlayerStateMachine.TrackStart, positionMs: Int, _ error: Error, outputBroken: Bool = false) {
        var file = start.item.path
        var message = "\(error)"
        if let error = error as? AudioError {
            file = error.file
            message = error.message
        } else if let error = error as? PlaybackError {
            message = error.message
        }
        emit(.error(file: file, message: message))
        core.withLock { $0.lastError = "\(file): \(message)" }
        if let track, track.start.generation == start.generation {
            endTrack(.error)
        } else if let pending, pending.start.generation == start.generation {
            self.pending = nil
            pending.source.release()
            emit(.ended(start.item, reason: .error, positionMs: positionMs))
        } else {
            emit(.ended(start.item, reason: .error, positionMs: positionMs))
        }
        core.withLock { core in
            core.failedTracks += 1
            // Appended: commands already waiting were issued before this transition.
            let effects = outputBroken ? core.machine.outputFailed(generation: start.generation)
                : core.machine.trackFailed(generation: start.generation)
            _ = core.enqueue(effects)
        }
    }
}
