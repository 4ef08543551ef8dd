import Dispatch
import Foundation
import XZAudio
import XZSystem
import XZLyrics
import XZPlaybackValues

/// The audio thread: decodes the loaded track in small frame-aligned chunks, writes them to the output,
/// and between chunks carries out the mailbox's commands. Made on the audio thread, and never leaves it:
/// everything but `core` (and the output and event hub it was given) is that thread's alone. Its parts are
/// the extensions in PlaybackEngine+*.swift, which share its state (internal, not private, for them).
final class PlaybackEngine {
    static let positionStepMs = 250
    /// A track shorter than this from start to end gave no audio worth the name: it fails
    /// (`PlaybackError.noAudio`), so that a queue of such tracks on repeat stops rather than spins.
    static let audibleMinimumMs = 500
    /// A chunk when rendering to a file as fast as possible, in sample frames.
    static let chunkFrames = 4096
    /// A period written to a sound card: its write blocks until the card has room and commands wait for it,
    /// so it is short.
    static let livePeriodMs = 40
    /// A period written to a paced output (null, realtime files): the pacer holds it while the thread sleeps
    /// once until it has played out, and a command cuts that sleep short.
    static let pacedPeriodMs = 250
    /// The first period of a paced output's timeline (a start, a seek): short, so that the first sound comes at once.
    static let firstPacedPeriodMs = 20
    /// Caps the buffers whatever sample rate a file claims.
    private static let maxPeriodFrames = 65_536

    /// A stream goes into buffering when less than this is there past the decoder's place.
    static let lowWaterBytes: Int64 = 8 * 1024

    let core: Monitor<PlayerCore>
    let output: AudioOutput
    let streams: StreamOpener?
    private let hub: EventHub
    /// A stream item started whose first bytes are still coming; the decoder opens once they are here.
    var pending: (start: PlayerStateMachine.TrackStart, source: GrowingFile)?
    /// What goes to the output, and what the decoder gives when that needs converting.
    var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 0, alignment: 16)
    var decodeBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 0, alignment: 16)
    var openFormat: AudioFormat?
    var track: LoadedTrack?
    var paused = false
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
    var pacer = Pacer()

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
    static func bufferFrames(_ format: AudioFormat) -> Int {
        min(max(chunkFrames, frames(ms: pacedPeriodMs, rate: format.sampleRate)), maxPeriodFrames)
    }

    /// `ms` milliseconds of audio at `rate`; a rate past any real one counts as the largest.
    static func frames(ms: Int, rate: Int) -> Int {
        min(max(rate, 0), 1 << 24) * ms / 1000
    }

    /// Grows the chunk buffers to hold a whole period of `format`.
    func reserveBuffers(_ format: AudioFormat, output: AudioFormat) {
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
    func publish() {
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
}
