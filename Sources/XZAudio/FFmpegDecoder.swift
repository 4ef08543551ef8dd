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

    private enum FrameResult {
        case frame
        /// A packet or frame that did not decode; decoding carries on.
        case failed(Int32)
        /// The end of the stream, with the reading error that ended it if it was not a clean end.
        case end(Int32?)
    }

    /// The next decoded frame into `file.frame`, reading packets as the decoder asks for them.
    private static func nextFrame(_ file: OpenedFile, source: ByteSource, name: String, position: Int,
                                  damage: inout DamageTracker) throws -> FrameResult {
        let codec = file.codec.pointer
        let frame = file.frame.pointer
        let packet = file.packet.pointer
        while true {
            let received = libav.avcodec_receive_frame(codec, frame)
            if received == 0 { return .frame }
            if received == errorEndOfFile { return .end(file.readError) }
            if received != -EAGAIN {
                damage.note(position: position, packet: file.lastPacketPosition, error: received)
                return .failed(received)
            }
            let read = libav.av_read_frame(file.container.pointer, packet)
            if read < 0 {
                if let failure = source.failure { throw failure }
                if read != errorEndOfFile {
                    file.readError = read
                    // Demuxers step past a bad packet; one that keeps failing, or a broken file, ends the stream.
                    file.readFailures += 1
                    let atEnd = file.container.pointer.pointee.pb.map { $0.pointee.eof_reached != 0 } ?? true
                    if !atEnd && file.readFailures < 32 && read != -EIO {
                        damage.note(position: position, packet: nil, error: read)
                        continue
                    }
                }
                // Starts draining the decoder; an error only says it already is.
                _ = libav.avcodec_send_packet(codec, nil)
                continue
            }
            defer { libav.av_packet_unref(packet) }
            guard packet.pointee.stream_index == file.streamIndex else { continue }
            file.readFailures = 0
            file.lastPacketPosition = packet.pointee.pos
            if packet.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 {
                damage.note(position: position, packet: packet.pointee.pos, error: nil)
            }
            let sent = libav.avcodec_send_packet(codec, packet)
            if sent < 0 && sent != -EAGAIN && sent != errorEndOfFile {
                damage.note(position: position, packet: packet.pointee.pos, error: sent)
            }
        }
    }

    /// A frame's timestamp in stream time-base units: its own, else where the previous frame ended.
    private static func frameTimestamp(_ frame: UnsafeMutablePointer<AVFrame>, expected: Int64?) -> Int64? {
        let own = frame.pointee.pts != noTimestamp ? frame.pointee.pts : frame.pointee.best_effort_timestamp
        return own != noTimestamp ? own : expected
    }

    /// The samples of one frame to hand out.
    private struct Chunk {
        let first: Int
        let count: Int
        let frameSamples: Int
        let timestamp: Int64?
        let reachesEnd: Bool

        func dropping(_ samples: Int) -> Chunk {
            Chunk(first: first + samples, count: count - samples, frameSamples: frameSamples, timestamp: timestamp,
                  reachesEnd: reachesEnd)
        }
    }

    /// The part of `frame` inside the timeline (when it clips) and at or after `target` (a seek's, in
    /// time-base units); nil when none of it is.
    private static func clip(_ frame: UnsafeMutablePointer<AVFrame>, timestamp: Int64?, timeline: Timeline,
                             target: Int64?) -> Chunk? {
        let total = Int(frame.pointee.nb_samples)
        guard total > 0 else { return nil }
        var first = 0
        var end = total
        var reachesEnd = false
        if let timestamp {
            let rate = AVRational(num: 1, den: frame.pointee.sample_rate > 0 ? frame.pointee.sample_rate : 1)
            let offset = { (pts: Int64) in Int(libav.av_rescale_q(pts - timestamp, timeline.timeBase, rate)) }
            if timeline.clips {
                first = max(first, offset(timeline.start))
                if let stop = timeline.end, offset(stop) <= end {
                    end = max(0, offset(stop))
                    reachesEnd = true
                }
            }
            if let target { first = max(first, offset(target)) }
        }
        first = min(max(first, 0), total)
        guard end > first else { return nil }
        return Chunk(first: first, count: end - first, frameSamples: total, timestamp: timestamp, reachesEnd: reachesEnd)
    }

    // MARK: Sample conversion

    /// `.s16` for 8- and 16-bit integers, `.s32` for 32- and 64-bit ones, `.float32` for float and double.
    private static func outputFormat(for source: AVSampleFormat, rate: Int, channels: Int, rawBits: Int) -> AudioFormat {
        switch libav.av_get_packed_sample_fmt(source) {
        case AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_S16:
            return AudioFormat(sampleRate: rate, channels: channels, sample: .s16)
        case AV_SAMPLE_FMT_S32:
            let bits = rawBits <= 0 ? 32 : rawBits <= 16 ? 16 : rawBits <= 24 ? 24 : 32
            return AudioFormat(sampleRate: rate, channels: channels, sample: .s32, bits: bits)
        case AV_SAMPLE_FMT_S64:
            return AudioFormat(sampleRate: rate, channels: channels, sample: .s32)
        default:
            return AudioFormat(sampleRate: rate, channels: channels, sample: .float32)
        }
    }

    /// Interleaves samples `first..<first + count` of `frame` into `out` in `format`.
    private func convert(_ frame: UnsafeMutablePointer<AVFrame>, from first: Int, count: Int, into out: UnsafeMutableRawPointer) {
        let channels = format.channels
        let byteCount = count * format.bytesPerFrame
        let sourceFormat = AVSampleFormat(rawValue: frame.pointee.format)
        let planar = libav.av_sample_fmt_is_planar(sourceFormat) != 0
        guard let planes = frame.pointee.extended_data else {
            memset(out, 0, byteCount)
            return
        }
        let packedFormat = libav.av_get_packed_sample_fmt(sourceFormat)
        let sameSamples = (packedFormat, format.sample) == (AV_SAMPLE_FMT_S16, .s16)
            || (packedFormat, format.sample) == (AV_SAMPLE_FMT_S32, .s32)
            || (packedFormat, format.sample) == (AV_SAMPLE_FMT_FLT, .float32)
        if sameSamples && (!planar || channels == 1), let data = planes[0] {
            // Already interleaved in the output's layout (WAV, mono): one copy.
            memcpy(out, data + first * format.bytesPerFrame, byteCount)
            return
        }
        let layout = PlaneLayout(planes: planes, planar: planar, channels: channels, first: first, count: count)
        switch (packedFormat, format.sample) {
        case (AV_SAMPLE_FMT_S16, .s16): layout.interleave(Int16.self, into: out) { $0 }
        case (AV_SAMPLE_FMT_U8, .s16): layout.interleave(UInt8.self, into: out) { Int16(Int16($0) - 128) << 8 }
        case (AV_SAMPLE_FMT_S32, .s32): layout.interleave(Int32.self, into: out) { $0 }
        case (AV_SAMPLE_FMT_S64, .s32): layout.interleave(Int64.self, into: out) { Int32(truncatingIfNeeded: $0 >> 32) }
        case (AV_SAMPLE_FMT_FLT, .float32): layout.interleave(Float.self, into: out) { $0 }
        case (AV_SAMPLE_FMT_DBL, .float32): layout.interleave(Double.self, into: out) { Float($0) }
        case (let packed, let target):
            // A frame whose sample format differs from the first one's: through full scale.
            let read: (UnsafeRawPointer, Int) -> Double
            switch packed {
            case AV_SAMPLE_FMT_U8: read = { (Double($0.load(fromByteOffset: $1, as: UInt8.self)) - 128) / 128 }
            case AV_SAMPLE_FMT_S16: read = { Double($0.load(fromByteOffset: $1 * 2, as: Int16.self)) / 32768 }
            case AV_SAMPLE_FMT_S32: read = { Double($0.load(fromByteOffset: $1 * 4, as: Int32.self)) / 2147483648 }
            case AV_SAMPLE_FMT_S64: read = { Double($0.load(fromByteOffset: $1 * 8, as: Int64.self)) / 9223372036854775808 }
            case AV_SAMPLE_FMT_FLT: read = { Double($0.load(fromByteOffset: $1 * 4, as: Float.self)) }
            case AV_SAMPLE_FMT_DBL: read = { $0.load(fromByteOffset: $1 * 8, as: Double.self) }
            default:
                memset(out, 0, byteCount)
                return
            }
            for channel in 0..<channels {
                for i in 0..<count {
                    let (plane, index) = layout.place(channel: channel, sample: i)
                    let value = read(plane, index)
                    let at = (i * channels + channel) * target.bytes
                    switch target {
                    case .s16: out.storeBytes(of: Int16(Self.clamped(value * 32768, Int16.min, Int16.max)), toByteOffset: at, as: Int16.self)
                    case .s32: out.storeBytes(of: Int32(Self.clamped(value * 2147483648, Int32.min, Int32.max)), toByteOffset: at, as: Int32.self)
                    case .float32: out.storeBytes(of: Float(value), toByteOffset: at, as: Float.self)
                    }
                }
            }
        }
    }

    /// Rounded and clipped to the integer range; NaN becomes silence.
    private static func clamped<T: FixedWidthInteger>(_ value: Double, _ low: T, _ high: T) -> Int64 {
        guard !value.isNaN else { return 0 }
        return Int64(min(max(value.rounded(), Double(low)), Double(high)))
    }

    // MARK: Container facts

    static let noTimestamp = Int64.min  // AV_NOPTS_VALUE
    /// AVERROR_EOF: FFERRTAG('E','O','F',' '), the negated four-character code.
    static let errorEndOfFile = -Int32(bitPattern: UInt32(0x45) | UInt32(0x4F) << 8 | UInt32(0x46) << 16 | UInt32(0x20) << 24)

    static func describe(_ code: Int32) -> String {
        var text = [CChar](repeating: 0, count: 256)
        if libav.av_strerror(code, &text, text.count) < 0 { return "error \(code)" }
        return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    private static func metadata(_ key: String, _ container: UnsafeMutablePointer<AVFormatContext>,
                                 _ stream: UnsafeMutablePointer<AVStream>) -> String? {
        for dictionary in [container.pointee.metadata, stream.pointee.metadata] {
            if let entry = libav.av_dict_get(dictionary, key, nil, 0), let value = entry.pointee.value {
                return String(cString: value)
            }
        }
        return nil
    }

    /// The timestamp of the first packet not wholly in a plain file: where a cut-short MP4's audio ends.
    private static func firstMissingPacket(_ stream: UnsafeMutablePointer<AVStream>, source: ByteSource) -> Int64? {
        guard source.growingFile == nil, let size = source.size else { return nil }
        let count = libav.avformat_index_get_entries_count(stream)
        guard count > 0 else { return nil }
        for index in 0..<count {
            guard let entry = libav.avformat_index_get_entry(stream, index) else { continue }
            if entry.pointee.pos + Int64(entry.pointee.size) > size { return entry.pointee.timestamp }
        }
        return nil
    }
}

