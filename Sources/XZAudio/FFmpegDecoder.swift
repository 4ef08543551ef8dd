import CFFmpegLoader
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// FFmpeg's functions; read only after `requireLibraries` (or the probe) saw them load.
var libav: xz_ffmpeg { xz_ffmpeg_load()!.pointee }

/// Decodes whatever the other decoders do not through FFmpeg, as MPD's ffmpeg plug-in does: MP4/M4A (AAC,
/// ALAC), WAV, AIFF, CAF, WavPack, Monkey's Audio, Musepack, WMA and more. PCM comes out at the stream's
/// own rate and channel count, interleaved, never resampled: `.s16` for 8- and 16-bit sources, `.s32` for
/// 32-bit integer ones (24-bit sources in the high bits), `.float32` for float ones (AAC).
///
/// MP4 files are gapless: the track's edit list (or, without one, iTunes' `iTunSMPB`) says which samples
/// are audio, and exactly those come out. Bytes are read through `ByteSource`, so a file still arriving
/// plays too. One instance per track; not thread-safe, use it from one thread at a time.
final class FFmpegDecoder {
    let path: String
    let format: AudioFormat
    /// Exact for MP4, WAV, W64 and AIFF; elsewhere the container's figure until the end is reached.
    private(set) var lengthInSamples: Int?
    private(set) var positionInSamples = 0

    private let source: ByteSource
    private var file: OpenedFile
    private var timeline: Timeline
    private let manualSkip: Bool
    /// The length the container states, before any cut-short end was found.
    private let statedLength: Int?
    private let lengthIsExact: Bool
    /// The end has been decoded, so `lengthInSamples` is what the stream holds.
    private var lengthIsFinal = false
    /// Samples that settle a lossy decoder after a jump (MDCT overlap, bit reservoirs); 0 for lossless.
    private let preroll: Int

    /// The samples of the last decoded frame (`file.frame`) not yet handed out: reads interleave them
    /// straight into the caller's buffer, and the next frame is decoded only once they are all out.
    private var pending = (first: 0, count: 0)
    private var finished = false
    private var deferredError: AudioError?
    /// The expected timestamp of the next frame, for frames that come without one.
    private var nextTimestamp: Int64?
    /// Set by a seek: frames are dropped up to this position, whose timestamps must reach it.
    private var seekTarget: Int?
    /// Samples still to drop, counted rather than found by timestamp.
    private var dropCount = 0
    private var damage = DamageTracker()

    convenience init(path: String) throws {
        try self.init(.file(path: path))
    }

