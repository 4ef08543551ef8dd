import Dispatch
import Foundation
import XZAudio
import XZSystem
import XZLyrics
import XZPlaybackValues

/// The audio itself: a chunk decoded, scaled and written to the output at its pace, and the track's end.
extension PlaybackEngine {
    func playChunk(volume: Int, crossfade: CrossfadeSettings) {
        if pending != nil { return openPending() }
        guard let track else { return }
        // A paced output's period plays out before anything else happens to the track (its end, a fade).
        if output.needsPacing, let deadline = pacer.deadline(nowNs: Self.nowNs()) {
            sleep(untilNs: deadline)
            noteHeard(track)
            return
        }
        guard keepStreamFed(track) else { return }
        let frameBytes = track.format.bytesPerFrame
        // A period per write, cut short at the next lyric change or position report, so that each is reported
        // when the output has played up to it.
        let rate = track.format.sampleRate
        let period: Int
        if output.needsPacing {
            let ms = pacer.continues(nowNs: Self.nowNs()) ? Self.pacedPeriodMs : Self.firstPacedPeriodMs
            period = Self.frames(ms: ms, rate: rate)
        } else {
            period = output.isLive ? Self.frames(ms: Self.livePeriodMs, rate: rate) : Self.chunkFrames
        }
        var frames = min(max(256, period), Self.bufferFrames(track.format))
        let read = track.decoder.positionInSamples
        if let stop = track.nextLyricSample, stop > read { frames = min(frames, stop - read) }
        if track.nextPositionSample > read { frames = min(frames, track.nextPositionSample - read) }
        // A part (MPD's rangeid) ends at its end offset.
        if let range = track.start.item.range, let end = Self.endSample(of: range, sampleRate: track.format.sampleRate) {
            guard end > read else {
                reachedEnd(track)
                return
            }
            frames = min(frames, end - read)
        }
        guard planFade(track, crossfade, frames: &frames) else { return }
        // Decoded straight into the output buffer when the output takes the decoder's layout.
        let sameLayout = track.format.sample == track.outputFormat.sample
        let target = sameLayout ? buffer : decodeBuffer
        let count: Int
        do {
            count = try track.decoder.read(into: UnsafeMutableRawBufferPointer(rebasing: target[0..<frames * frameBytes]))
        } catch {
            // A wait for bytes cut short by a skip, stop or seek is no failure: the command comes next.
            if track.source != nil, interrupted() { return }
            fail(track.start, positionMs: ms(track.positionSample, track), error)
            return
        }
        if count == 0 {
            // A stream whose fetch failed ends with the fetch's error: its decoder may take the failure for
            // the end, and a short stream is no cut-off file.
            if let failure = track.source?.failureMessage {
                fail(track.start, positionMs: ms(track.positionSample, track), PlaybackError.streamFailed(failure))
                return
            }
            reachedEnd(track)
            return
        }
        // A catalogue song keeps the catalogue's tags, as it does from a file.
        if let source = track.source, track.start.item.songKey == nil { noteStreamTags(track, source) }
        let framesRead = count / frameBytes
        let pcm = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<framesRead * track.outputFormat.bytesPerFrame])
        PCMConversion.convert(target.baseAddress!, track.format.sample, samples: framesRead * track.format.channels,
                              into: buffer.baseAddress!, track.outputFormat.sample, volume: volume,
                              scale: track.replayGainScale)
        if outgoing != nil { mixOutgoing(into: pcm, frames: framesRead, volume: volume) }
        // The clock starts as the output gets the audio, not before it was decoded.
        if output.needsPacing { pacer.willWrite(nowNs: Self.nowNs()) }
        if !track.startTold { tellSongStarted(track) }
        do {
            try output.write(UnsafeRawBufferPointer(pcm))
        } catch {
            closeOutput()
            fail(track.start, positionMs: ms(track.positionSample, track), error, outputBroken: true)
            return
        }
        if output.needsPacing { pacer.didWrite(frames: framesRead, rate: track.format.sampleRate) }
        noteHeard(track)
    }

    /// Shows a stream output's listeners the song whose first samples go out now.
    private func tellSongStarted(_ track: LoadedTrack) {
        track.startTold = true
        let item = track.start.item
        output.songStarted(title: item.title.isEmpty ? nil : item.title, artist: item.singer.isEmpty ? nil : item.singer,
                           album: item.album)
    }

    /// Heard so far: what the output took, less what it (or the paced clock) still holds.
    func updateHeard(_ track: LoadedTrack) {
        let now = Self.nowNs()
        var held = output.bufferedFrames
        if output.needsPacing { held += pacer.heldFrames(nowNs: now, rate: track.format.sampleRate) }
        track.positionSample = max(0, track.decoder.positionInSamples - held)
        track.heardAtNs = now
    }

    /// Moves the position to what has been heard, with the position report and lyric events it reached.
    private func noteHeard(_ track: LoadedTrack) {
        updateHeard(track)
        let reportPosition = track.positionSample >= track.nextPositionSample
        if reportPosition { track.nextPositionSample = nextPositionBoundary(after: track.positionSample, track) }
        let lyrics = advanceLyrics(track, seeked: false)
        if reportPosition || !lyrics.isEmpty {
            publish()
            if reportPosition { emit(.position(ms: ms(track.positionSample, track))) }
            lyrics.forEach(emit)
        }
    }

    private func reachedEnd(_ track: LoadedTrack) {
        // Where the decoder ran out is the track's whole length, whatever was skipped by seeking.
        let lengthMs = ms(track.decoder.positionInSamples, track)
        let audible = lengthMs >= Self.audibleMinimumMs
        let reports = core.withLock { core -> [PlayerChanges]? in
            // A waiting seek or skip decides first; the track may not be over after all.
            guard core.mailbox.allSatisfy({ $0.report != nil }) else { return nil }
            // Reports of earlier commands go out before the end they came before.
            let reports = core.mailbox.compactMap(\.report)
            core.mailbox.removeAll()
            if audible { _ = core.enqueue(core.machine.trackEnded(generation: track.start.generation)) }
            return reports
        }
        guard let reports else { return }
        for changes in reports { emit(.changed(changes)) }
        if audible {
            endTrack(.completed)
        } else {
            let error = PlaybackError.noAudio("only \(lengthMs) ms of audio: the file is cut short or empty")
            fail(track.start, positionMs: ms(track.positionSample, track), error)
        }
    }

    func ensureOutput(_ format: AudioFormat) throws {
        guard openFormat != format else { return }
        defer {
            for notice in output.takeNotices() { emit(.notice(notice)) }
        }
        do {
            try output.open(format: format)
            openFormat = format
        } catch {
            openFormat = nil
            throw error
        }
    }

    func closeOutput() {
        output.close()
        openFormat = nil
        pacer.reset()
    }

    /// Sleeps until the monotonic clock reads `untilNs`, waking early when a command arrives.
    private func sleep(untilNs: UInt64) {
        _ = core.wait(until: DispatchTime(uptimeNanoseconds: untilNs)) { core in
            core.mailbox.isEmpty && !core.shutdownRequested ? nil : true
        }
    }

    static func nowNs() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }

    /// The track's ReplayGain scale under the current settings: the item's own gains (a loudness scan's)
    /// when it has them, else its file's tags.
    func replayGainScale(for item: QueueItem, source: GrowingFile?) -> Double {
        let (settings, shuffle) = core.withLock { ($0.machine.replayGain, $0.machine.shuffle) }
        guard settings.mode != .off else { return 1 }
        var tags = item.replayGain
        if tags == nil || tags?.isEmpty == true, source == nil || source?.isComplete == true {
            tags = AudioTags.replayGain(path: source?.path ?? item.decodedPath) ?? tags
        }
        return settings.scale(for: tags, shuffle: shuffle)
    }
}