extension FFmpegDecoder: AudioDecoder {
    static let plugin = DecoderPlugin(
        name: "ffmpeg",
        suffixes: ["m4a", "m4b", "mp4", "aac", "alac", "wav", "wave", "w64", "aif", "aiff", "aifc", "caf", "wv",
                   "ape", "mpc", "mp+", "mpp", "tta", "wma", "asf", "ac3", "eac3", "dts", "mka", "au", "snd",
                   "amr", "shn", "tak", "dsf", "dff", "voc", "ra", "spx"],
        mimeTypes: ["audio/mp4", "audio/m4a", "audio/x-m4a", "audio/aac", "audio/aacp", "audio/x-aac",
                    "audio/wav", "audio/wave", "audio/x-wav", "audio/aiff", "audio/x-aiff", "audio/x-caf",
                    "audio/x-wavpack", "audio/x-ape", "audio/x-monkeys-audio", "audio/x-musepack", "audio/x-tta",
                    "audio/x-ms-wma", "audio/ac3", "audio/x-ac3", "audio/eac3", "audio/vnd.dts",
                    "audio/x-matroska", "audio/basic", "audio/amr", "audio/x-shorten", "audio/x-speex"],
        claims: { FFmpegDecoder.claims($0) },
        open: { try FFmpegDecoder($0) })