    init(_ input: AudioInput) throws {
        try FFmpegDecoder.requireLibraries(for: input.name)
        path = input.name
        source = try ByteSource(input)
        file = try OpenedFile(source: source, name: input.name)

        let container = file.container.pointer
        let stream = file.stream
        let timeBase = stream.pointee.time_base
        var mp4Window: Range<Int64>?
        if String(cString: container.pointee.iformat.pointee.name).hasPrefix("mov,") {
            mp4Window = MP4Timing.read(from: source, trackID: stream.pointee.id, timeBase: timeBase)?
                .window(iTunSMPB: Self.metadata("iTunSMPB", container, stream).flatMap(ITunSMPB.init))
        }
        manualSkip = mp4Window != nil
        try file.openDecoder(manualSkip: manualSkip, name: path)

        var timeline = Timeline(start: 0, end: nil, clips: false, timeBase: timeBase)
        if let window = mp4Window {
            timeline = Timeline(start: window.lowerBound, end: window.upperBound, clips: true, timeBase: timeBase)
            if let cut = Self.firstMissingPacket(stream, source: source), cut < window.upperBound {
                timeline.end = max(window.lowerBound, cut)
            }
        }

        // The first frame fixes the output format and proves the stream decodes.
        let codecName = Self.codecName(stream.pointee.codecpar.pointee.codec_id)
        var first: Chunk?
        var decodedAny = false
        var failures = 0
        firstFrame: while true {
            switch try Self.nextFrame(file, source: source, name: path, position: 0, damage: &damage) {
            case .frame:
                decodedAny = true
                let frame = file.frame.pointer
                let timestamp = Self.frameTimestamp(frame, expected: nil)
                if !timeline.clips {
                    // Position 0 is the first sample FFmpeg hands out.
                    if let timestamp { timeline.start = timestamp } else { timeline.seeksByTimestamp = false }
                }
                if let chunk = Self.clip(frame, timestamp: timestamp, timeline: timeline, target: nil) {
                    first = chunk
                    break firstFrame
                }
                if let end = timeline.end, let timestamp, timestamp >= end { break firstFrame }
            case .failed(let code):
                failures += 1
                if failures > 64 || damage.log.places > 256 {
                    throw AudioError.damaged("cannot decode \(codecName) audio: \(Self.describe(code))", file: path)
                }
            case .end(let code):
                if decodedAny { break firstFrame }
                let reason = code.map(Self.describe) ?? damage.lastError.map(Self.describe) ?? "the stream holds no audio"
                throw AudioError.damaged("cannot decode \(codecName) audio: \(reason)", file: path)
            }
        }

        let frame = file.frame.pointer.pointee
        let sourceFormat = AVSampleFormat(rawValue: frame.format)
        let codec = file.codec.pointer.pointee
        let rate = Int(frame.sample_rate > 0 ? frame.sample_rate : codec.sample_rate)
        let channels = Int(frame.ch_layout.nb_channels)
        guard rate > 0, channels > 0 else {
            throw AudioError.damaged("cannot decode \(codecName) audio: no sample rate or channel count", file: path)
        }
        // FFmpeg 5.1's Ogg demuxer can label the packets after a jump with the wrong timestamps, and a tick
        // longer than a sample (Matroska's and ASF's milliseconds) cannot name a sample: these streams
        // reach a seek target by decoding from the start.
        let containerName = String(cString: container.pointee.iformat.pointee.name)
        if containerName == "ogg" || Int64(timeBase.num) * Int64(rate) > Int64(timeBase.den) {
            timeline.seeksByTimestamp = false
        }
        self.timeline = timeline
        format = Self.outputFormat(for: sourceFormat, rate: rate, channels: channels,
                                   rawBits: Int(codec.bits_per_raw_sample))

        let lossless = (libav.avcodec_descriptor_get(codec.codec_id)?.pointee.props ?? 0) & AV_CODEC_PROP_LOSSLESS != 0
        preroll = lossless ? 0 : max(8192, rate / 5)

        let method = container.pointee.duration_estimation_method
        if let window = mp4Window {
            let samples = { (pts: Int64) in Int(libav.av_rescale_q(pts, timeBase, AVRational(num: 1, den: Int32(rate)))) }
            statedLength = samples(window.upperBound - window.lowerBound)
            lengthInSamples = samples((timeline.end ?? window.upperBound) - window.lowerBound)
            lengthIsExact = true
        } else {
            var length: Int?
            if stream.pointee.duration != Self.noTimestamp, stream.pointee.duration > 0 {
                length = Int(libav.av_rescale_q(stream.pointee.duration, timeBase, AVRational(num: 1, den: Int32(rate))))
            } else if container.pointee.duration != Self.noTimestamp, container.pointee.duration > 0 {
                length = Int(libav.av_rescale(container.pointee.duration, Int64(rate), Int64(AV_TIME_BASE)))
            }
            statedLength = length
            lengthInSamples = length
            lengthIsExact = length != nil && method != AVFMT_DURATION_FROM_BITRATE
                && ["wav", "w64", "aiff"].contains(containerName)
        }

        if let first {
            nextTimestamp = first.timestamp.map { $0 + timestampSpan(ofSamples: first.frameSamples) }
            pending = (first.first, first.count)
        } else {
            finish()
        }
    }

    /// Loads FFmpeg's libraries on first use; throws a one-line reason when they are not installed.
    static func requireLibraries(for name: String) throws {
        guard xz_ffmpeg_load() == nil else { return }
        throw AudioError.unsupportedFormat("FFmpeg's libraries are needed for this file: "
                         + (xz_ffmpeg_error().map { String(cString: $0) } ?? "they cannot be loaded"), file: name)
    }

