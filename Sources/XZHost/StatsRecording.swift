import Foundation
import XZSystem
import XZCatalogue
import XZPlayback
import XZStats

/// Feeds a player's events to the play-session recorder, on one serial queue (never the audio thread).
/// Songs played from a path are keyed "file:<path>", as a folder scan would key them.
final class StatsRecording: Sendable {
    private let recorder: PlaySessionRecorder
    private let queue = DispatchQueue(label: "xzmusic.stats")
    private let report: @Sendable (String) -> Void
    private let reportedFailure = Mutex(false)

    /// `report` hears, once, that statistics could not be saved.
    init(database: LibraryDatabase, report: @escaping @Sendable (String) -> Void) {
        recorder = PlaySessionRecorder(database: database)
        self.report = report
    }

    func receive(_ event: PlayerEvent) {
        queue.async { self.record(event) }
    }

    /// Writes everything received so far; called once the player has shut down.
    func flush() {
        queue.sync {
            // At shutdown there is no one left to tell; what could not be written is lost either way.
            _ = try? recorder.flush(timeout: 5)
        }
    }

    private func record(_ event: PlayerEvent) {
        do {
            switch event {
            case .started(let item, let duration):
                _ = try recorder.begin(songKey: item.songKey ?? "file:\(item.path)", title: item.title,
                                       singer: item.singer, durationMs: duration ?? item.durationMs)
            case .position(let ms): try recorder.handle(.position(ms: ms))
            case .seeked(let ms): try recorder.handle(.seeked(toMs: ms))
            // Waiting for a stream's bytes is no listening.
            case .paused, .buffering: try recorder.handle(.paused)
            case .resumed, .buffered: try recorder.handle(.resumed)
            case .ended(_, let reason, let position):
                let endReason: PlayEndReason
                switch reason {
                case .completed: endReason = .completed
                case .skipped: endReason = .skipped
                case .stopped: endReason = .stopped
                case .shutdown: endReason = .quit
                case .error: endReason = .error
                }
                try recorder.end(reason: endReason, positionMs: position)
            case .error, .notice, .lyric, .queueFinished, .queueUnplayable, .changed:
                break
            }
        } catch {
            // Stats must never stop the music; say it once.
            let first = reportedFailure.withLock { reported in
                defer { reported = true }
                return !reported
            }
            if first { report("play statistics not saved: \(CatalogueError.readable(error))") }
        }
    }
}
