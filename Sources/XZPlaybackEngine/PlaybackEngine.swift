import Dispatch
import Foundation
import XZAudio
import XZSystem
import XZLyrics
import XZPlaybackValues

/// The audio thread: decodes the loaded track in small frame-aligned chunks, writes them to the output,
/// and between chunks carries out the mailbox's commands. Made on the audio thread, and never leaves it:
/// everything but `core` (and the output and event hub it was given) is that thread's alone.
final class PlaybackEngine {
    static let positionStepMs = 250
    /// A track shorter than this from start to end gave no audio worth the name: it fails
    /// (`PlaybackError.noAudio`), so that a queue of such tracks on repeat stops rather than spins.
    static let audibleMinimumMs = 500
    /// A chunk when rendering to a file as fast as possible, in sample frames.
    private static let chunkFrames = 4096
    /// A period written to a sound card: its write blocks until the card has room and commands wait for it,
    /// so it is short.
    private static let livePeriodMs = 40
    /// A period written to a paced output (null, realtime files): the pacer holds it while the thread sleeps
    /// once until it has played out, and a command cuts that sleep short.
    private static let pacedPeriodMs = 250
    /// The first period of a paced output's timeline (a start, a seek): short, so that the first sound comes at once.
    private static let firstPacedPeriodMs = 20
    /// Caps the buffers whatever sample rate a file claims.
    private static let maxPeriodFrames = 65_536

    /// A stream goes into buffering when less than this is there past the decoder's place.
    private static let lowWaterBytes: Int64 = 8 * 1024