    /// The container's magic bytes, or else libavformat's own probe with a score no junk reaches. MP3,
    /// FLAC, Ogg Vorbis and Opus are left to their own decoders.
    static func claims(_ head: ContentHead) -> Bool {
        let bytes = head.container
        func at(_ offset: Int, _ magic: [UInt8]) -> Bool {
            bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
        }
        if head.starts(with: "fLaC") || head.startsWithMPEGFrame { return false }
        if head.starts(with: "ftyp", at: 4) { return true }
        if (head.starts(with: "RIFF") || head.starts(with: "RF64")) && head.starts(with: "WAVE", at: 8) { return true }
        if head.starts(with: "FORM") && (head.starts(with: "AIFF", at: 8) || head.starts(with: "AIFC", at: 8)) { return true }
        for magic in ["caff", "wvpk", "MAC ", "MPCK", "MP+", "TTA1", ".snd", "#!AMR", "ajkg", "tBaK", "DSD ", "FRM8"]
        where head.starts(with: magic) {
            return true
        }
        if at(0, [0x72, 0x69, 0x66, 0x66, 0x2E, 0x91, 0xCF, 0x11]) { return true }  // Sony Wave64
        if at(0, [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]) {
            return true  // ASF (WMA)
        }
        if at(0, [0x1A, 0x45, 0xDF, 0xA3]) { return true }  // EBML: Matroska, WebM
        if at(0, [0x7F, 0xFE, 0x80, 0x01]) { return true }  // DTS
        if isADTS(bytes) || isAC3(bytes) { return true }
        if head.starts(with: "OggS") { return !oggStartsWithVorbisOrOpus(bytes) }
        return probe(head.bytes)
    }

