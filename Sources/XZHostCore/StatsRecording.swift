import Foundation
import XZSystem
import XZCatalogue
import XZPlaybackValues
import XZStats

/// Feeds a player's events to the play-session recorder, on one serial queue (never the audio thread).
/// Songs played from a path are keyed "file:<path>", as a folder scan would key them. An internet radio
/// station (a stream URL outside the catalogue) is no song and never a play: its time heard is kept apart.
final class StatsRecording: Sendable {
    private let recorder: PlaySessionRecorder
    private let store: StatsStore
    /// The current song's URL and, for a station, its name as its stream says it.
    private let playingStation: @Sendable () -> (url: String, name: String?)?
    /// The station playing now: its row, the time heard and where the last position stood.
    private struct Station {
        var id: Int64
        var url: String
        var heardMs = 0
        var writtenMs = 0
        var lastPositionMs = 0
        var name = ""
    }
    private let station = Mutex<Station?>(nil)
    /// A station's time heard is written every this much audio, as a play session's is.
    static let stationWriteMs = 10_000
    private let queue = DispatchQueue(label: "xzmusic.stats")
    private let report: @Sendable (String) -> Void
    private let reportedFailure = Mutex(false)
    /// Whether the user was told that plays wait in memory (the disk is full); told again once saved.
    private let toldWaiting = Mutex(false)
    /// How often waiting plays are tried again while nothing plays to trigger a write.
    private let retrySeconds: Double
    private let stopped = Mutex(false)
    /// A retry is scheduled; only while plays wait to be written.
    private let retryScheduled = Mutex(false)

    /// `report` hears, once, that statistics could not be saved, and once when they wait for disk space
    /// (and once more when they are saved). `retrySeconds` is how often waiting plays are tried again.
    init(database: LibraryDatabase, retrySeconds: Double = 5, report: @escaping @Sendable (String) -> Void,
         playingStation: @escaping @Sendable () -> (url: String, name: String?)? = { nil }) {
        recorder = PlaySessionRecorder(database: database)
        store = StatsStore(database: database)
        self.playingStation = playingStation
        recorder.retryInterval = min(recorder.retryInterval, retrySeconds)
        self.report = report
        self.retrySeconds = retrySeconds
    }

    /// While plays wait to be written (and nothing plays to trigger a write), a try every `retrySeconds`
    /// until they are written or `flush`; nothing is scheduled while nothing waits.
    private func scheduleRetryIfWaiting() {
        guard recorder.hasUnsavedChanges, !stopped.withLock({ $0 }) else { return }
        let first = retryScheduled.withLock { scheduled in
            defer { scheduled = true }
            return !scheduled
        }
        guard first else { return }
        queue.asyncAfter(deadline: .now() + retrySeconds) { [weak self] in
            guard let self else { return }
            retryScheduled.withLock { $0 = false }
            guard !stopped.withLock({ $0 }) else { return }
            if recorder.hasUnsavedChanges {
                recorder.retryUnsaved()
                tellWaiting()
            }
            scheduleRetryIfWaiting()
        }
    }

    /// One line when plays start waiting for the database, one when they are written.
    private func tellWaiting() {
        let reason = recorder.waitingReason
        let change: String? = toldWaiting.withLock { told in
            if let reason, !told {
                told = true
                return "play statistics are waiting in memory: \(reason); they are saved when it can be written again"
            }
            if reason == nil, told, !recorder.hasUnsavedChanges {
                told = false
                return "play statistics saved"
            }
            return nil
        }
        if let change { report(change) }
    }

    func receive(_ event: PlayerEvent) {
        queue.async {
            self.record(event)
            self.scheduleRetryIfWaiting()
        }
    }

    /// Writes everything received so far; called once the player has shut down.
    func flush() {
        stopped.withLock { $0 = true }
        queue.sync {
            // At shutdown there is no one left to tell; what could not be written is lost either way.
            _ = try? recorder.flush(timeout: 5)
        }
    }

    /// A station's events: its time heard, from the positions its audio reached. False for other events.
    private func recordStation(_ event: PlayerEvent) throws -> Bool {
        if case .started(let item, _) = event {
            guard item.isStream, item.songKey == nil else { return false }
            let id = try store.beginStation(url: item.path, name: item.name ?? "")
            station.withLock { $0 = Station(id: id, url: item.path, name: item.name ?? "") }
            return true
        }
        guard var now = station.withLock({ $0 }) else { return false }
        var ended = false
        switch event {
        case .position(let ms):
            now.heardMs += max(0, ms - now.lastPositionMs)
            now.lastPositionMs = ms
        case .seeked(let ms): now.lastPositionMs = ms
        case .ended(_, _, let ms):
            now.heardMs += max(0, ms - now.lastPositionMs)
            ended = true
        case .changed:
            // The station may have said its name; the current song is asked, and may be another by now.
            if let playing = playingStation(), playing.url == now.url, let name = playing.name { now.name = name }
        case .paused, .resumed, .buffering, .buffered: return true
        default: return false
        }
        if ended || now.heardMs - now.writtenMs >= Self.stationWriteMs {
            try store.updateStation(id: now.id, name: now.name, listenedMs: now.heardMs)
            now.writtenMs = now.heardMs
        }
        let kept = now
        station.withLock { $0 = ended ? nil : kept }
        // A change is the player's too.
        if case .changed = event { return false }
        return true
    }

    private func record(_ event: PlayerEvent) {
        do {
            if try recordStation(event) {
                tellWaiting()
                return
            }
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
            tellWaiting()
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
