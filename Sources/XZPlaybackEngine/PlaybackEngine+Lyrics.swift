import Dispatch
import Foundation
import XZAudio
import XZSystem
import XZLyrics
import XZPlaybackValues

/// The synced lyrics of the loaded track, followed as it plays.
extension PlaybackEngine {
    func loadLyrics(_ track: LoadedTrack, adjustmentMs: Int? = nil) {
        let bytes: [UInt8]
        if let path = track.start.item.lyricsPath {
            // Regular files only: a FIFO named like a lyrics file would hold the player.
            guard let data = RegularFile.contents(atPath: path, limit: LRCParser.fileLimit) else {
                emit(.notice("Cannot read the lyrics file \(path)."))
                return
            }
            bytes = data
        } else if let text = track.start.item.lyricsText {
            bytes = Array(text.utf8)
        } else {
            return
        }
        let document = LRCParser.parse(bytes: bytes)
        guard document.isSynced else { return }  // plain text lyrics: nothing to sync
        track.tracker = LyricSyncTracker(timeline: LyricTimeline(
            document, adjustmentMs: adjustmentMs ?? track.start.item.lyricsAdjustmentMs))
    }

    func updateLyrics(_ track: LoadedTrack, seeked: Bool) {
        let events = advanceLyrics(track, seeked: seeked)
        guard !events.isEmpty else { return }
        publish()
        events.forEach(emit)
    }

    /// Feeds the position to the tracker; the `.lyric` events it calls for, not yet sent.
    func advanceLyrics(_ track: LoadedTrack, seeked: Bool) -> [PlayerEvent] {
        guard var tracker = track.tracker else { return [] }
        let rate = track.format.sampleRate
        let events = tracker.update(sample: track.positionSample, sampleRate: rate, seeked: seeked)
        track.tracker = tracker
        track.lyricsPendingAfterSeek = false
        track.nextLyricSample = tracker.timeline.nextChange(afterSample: track.positionSample, sampleRate: rate)
        let positionMs = ms(track.positionSample, track)
        return events.map { .lyric(lineIndex: $0.lineIndex, timeMs: $0.timeMs, positionMs: positionMs, text: $0.text) }
    }
}
