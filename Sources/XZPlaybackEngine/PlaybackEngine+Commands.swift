import Dispatch
import Foundation
import XZAudio
import XZSystem
import XZLyrics
import XZPlaybackValues

/// The mailbox's commands carried out on the audio thread: a track started, loaded and announced.
extension PlaybackEngine {
    func handle(_ command: EngineCommand) {
        switch command {
        case .effect(.start(let start)):
            startTrack(start)
        case .effect(.end(let reason)):
            dropPending(reason)
            outgoing = nil
            // The paced clock's period is not waited for: all the output took of the song counts as played.
            pacer.reset()
            if let track { updateHeard(track) }
            if reason == .skipped, !paused, let track, track.source == nil,
               core.withLock({ $0.machine.crossfade.isEnabled && $0.machine.crossfade.onlyOnSkip }) {
                retiring = retire(.skipped)
            } else {
                endTrack(reason)
            }
        case .effect(.pause):
            if !paused { output.pauseChanged(true) }
            paused = true
            pacer.pause(nowNs: Self.nowNs())
            // Heard so far: what the clock still held when it stopped plays on resume.
            if let track { updateHeard(track) }
            publish()
            if let track { emit(.paused(ms: ms(track.positionSample, track))) }
        case .effect(.resume):
            if paused { output.pauseChanged(false) }
            paused = false
            pacer.resume(nowNs: Self.nowNs())
            guard let track else { return }
            track.heardAtNs = Self.nowNs()
            emit(.resumed(ms: ms(track.positionSample, track)))
            if track.lyricsPendingAfterSeek { updateLyrics(track, seeked: true) }
        case .effect(.release):
            outgoing = nil
            closeOutput()
        case .effect(.queueFinished):
            outgoing = nil
            closeOutput()
            emit(.queueFinished)
        case .effect(.queueUnplayable):
            outgoing = nil
            closeOutput()
            emit(.queueUnplayable)
        case .seek(let target):
            seek(target)
            // Its client's answer waits for this.
            core.change { $0.seeksDone += 1 }
        case .lyricsAdjustment(let ms):
            guard let track, track.tracker != nil else { return }
            loadLyrics(track, adjustmentMs: ms)
            if paused { track.lyricsPendingAfterSeek = true } else { updateLyrics(track, seeked: true) }
        case .changed(let changes):
            emit(.changed(changes))
        }
    }

    private func startTrack(_ start: PlayerStateMachine.TrackStart) {
        let fadingOut = retiring, handoff = self.handoff.flatMap { $0.item == start.item ? $0 : nil }
        retiring = nil
        self.handoff = nil
        endTrack(.skipped)  // the machine always ends the old track first; this only guards against a leak
        dropPending(.skipped)
        outgoing = nil
        if paused { output.pauseChanged(false) }
        paused = false
        if start.item.isStream {
            do {
                guard let streams else {
                    throw PlaybackError.streamFailed("cannot play a URL here: this player has no downloader")
                }
                let source = try streams(start.item)
                // Bytes arriving wake the audio thread while it waits for them.
                source.onArrival { [core] in core.change { $0.arrivals &+= 1 } }
                pending = (start, source)
                // libao's first start-up (loading its drivers) overlaps the wait for the first bytes.
                output.prepare()
                setBuffering(true, generation: start.generation)
            } catch {
                fail(start, positionMs: 0, error)
            }
            return
        }
        let decoder: AudioDecoder
        do {
            decoder = try handoff?.decoder ?? AudioDecoders.open(path: start.item.decodedPath)
        } catch {
            fail(start, positionMs: 0, error)
            return
        }
        load(start, decoder: decoder, source: nil)
        if let fadingOut, let track, track.start.generation == start.generation {
            fadeOut(fadingOut, under: track, handoff: handoff)
        }
    }

    func load(_ start: PlayerStateMachine.TrackStart, decoder: AudioDecoder, source: GrowingFile?) {
        let outputFormat = output.outputFormat(for: decoder.format)
        do {
            try ensureOutput(outputFormat)
        } catch {
            source?.release()
            // Refusing one format is this track's problem; an output that cannot open at all stops the queue.
            let refused = (error as? PlaybackError) == .outputFormatRefused
            fail(start, positionMs: 0, error, outputBroken: !refused)
            return
        }
        let track = LoadedTrack(start: start, decoder: decoder, outputFormat: outputFormat, source: source)
        reserveBuffers(decoder.format, output: outputFormat)
        track.replayGainScale = replayGainScale(for: start.item, source: source)
        track.durationMs = decoder.lengthInSamples.map { ms($0, track) } ?? start.item.durationMs
        // The average bitrate, as MPD shows for a file: its size over its length.
        var kbps: Int?
        let size: Int?
        if let source {
            size = source.size.map { Int($0) }
        } else {
            // A file whose size cannot be read shows the decoder's own figure instead.
            size = FileStatus(path: start.item.decodedPath, followingLinks: true).map { Int($0.size) }
        }
        if let size, let length = track.durationMs, length > 0 {
            kbps = Int(clamping: Double(size) * 8 / Double(length), to: 0...Int.max)
        }
        track.formatSummary = AudioFormatSummary(format: decoder.format, bitrateKbps: kbps ?? decoder.bitrateKbps)
        // A file's part (MPD's rangeid) starts at its offset; a file that cannot seek plays from its start.
        if source == nil, let range = start.item.range, range.startMs > 0 || (range.cdFrames?.start ?? 0) > 0 {
            let sample = Self.startSample(of: range, sampleRate: decoder.format.sampleRate)
            if (try? decoder.seek(toSample: sample)) != nil { track.positionSample = decoder.positionInSamples }
        }
        track.nextPositionSample = nextPositionBoundary(after: track.positionSample, track)
        self.track = track
        fadePlan = .undecided
        loadLyrics(track)
        // A stream is announced once its first second is in (see keepStreamFed).
        if source != nil && !(source?.isComplete ?? true) {
            track.waiting = true
            publish()
            return
        }
        setBuffering(false, generation: start.generation)
        announce(track)
    }

    func announce(_ track: LoadedTrack) {
        track.announced = true
        publish()
        emit(.started(track.start.item, durationMs: track.durationMs))
        updateLyrics(track, seeked: false)  // a line stamped 0:00 shows at once
    }
}