    let core: Monitor<PlayerCore>
    private let output: AudioOutput
    private let streams: StreamOpener?
    private let hub: EventHub
    /// A stream item started whose first bytes are still coming; the decoder opens once they are here.
    private var pending: (start: PlayerStateMachine.TrackStart, source: GrowingFile)?
    /// What goes to the output, and what the decoder gives when that needs converting.
    private var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 0, alignment: 16)
    var decodeBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 0, alignment: 16)
    private var openFormat: AudioFormat?
    private var track: LoadedTrack?
    private var paused = false
    /// The next song, opened ahead of the loaded one's end to fade into it.
    var fadePlan = FadePlan.undecided
    /// The song fading out under the loaded one.
    var outgoing: Outgoing?
    /// A song just ended for its listeners whose decoder may still fade out under the song started next.
    var retiring: LoadedTrack?
    /// The next song's decoder, opened to fade into, waiting for its `.start`.
    var handoff: Handoff?
    /// The outgoing song's chunk in the output's layout.
    var fadeBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 0, alignment: 16)
    private var pacer = Pacer()

    init(core: Monitor<PlayerCore>, output: AudioOutput, streams: StreamOpener?, hub: EventHub) {
        self.core = core
        self.output = output
        self.streams = streams
        self.hub = hub
    }

    deinit {
        buffer.deallocate()
        decodeBuffer.deallocate()
        fadeBuffer.deallocate()
    }

    /// The most frames one write of `format` takes.
    private static func bufferFrames(_ format: AudioFormat) -> Int {
        min(max(chunkFrames, frames(ms: pacedPeriodMs, rate: format.sampleRate)), maxPeriodFrames)
    }

    /// `ms` milliseconds of audio at `rate`; a rate past any real one counts as the largest.
    private static func frames(ms: Int, rate: Int) -> Int {
        min(max(rate, 0), 1 << 24) * ms / 1000
    }

    /// Grows the chunk buffers to hold a whole period of `format`.
    private func reserveBuffers(_ format: AudioFormat, output: AudioFormat) {
        let frames = Self.bufferFrames(format)
        let decodeBytes = frames * format.bytesPerFrame
        let outputBytes = frames * max(output.bytesPerFrame, format.bytesPerFrame)
        if buffer.count < outputBytes {
            buffer.deallocate()
            buffer = .allocate(byteCount: outputBytes, alignment: 16)
            fadeBuffer.deallocate()
            fadeBuffer = .allocate(byteCount: outputBytes, alignment: 16)
        }
        if decodeBuffer.count < decodeBytes {
            decodeBuffer.deallocate()
            decodeBuffer = .allocate(byteCount: decodeBytes, alignment: 16)
        }
    }

    private var isPlaying: Bool { (track != nil || pending != nil) && !paused }

    func emit(_ event: PlayerEvent) {
        hub.emit(event)
    }

    func run() {
        endTrack(playUntilShutdown())
        closeOutput()
        core.change { core in
            publishStatus(&core)
            core.engineExited = true
            core.engineIdle = true
        }
        hub.finish()
    }

    /// What the audio thread does next.
    private enum Step: Sendable {
        case commands([EngineCommand])
        case play(volume: Int, crossfade: CrossfadeSettings)
        /// How the loaded track ends, and the changes still to report first.
        case shutdown(EndReason, reports: [PlayerChanges])
    }

    /// Plays and carries out commands until shutdown; returns how the loaded track (if any) ends.
    private func playUntilShutdown() -> EndReason {
        while true {
            let step: Step
            if let next = core.withLock({ nextStep(&$0) }) {
                step = next
            } else {
                // Idle now: whoever waits for that hears it before this thread sleeps.
                core.wake()
                // Without a deadline the wait ends only with a step.
                step = core.wait { nextStep(&$0) }!
            }
            switch step {
            case .commands(let commands):
                for command in commands { handle(command) }
                // A song left with nothing started after it ends here.
                retiring = nil
                handoff = nil
            case .play(let volume, let crossfade):
                playChunk(volume: volume, crossfade: crossfade)
            case .shutdown(let ending, let reports):
                // Commands made before shutdown still report what they changed.
                for changes in reports { emit(.changed(changes)) }
                return ending
            }
        }
    }

    /// Takes the next step from the shared state; nil (and idle) when there is nothing to do.
    private func nextStep(_ core: inout PlayerCore) -> Step? {
        publishStatus(&core)
        if core.shutdownRequested {
            return .shutdown(Self.pendingEnding(in: core.mailbox) ?? .shutdown, reports: core.mailbox.compactMap(\.report))
        }
        guard !core.mailbox.isEmpty || isPlaying else {
            core.engineIdle = true
            return nil
        }
        core.engineIdle = false
        guard !core.mailbox.isEmpty else { return .play(volume: core.machine.volume, crossfade: core.machine.crossfade) }
        defer { core.mailbox.removeAll() }
        return .commands(core.mailbox)
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
        core.withLock { publishStatus(&$0) }
    }

    private func publishStatus(_ core: inout PlayerCore) {
        guard let track else {
            core.status.positionMs = 0
            core.status.positionClock = nil
            core.status.lyricLineIndex = nil
            core.status.lyricText = nil
            return
        }
        // A paced output's clock runs on between this thread's updates, up to what the output took.
        let clock = output.needsPacing && !paused && !track.waiting && track.announced
            ? PositionClock(sinceNs: track.heardAtNs, untilMs: ms(track.decoder.positionInSamples, track)) : nil
        core.status = EngineStatus(generation: track.start.generation, positionMs: ms(track.positionSample, track),
                                   positionClock: clock, durationMs: track.durationMs,
                                   lyricLineIndex: track.tracker?.currentLineIndex,
                                   lyricText: track.tracker?.currentLine?.text, audioFormat: track.formatSummary)
    }

    // MARK: Commands

    private func handle(_ command: EngineCommand) {
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

    private func load(_ start: PlayerStateMachine.TrackStart, decoder: AudioDecoder, source: GrowingFile?) {
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

    private func announce(_ track: LoadedTrack) {
        track.announced = true
        publish()
        emit(.started(track.start.item, durationMs: track.durationMs))
        updateLyrics(track, seeked: false)  // a line stamped 0:00 shows at once
    }

    // MARK: Streams

    /// Opens the pending stream's decoder once its head is in; a failure of the download fails the track.
    private func openPending() {
        guard let (start, source) = pending else { return }
        let seen = arrivalCount()
        if let failure = source.failureMessage {
            pending = nil
            source.release()
            fail(start, positionMs: 0, PlaybackError.streamFailed(failure))
            return
        }
        // A full window is all that comes until the decoder reads: a head larger than it cannot be waited for.
        guard source.isComplete || source.isWindowFull || source.available(from: 0) >= headBytes(source) else {
            waitForBytes(after: seen)
            return
        }
        pending = nil
        let decoder: AudioDecoder
        do {
            decoder = try AudioDecoders.open(.growing(source, name: start.item.path,
                                                      giveUp: { [weak self] in self?.interrupted() ?? true }))
        } catch {
            source.release()
            if interrupted() {
                emit(.ended(start.item, reason: .skipped, positionMs: 0))
            } else {
                fail(start, positionMs: 0, error)
            }
            return
        }
        load(start, decoder: decoder, source: source)
    }

    /// The ID3v2 tag (when the first bytes say there is one) and a few frames: enough for libmpg123 to find
    /// the format and the VBR header without waiting inside the decoder.
    private func headBytes(_ source: GrowingFile) -> Int64 {
        var tagEnd: Int64 = 0
        if source.available(from: 0) >= 10 {
            var header = [UInt8](repeating: 0, count: 10)
            let n = header.withUnsafeMutableBytes { source.read(at: 0, into: $0) }
            if n == 10, header[0] == 0x49, header[1] == 0x44, header[2] == 0x33, header[6] | header[7] | header[8] | header[9] < 0x80 {
                tagEnd = Int64(10 + header[6...9].reduce(0) { $0 << 7 | Int($1) } + (header[5] & 0x10 != 0 ? 10 : 0))
            }
        }
        let want = tagEnd + 8 * 1024
        return source.size.map { min($0, want) } ?? want
    }

    /// Holds a stream back while its bytes are missing; true when the chunk may be decoded now.
    private func keepStreamFed(_ track: LoadedTrack) -> Bool {
        guard let source = track.source, track.waiting || !source.isComplete else { return true }
        let offset = track.decoder.sourceOffset ?? 0
        let seen = arrivalCount()
        if track.waiting {
            let seconds = core.withLock { $0.prebufferSeconds }
            let audioBytesPerSecond = Double(track.decoder.bitrateKbps ?? 128) * 125
            var need = max(Self.lowWaterBytes, Int64(seconds * audioBytesPerSecond))
            // A link several times faster than the audio keeps ahead by itself: start on the first frames,
            // as a stream player does, instead of waiting out the whole prebuffer.
            if source.arrivalBytesPerSecond >= 4 * audioBytesPerSecond { need = Self.lowWaterBytes }
            guard source.canRead(at: offset, count: need) else {
                waitForBytes(after: seen)
                return false
            }
            track.waiting = false
            pacer.reset()
            setBuffering(false, generation: track.start.generation)
            if !track.announced {
                announce(track)
            } else {
                publish()
                emit(.buffered(ms: ms(track.positionSample, track)))
            }
            return true
        }
        if !source.canRead(at: offset, count: Self.lowWaterBytes) {
            startWaiting(track)
            return false
        }
        return true
    }

    /// What the stream says of itself where the decoder is (a station's ICY title, a new Ogg link's comments)
    /// goes onto its queue entry when it changed.
    private func noteStreamTags(_ track: LoadedTrack, _ source: GrowingFile) {
        let station = source.streamTags(at: track.decoder.sourceOffset ?? 0)
        let comments = track.decoder.streamTags
        guard station != nil || comments != nil else { return }
        var tags = station ?? StreamTags()
        if let comments {
            tags.title = comments.title ?? tags.title
            tags.artist = comments.artist
        }
        guard tags != track.streamTags else { return }
        track.streamTags = tags
        core.withLock { core in
            // Reported from the mailbox, in order; this thread reads it next.
            if core.machine.setStreamTags(tags, generation: track.start.generation) { _ = core.enqueue([]) }
        }
    }

    private func startWaiting(_ track: LoadedTrack) {
        guard !track.waiting else { return }
        track.waiting = true
        setBuffering(true, generation: track.start.generation)
        publish()
        if track.announced { emit(.buffering(ms: ms(track.positionSample, track))) }
    }

    private func setBuffering(_ waiting: Bool, generation: Int) {
        core.withLock { core in
            _ = core.machine.setBuffering(waiting, generation: generation)
            // The change is reported from the mailbox, in order; this thread reads it next.
            _ = core.enqueue([])
        }
    }

    /// A command that makes waiting for bytes pointless: a new track, an end, a seek, shutdown.
    private func interrupted() -> Bool {
        core.withLock { core in
            core.shutdownRequested || core.mailbox.contains { command in
                switch command {
                case .effect(.start), .effect(.end), .seek: return true
                default: return false
                }
            }
        }
    }

    private func arrivalCount() -> Int {
        core.withLock { $0.arrivals }
    }

    /// Sleeps until bytes arrive (or a command), unless some came since `seen` was read: bytes that
    /// arrived while the caller looked would otherwise go unnoticed until the next 20 ms poll.
    private func waitForBytes(after seen: Int) {
        _ = core.wait(until: .now() + .milliseconds(20)) { core in
            core.arrivals != seen || !core.mailbox.isEmpty || core.shutdownRequested ? true : nil
        }
    }

    /// A stream left before its decoder opened ends here (it never started).
    private func dropPending(_ reason: EndReason) {
        guard let (start, source) = pending else { return }
        pending = nil
        source.release()
        emit(.ended(start.item, reason: reason, positionMs: 0))
    }

    /// Reports the end of the loaded track (damage first, if any) and drops it.
    private func endTrack(_ reason: EndReason) {
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
    private func fail(_ start: PlayerStateMachine.TrackStart, positionMs: Int, _ error: Error, outputBroken: Bool = false) {
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

    // MARK: Audio

    private func playChunk(volume: Int, crossfade: CrossfadeSettings) {
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
    private func updateHeard(_ track: LoadedTrack) {
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

    /// Sleeps until the monotonic clock reads `untilNs`, waking early when a command arrives.
    private func sleep(untilNs: UInt64) {
        _ = core.wait(until: DispatchTime(uptimeNanoseconds: untilNs)) { core in
            core.mailbox.isEmpty && !core.shutdownRequested ? nil : true
        }
    }

    private static func nowNs() -> UInt64 {
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

    // MARK: Lyrics and clock

    private func loadLyrics(_ track: LoadedTrack, adjustmentMs: Int? = nil) {
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

    /// A part's first sample: a CUE track's exactly from its CD frames, a `rangeid` part's from its milliseconds.
    static func startSample(of range: PlayRange, sampleRate: Int) -> Int {
        range.cdFrames.map { CueSheet.samples(frames: $0.start, sampleRate: sampleRate) }
            ?? LyricTimeline.firstSample(atMs: range.startMs, sampleRate: sampleRate)
    }

    /// The sample after a part's last, by the same rule as `startSample`; nil: the song's end.
    static func endSample(of range: PlayRange, sampleRate: Int) -> Int? {
        if let frames = range.cdFrames { return frames.end.map { CueSheet.samples(frames: $0, sampleRate: sampleRate) } }
        return range.endMs.map { LyricTimeline.firstSample(atMs: $0, sampleRate: sampleRate) }
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
