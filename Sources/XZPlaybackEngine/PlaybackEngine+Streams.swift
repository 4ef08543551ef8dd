import Dispatch
import Foundation
import XZAudio
import XZSystem
import XZLyrics
import XZPlaybackValues

/// Streams: a decoder opened once the head is in, kept fed while bytes arrive, buffering when they do not.
extension PlaybackEngine {
    /// Opens the pending stream's decoder once its head is in; a failure of the download fails the track.
    func openPending() {
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
    func keepStreamFed(_ track: LoadedTrack) -> Bool {
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
    func noteStreamTags(_ track: LoadedTrack, _ source: GrowingFile) {
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

    func startWaiting(_ track: LoadedTrack) {
        guard !track.waiting else { return }
        track.waiting = true
        setBuffering(true, generation: track.start.generation)
        publish()
        if track.announced { emit(.buffering(ms: ms(track.positionSample, track))) }
    }

    func setBuffering(_ waiting: Bool, generation: Int) {
        core.withLock { core in
            _ = core.machine.setBuffering(waiting, generation: generation)
            // The change is reported from the mailbox, in order; this thread reads it next.
            _ = core.enqueue([])
        }
    }

    /// A command that makes waiting for bytes pointless: a new track, an end, a seek, shutdown.
    func interrupted() -> Bool {
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
    func dropPending(_ reason: EndReason) {
        guard let (start, source) = pending else { return }
        pending = nil
        source.release()
        emit(.ended(start.item, reason: reason, positionMs: 0))
    }
}