    /// FFmpeg's short name of a codec ("aac", "alac").
    static func codecName(_ id: AVCodecID) -> String {
        libav.avcodec_get_name(id).map { String(cString: $0) } ?? "unknown"
    }

    var damageReport: String? { damage.log.report(rate: format.sampleRate) }

    /// Where reading goes on in a growing source; nil for a plain file.
    var sourceOffset: Int64? { source.growingFile != nil ? source.position : nil }
    var framesLeftInBlock: Int? { pending.count }

    /// The container's average bitrate (the stream's own when it states one).
    var bitrateKbps: Int? {
        let streamRate = file.stream.pointee.codecpar.pointee.bit_rate
        let rate = streamRate > 0 ? streamRate : file.container.pointer.pointee.bit_rate
        return rate > 0 ? Int((rate + 500) / 1000) : nil
    }

    /// Fills `buffer` with whole sample frames; returns the bytes written, 0 at the end of the track.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let error = deferredError {
            deferredError = nil
            throw error
        }
        let frameBytes = format.bytesPerFrame
        let usable = buffer.count - buffer.count % frameBytes
        guard usable > 0, let base = buffer.baseAddress else {
            if buffer.count == 0 { return 0 }
            throw AudioError.invalidArgument("read buffer of \(buffer.count) bytes is smaller than one sample frame (\(frameBytes) bytes)", file: path)
        }
        var written = 0
        while written < usable {
            if pending.count > 0 {
                let n = min(pending.count, (usable - written) / frameBytes)
                convert(file.frame.pointer, from: pending.first, count: n, into: base + written)
                pending = (pending.first + n, pending.count - n)
                written += n * frameBytes
                positionInSamples += n
                continue
            }
            if finished { break }
            do {
                try decodeChunk()
            } catch let error as AudioError {
                // Hand out what we have; the error comes with the next call.
                if written == 0 { throw error }
                deferredError = error
                break
            }
        }
        return written
    }

    /// Sample-exact: the next read starts at `sample` (clamped to the length) with what a straight decode
    /// from the start gives there. The demuxer jumps to a packet before the target (for lossy codecs far
    /// enough before that the decoder has settled), and frames are decoded and dropped up to the target.
    func seek(toSample sample: Int) throws {
        guard sample >= 0 else {
            throw AudioError.cannotSeek("cannot seek to negative sample \(sample)", file: path)
        }
        // A length that is only the container's estimate does not limit the target.
        let target = lengthIsExact || lengthIsFinal ? lengthInSamples.map { min(sample, $0) } ?? sample : sample
        deferredError = nil
        if target == positionInSamples && seekTarget == nil { return }
        if target > positionInSamples && target - positionInSamples <= format.sampleRate * 2 {
            return try skip(target - positionInSamples)
        }
        guard timeline.seeksByTimestamp, target > preroll else { return try decodeThrough(to: target) }

        let timestamp = timeline.start + timestampSpan(ofSamples: target - preroll)
        guard libav.av_seek_frame(file.container.pointer, file.streamIndex, timestamp, AVSEEK_FLAG_BACKWARD) >= 0 else {
            return try decodeThrough(to: target)
        }
        libav.avcodec_flush_buffers(file.codec.pointer)
        restart(at: target)
        seekTarget = target
        do {
            while seekTarget != nil && !finished {
                try decodeChunk()
            }
        } catch TimestampTrouble.unusable {
            // The demuxer landed after the target or its frames carry no timestamps.
            return try decodeThrough(to: target)
        } catch {
            seekTarget = nil
            throw error
        }
        if seekTarget != nil {
            // The stream ended before the target: the position is its end.
            seekTarget = nil
            positionInSamples = nextTimestamp.map { min(target, samples(fromTimestamp: $0 - timeline.start)) } ?? target
            noteEnd(at: positionInSamples)
        }
    }

    // MARK: Decoding

    /// Decodes frames until one yields samples (into the pending buffer) or the stream ends.
    private func decodeChunk() throws {
        while true {
            let position = positionInSamples + pending.count
            switch try Self.nextFrame(file, source: source, name: path, position: position, damage: &damage) {
            case .frame:
                let frame = file.frame.pointer
                guard frame.pointee.sample_rate == Int32(format.sampleRate) || frame.pointee.sample_rate == 0,
                      frame.pointee.ch_layout.nb_channels == Int32(format.channels) else {
                    // Rate or channels changed mid-stream: not converted (that would be resampling).
                    damage.note(position: position, packet: frame.pointee.pkt_pos, error: nil)
                    continue
                }
                let timestamp = Self.frameTimestamp(frame, expected: nextTimestamp)
                nextTimestamp = timestamp.map { $0 + timestampSpan(ofSamples: Int(frame.pointee.nb_samples)) }
                if seekTarget != nil && timestamp == nil { throw TimestampTrouble.unusable }
                if let target = seekTarget, let timestamp,
                   samples(fromTimestamp: timestamp - timeline.start) > target {
                    throw TimestampTrouble.unusable
                }
                var chunk = Self.clip(frame, timestamp: timestamp, timeline: timeline,
                                      target: seekTarget.map { timeline.start + timestampSpan(ofSamples: $0) })
                if dropCount > 0, let whole = chunk {
                    let dropped = min(dropCount, whole.count)
                    dropCount -= dropped
                    positionInSamples += dropped
                    chunk = dropped == whole.count ? nil : whole.dropping(dropped)
                    if chunk == nil && whole.reachesEnd {
                        finish()
                        return
                    }
                }
                if let chunk {
                    if seekTarget != nil, let timestamp {
                        positionInSamples = samples(fromTimestamp: timestamp - timeline.start) + chunk.first
                        seekTarget = nil
                    }
                    pending = (chunk.first, chunk.count)
                    if chunk.reachesEnd { finish() }
                    return
                }
                if let end = timeline.end, let timestamp, timestamp >= end {
                    finish()
                    return
                }
            case .failed:
                continue
            case .end:
                finish()
                return
            }
        }
    }

    private enum TimestampTrouble: Error { case unusable }

    private func finish() {
        finished = true
        noteEnd(at: positionInSamples + pending.count)
    }

    /// At the end of the stream: the real length where the container only estimated it, and a note
    /// when the audio stopped short of what the container promised.
    private func noteEnd(at end: Int) {
        guard seekTarget == nil else { return }
        if let stated = statedLength, lengthIsExact, end < stated {
            damage.log.cutShort = (end, stated)
        }
        if !lengthIsExact || (lengthInSamples ?? 0) > end {
            lengthInSamples = end
        }
        lengthIsFinal = true
    }

    /// Reopens the file and decodes up to `target`: for streams whose timestamps cannot be trusted.
    private func decodeThrough(to target: Int) throws {
        try reopen()
        try skip(target)
    }

    /// Moves `samples` forward by decoding; frames wholly skipped are never interleaved.
    private func skip(_ samples: Int) throws {
        let fromPending = min(samples, pending.count)
        pending = (pending.first + fromPending, pending.count - fromPending)
        positionInSamples += fromPending
        dropCount = samples - fromPending
        defer { dropCount = 0 }
        while dropCount > 0 && !finished {
            try decodeChunk()
        }
    }

    private func reopen() throws {
        source.seek(0, whence: SEEK_SET)
        let reopened = try OpenedFile(source: source, name: path)
        try reopened.openDecoder(manualSkip: manualSkip, name: path)
        file = reopened
        restart(at: 0)
    }

    private func restart(at position: Int) {
        pending = (0, 0)
        finished = false
        nextTimestamp = nil
        seekTarget = nil
        positionInSamples = position
    }

    private func samples(fromTimestamp timestamp: Int64) -> Int {
        Int(libav.av_rescale_q(timestamp, timeline.timeBase, AVRational(num: 1, den: Int32(format.sampleRate))))
    }

    private func timestampSpan(ofSamples samples: Int) -> Int64 {
        libav.av_rescale_q(Int64(samples), AVRational(num: 1, den: Int32(format.sampleRate)), timeline.timeBase)
    }
}