    /// An AAC ADTS header: 12-bit sync, layer 0, a valid rate index, and the next header where the frame
    /// length says (when the head reaches that far).
    private static func isADTS(_ b: [UInt8]) -> Bool {
        func header(at offset: Int) -> Int? {
            guard b.count >= offset + 7, b[offset] == 0xFF, b[offset + 1] & 0xF6 == 0xF0,
                  (b[offset + 2] >> 2) & 0x0F < 13 else { return nil }
            let length = Int(b[offset + 3] & 0x03) << 11 | Int(b[offset + 4]) << 3 | Int(b[offset + 5]) >> 5
            return length > 7 ? length : nil
        }
        guard let length = header(at: 0) else { return false }
        return b.count < length + 7 || header(at: length) != nil
    }

    /// An AC-3 or E-AC-3 syncframe with valid rate and size codes, and the next one where its size says.
    private static func isAC3(_ b: [UInt8]) -> Bool {
        func frameSize(at offset: Int) -> Int? {
            guard b.count >= offset + 6, b[offset] == 0x0B, b[offset + 1] == 0x77 else { return nil }
            let bsid = b[offset + 5] >> 3
            if bsid > 10 && bsid <= 16 {
                // E-AC-3: the size in 16-bit words, minus one.
                return ((Int(b[offset + 2] & 0x07) << 8 | Int(b[offset + 3])) + 1) * 2
            }
            let rateCode = b[offset + 4] >> 6, sizeCode = Int(b[offset + 4] & 0x3F)
            guard bsid <= 10, rateCode != 3, sizeCode < 38 else { return nil }
            let kbps = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640][sizeCode / 2]
            let words = rateCode == 0 ? kbps * 2 : rateCode == 1 ? kbps * 960 / 441 + sizeCode % 2 : kbps * 3
            return words * 2
        }
        guard let size = frameSize(at: 0) else { return false }
        return b.count < size + 6 || frameSize(at: size) != nil
    }

    /// True when the first Ogg page's packet is a Vorbis or Opus header (or cannot be seen).
    private static func oggStartsWithVorbisOrOpus(_ b: [UInt8]) -> Bool {
        guard b.count > 27 else { return true }
        let packet = 27 + Int(b[26])
        guard b.count >= packet + 8 else { return true }
        let start = Array(b[packet..<packet + 8])
        return start.starts(with: [0x01] + Array("vorbis".utf8)) || start == Array("OpusHead".utf8)
    }

    /// Demuxers that are not audio files or belong to other decoders, whatever their probe score.
    private static let unclaimedFormats: Set<String> = [
        "mp3", "flac", "ogg", "image2", "tty", "lrc", "srt", "ass", "webvtt", "microdvd", "subviewer",
        "h264", "hevc", "mpegvideo", "m4v", "mjpeg", "gif", "apng",
    ]

    /// libavformat's probe of the first bytes; a score above half the maximum means it recognised them.
    private static func probe(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return false }
        guard xz_ffmpeg_load() != nil else { return false }
        var padded = bytes + [UInt8](repeating: 0, count: Int(AVPROBE_PADDING_SIZE))
        var score = Int32(AVPROBE_SCORE_MAX / 2)
        let found: UnsafePointer<AVInputFormat>? = padded.withUnsafeMutableBufferPointer { buffer in
            "".withCString { emptyName in
                var data = AVProbeData()
                data.filename = emptyName
                data.buf = buffer.baseAddress
                data.buf_size = Int32(bytes.count)
                return libav.av_probe_input_format2(&data, 1, &score)
            }
        }
        guard let found, let cName = found.pointee.name else { return false }
        let name = String(cString: cName)
        return !unclaimedFormats.contains(name) && !name.hasSuffix("_pipe")
    }
}

// MARK: - Damage

extension FFmpegDecoder {
    /// The shared damage log, fed once per damaged packet.
    struct DamageTracker {
        var log = DamageLog()
        /// Byte offsets of packets already counted, so decoding them again after a seek adds nothing.
        private var packets: Set<Int64> = []
        private(set) var lastError: Int32?

        mutating func note(position: Int, packet: Int64?, error: Int32?) {
            if let error { lastError = error }
            if let packet, packet >= 0, !packets.insert(packet).inserted { return }
            log.note(atSample: position)
        }
    }
}
