import Dispatch
import Foundation
import XZAudio
import XZLyrics

/// The audio thread: decodes the loaded track in small frame-aligned chunks, writes them to the output,
/// and between chunks carries out the mailbox's commands. Every field except `core` belongs to this thread.
final class PlaybackEngine: @unchecked Sendable {
    static let positionStepMs = 250
    /// Largest chunk in bytes: 4096 stereo frames.
    private static let bufferBytes = 4096 * 4

    private let core: PlayerCore
    private let output: AudioOutput
    private let emit: (PlayerEvent) -> Void
    private let finishEvents: () -> Void
    private let buffer: UnsafeMutableRawBufferPointer
    private var openFormat: AudioFormat?
    private var track: LoadedTrack?
    private var paused = false
    private var pacer = Pacer()

    init(core: PlayerCore, output: AudioOutput, emit: @escaping (PlayerEvent) -> Void, finish: @escaping () -> Void) {
        self.core = core
        self.output = output
        self.emit = emit
        self.finishEvents = finish
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferBytes, alignment: 16)
    }

    deinit { buffer.deallocate() }

    private var isPlaying: Bool { track != nil && !paused }

    func run() {
        endTrack(playUntilShutdown())
        closeOutput()
        core.condition.lock()
        publishStatus()
        core.engineExited = true
        core.engineIdle = true
        core.condition.broadcast()
        core.condition.unlock()
        finishEvents()
    }

    /// Plays and carries out commands until shutdown; returns how the loaded track (if any) ends.
    private func playUntilShutdown() -> EndReason {
        while true {
            core.condition.lock()
            publishStatus()
            while core.mailbox.isEmpty && !core.shutdownRequested && !isPlaying {
                core.engineIdle = true
                core.condition.broadcast()
                core.condition.wait()
            }
            core.engineIdle = false
            if core.shutdownRequested {
                let ending = Self.pendingEnding(in: core.mailbox) ?? .shutdown
                core.condition.unlock()
                return ending
            }
            let commands = core.mailbox
            core.mailbox.removeAll()
            let volume = core.volume
            core.condition.unlock()

            if commands.isEmpty {
                playChunk(volume: volume)
            } else {
                for command in commands { handle(command) }
            }
        }
    }

    /// A stop or skip already queued when shutdown came still names how the loaded track ended.
    private static func pendingEnding(in mailbox: [EngineCommand]) -> EndReason? {
        for command in mailbox {
            if case .effect(.end(let reason)) = command { return reason }
        }
        return nil
    }

    /// Makes the snapshot current; called before an event so a snapshot taken on receipt agrees with it.
    private func publish() {
        core.condition.lock()
        publishStatus()
        core.condition.unlock()
    }

    /// Caller holds the lock.
    private func publishStatus() {
        guard let track else {
            core.status.positionMs = 0
            core.status.lyricLineIndex = nil
            core.status.lyricText = nil
            return
        }
        core.status = EngineStatus(generation: track.start.generation, positionMs: ms(track.positionSample, track),
                                   durationMs: track.durationMs, lyricLineIndex: track.tracker?.currentLineIndex,
                                   lyricText: track.tracker?.currentLine?.text, audioFormat: track.formatSummary)
    }

    // MARK: Commands

    private func handle(_ command: EngineCommand) {
        switch command {
        case .effect(.start(let start)):
            startTrack(start)
        case .effect(.end(let reason)):
            endTrack(reason)
        case .effect(.pause):
            paused = true
            publish()
            if let track { emit(.paused(ms: ms(track.positionSample, track))) }
        case .effect(.resume):
            paused = false
            pacer.reset()
            guard let track else { return }
            emit(.resumed(ms: ms(track.positionSample, track)))
            if track.lyricsPendingAfterSeek { updateLyrics(track, seeked: true) }
        case .effect(.release):
            closeOutput()
        case .effect(.queueFinished):
            closeOutput()
            emit(.queueFinished)
        case .seek(let target):
            seek(target)
        case .lyricsAdjustment(let ms):
            guard let track, track.tracker != nil else { return }
            loadLyrics(track, adjustmentMs: ms)
            if paused { track.lyricsPendingAfterSeek = true } else { updateLyrics(track, seeked: true) }
        }
    }

    private func startTrack(_ start: PlayerStateMachine.TrackStart) {
        endTrack(.skipped)  // the machine always ends the old track first; this only guards against a leak
        paused = false
        let decoder: MP3Decoder
        do {
            decoder = try MP3Decoder(path: start.item.path)
        } catch {
            fail(start, positionMs: 0, error)
            return
        }
        do {
            try ensureOutput(decoder.format)
        } catch {
            // Refusing one format is this track's problem; an output that cannot open at all stops the queue.
            fail(start, positionMs: 0, error, outputBroken: !(error is OutputFormatRefused))
            return
        }
        let track = LoadedTrack(start: start, decoder: decoder)
        track.durationMs = decoder.lengthInSamples.map { ms($0, track) } ?? start.item.durationMs
        // The average bitrate, as MPD shows for a file: its size over its length.
        var kbps: Int?
        if let size = (try? FileManager.default.attributesOfItem(atPath: start.item.path))?[.size] as? Int,
           let length = track.durationMs, length > 0 {
            kbps = Int((Double(size) * 8 / Double(length)).rounded())
        }
        track.formatSummary = AudioFormatSummary(sampleRate: decoder.format.sampleRate,
                                                 channels: decoder.format.channels, bitrateKbps: kbps)
        track.nextPositionSample = nextPositionBoundary(after: 0, track)
        self.track = track
        loadLyrics(track)
        publish()
        emit(.started(start.item, durationMs: track.durationMs))
        updateLyrics(track, seeked: false)  // a line stamped 0:00 shows at once
    }

    /// Reports the end of the loaded track (damage first, if any) and drops it.
    private func endTrack(_ reason: EndReason) {
        guard let track else { return }
        self.track = nil
        publish()
        if let report = track.decoder.damageReport { emit(.notice("\(track.start.item.path): \(report)")) }
        emit(.ended(track.start.item, reason: reason, positionMs: ms(track.positionSample, track)))
    }

    /// One `.error` naming the file, `.ended(.error)`, then whatever the machine does next (usually the next track).
    /// With `outputBroken` the queue stops instead, rather than failing every remaining track the same way.
    private func fail(_ start: PlayerStateMachine.TrackStart, positionMs: Int, _ error: Error, outputBroken: Bool = false) {
        var file = start.item.path
        var message = "\(error)"
        if let error = error as? AudioError {
            file = error.file
            message = error.message
        } else if let error = error as? PlaybackError {
            message = error.message
        } else if let error = error as? OutputFormatRefused {
            message = error.message
        }
        emit(.error(file: file, message: message))
        core.condition.lock()
        core.lastError = "\(file): \(message)"
        core.condition.unlock()
        if let track, track.start.generation == start.generation {
            endTrack(.error)
        } else {
            emit(.ended(start.item, reason: .error, positionMs: positionMs))
        }
        core.condition.lock()
        core.failedTracks += 1
        // Appended: commands already waiting were issued before this transition.
        let effects = outputBroken ? core.machine.outputFailed(generation: start.generation)
            : core.machine.trackFailed(generation: start.generation)
        core.mailbox += effects.map(EngineCommand.effect)
        core.condition.unlock()
    }

    private func seek(_ target: SeekTarget) {
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
        do {
            try track.decoder.seek(toSample: sample)
        } catch {
            let message = (error as? AudioError)?.message ?? "\(error)"
            emit(.notice("Cannot seek in \(track.start.item.path): \(message)"))
            return
        }
        track.positionSample = track.decoder.positionInSamples
        pacer.reset()
        track.nextPositionSample = nextPositionBoundary(after: track.positionSample, track)
        publish()
        emit(.seeked(ms: ms(track.positionSample, track)))
        if paused {
            // No lyric event while paused; the line at the new place comes on resume.
            track.lyricsPendingAfterSeek = track.tracker != nil
            track.nextLyricSample = track.tracker?.timeline.nextChange(afterSample: track.positionSample, sampleRate: rate)
        } else {
            updateLyrics(track, seeked: true)
        }
    }

    // MARK: Audio

    private func playChunk(volume: Int) {
        guard let track else { return }
        let frameBytes = track.format.bytesPerFrame
        // About 20 ms per chunk where audio is heard as it is written, so commands act at once; a whole
        // buffer when rendering to a file as fast as possible. Cut short at the next lyric change or position report.
        let audible = output.needsPacing || output.isLive
        var frames = min(audible ? max(256, track.format.sampleRate / 50) : Int.max, Self.bufferBytes / frameBytes)
        let read = track.decoder.positionInSamples
        for stop in [track.nextLyricSample, track.nextPositionSample] {
            if let stop, stop > read { frames = min(frames, stop - read) }
        }
        if output.needsPacing {
            let wait = pacer.delay(nowNs: DispatchTime.now().uptimeNanoseconds)
            if wait > 0 {
                sleep(nanoseconds: wait)
                return
            }
        }
        let count: Int
        do {
            count = try track.decoder.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<frames * frameBytes]))
        } catch {
            fail(track.start, positionMs: ms(track.positionSample, track), error)
            return
        }
        if count == 0 {
            reachedEnd(track)
            return
        }
        let pcm = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
        if volume < 100 { Self.scale(pcm, volume: volume) }
        do {
            try output.write(UnsafeRawBufferPointer(pcm))
        } catch {
            closeOutput()
            fail(track.start, positionMs: ms(track.positionSample, track), error, outputBroken: true)
            return
        }
        pacer.didWrite(frames: count / frameBytes, rate: track.format.sampleRate)
        // Heard so far: what the output took, less what it still holds.
        track.positionSample = max(0, track.decoder.positionInSamples - output.bufferedFrames)
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
        core.condition.lock()
        // A waiting seek or skip decides first; the track may not be over after all.
        guard core.mailbox.isEmpty else {
            core.condition.unlock()
            return
        }
        core.mailbox += core.machine.trackEnded(generation: track.start.generation).map(EngineCommand.effect)
        core.condition.unlock()
        endTrack(.completed)
    }

    private func ensureOutput(_ format: AudioFormat) throws {
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

    private func closeOutput() {
        output.close()
        openFormat = nil
        pacer.reset()
    }

    /// Waits for the pacer, waking early when a command arrives.
    private func sleep(nanoseconds: UInt64) {
        core.condition.lock()
        if core.mailbox.isEmpty && !core.shutdownRequested {
            _ = core.condition.wait(until: Date(timeIntervalSinceNow: Double(nanoseconds) / 1e9))
        }
        core.condition.unlock()
    }

    /// Linear volume on s16 samples, rounding toward zero.
    static func scale(_ pcm: UnsafeMutableRawBufferPointer, volume: Int) {
        let samples = pcm.bindMemory(to: Int16.self)
        let factor = Int32(volume)
        for i in samples.indices {
            samples[i] = Int16(truncatingIfNeeded: Int32(samples[i]) * factor / 100)
        }
    }

    // MARK: Lyrics and clock

    private func loadLyrics(_ track: LoadedTrack, adjustmentMs: Int? = nil) {
        guard let path = track.start.item.lyricsPath else { return }
        guard let data = FileManager.default.contents(atPath: path) else {
            emit(.notice("Cannot read the lyrics file \(path)."))
            return
        }
        let document = LRCParser.parse(bytes: [UInt8](data))
        guard document.isSynced else { return }  // plain text lyrics: nothing to sync
        track.tracker = LyricSyncTracker(timeline: LyricTimeline(
            document, adjustmentMs: adjustmentMs ?? track.start.item.lyricsAdjustmentMs))
    }

    private func updateLyrics(_ track: LoadedTrack, seeked: Bool) {
        let events = advanceLyrics(track, seeked: seeked)
        guard !events.isEmpty else { return }
        publish()
        events.forEach(emit)
    }

    /// Feeds the position to the tracker; the `.lyric` events it calls for, not yet sent.
    private func advanceLyrics(_ track: LoadedTrack, seeked: Bool) -> [PlayerEvent] {
        guard var tracker = track.tracker else { return [] }
        let rate = track.format.sampleRate
        let events = tracker.update(sample: track.positionSample, sampleRate: rate, seeked: seeked)
        track.tracker = tracker
        track.lyricsPendingAfterSeek = false
        track.nextLyricSample = tracker.timeline.nextChange(afterSample: track.positionSample, sampleRate: rate)
        let positionMs = ms(track.positionSample, track)
        return events.map { .lyric(lineIndex: $0.lineIndex, timeMs: $0.timeMs, positionMs: positionMs, text: $0.text) }
    }

    /// Exact: floor(sample * 1000 / rate).
    private func ms(_ sample: Int, _ track: LoadedTrack) -> Int {
        LyricTimeline.milliseconds(atSample: sample, sampleRate: track.format.sampleRate)
    }

    /// The first sample of the next multiple of 250 ms after `sample`.
    private func nextPositionBoundary(after sample: Int, _ track: LoadedTrack) -> Int {
        let step = Self.positionStepMs
        let next = (ms(sample, track) / step + 1) * step
        return LyricTimeline.firstSample(atMs: next, sampleRate: track.format.sampleRate)
    }
}
