import CFFmpegLoader
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// FFmpeg's functions; read only after `requireLibraries` (or the probe) saw them load.
private var libav: xz_ffmpeg { xz_ffmpeg_load()!.pointee }

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

    private let queue = PCMQueue()
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
                    throw AudioError(file: path, message: "cannot decode \(codecName) audio: \(Self.describe(code))")
                }
            case .end(let code):
                if decodedAny { break firstFrame }
                let reason = code.map(Self.describe) ?? damage.lastError.map(Self.describe) ?? "the stream holds no audio"
                throw AudioError(file: path, message: "cannot decode \(codecName) audio: \(reason)")
            }
        }

        let frame = file.frame.pointer.pointee
        let sourceFormat = AVSampleFormat(rawValue: frame.format)
        let codec = file.codec.pointer.pointee
        let rate = Int(frame.sample_rate > 0 ? frame.sample_rate : codec.sample_rate)
        let channels = Int(frame.ch_layout.nb_channels)
        guard rate > 0, channels > 0 else {
            throw AudioError(file: path, message: "cannot decode \(codecName) audio: no sample rate or channel count")
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
            convert(file.frame.pointer, from: first.first, count: first.count)
        } else {
            finish()
        }
    }

    /// Loads FFmpeg's libraries on first use; throws a one-line reason when they are not installed.
    static func requireLibraries(for name: String) throws {
        guard xz_ffmpeg_load() == nil else { return }
        throw AudioError(file: name, message: "FFmpeg's libraries are needed for this file: "
                         + (xz_ffmpeg_error().map { String(cString: $0) } ?? "they cannot be loaded"))
    }

    /// FFmpeg's short name of a codec ("aac", "alac").
    static func codecName(_ id: AVCodecID) -> String {
        libav.avcodec_get_name(id).map { String(cString: $0) } ?? "unknown"
    }

    var damageReport: String? { damage.log.report(rate: format.sampleRate) }

    /// Where reading goes on in a growing source; nil for a plain file.
    var sourceOffset: Int64? { source.growingFile != nil ? source.position : nil }

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
            throw AudioError(file: path, message: "read buffer of \(buffer.count) bytes is smaller than one sample frame (\(frameBytes) bytes)")
        }
        var written = 0
        while written < usable {
            if !queue.isEmpty {
                let n = queue.drain(into: UnsafeMutableRawBufferPointer(start: base + written, count: usable - written))
                written += n
                positionInSamples += n / frameBytes
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
            throw AudioError(file: path, message: "cannot seek to negative sample \(sample)")
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
            let position = positionInSamples + queue.count / format.bytesPerFrame
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
                    convert(frame, from: chunk.first, count: chunk.count)
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
        noteEnd(at: positionInSamples + queue.count / format.bytesPerFrame)
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
        let frameBytes = format.bytesPerFrame
        let fromQueue = min(samples, queue.count / frameBytes)
        queue.dropFirst(fromQueue * frameBytes)
        positionInSamples += fromQueue
        dropCount = samples - fromQueue
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
        queue.removeAll()
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
                if let failure = source.failureMessage {
                    throw AudioError(file: name, message: failure)
                }
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
                libav.avcodec_send_packet(codec, nil)
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

    /// Interleaves samples `first..<first + count` of `frame` into the pending buffer in `format`.
    private func convert(_ frame: UnsafeMutablePointer<AVFrame>, from first: Int, count: Int) {
        let channels = format.channels
        let byteCount = count * format.bytesPerFrame
        let out = queue.reserve(byteCount)
        defer { queue.commit(byteCount) }
        let sourceFormat = AVSampleFormat(rawValue: frame.pointee.format)
        let planar = libav.av_sample_fmt_is_planar(sourceFormat) != 0
        guard let data = frame.pointee.extended_data else { return }
        let planes = (0..<(planar ? channels : 1)).map { UnsafeRawPointer(data[$0]!) }
        let layout = PlaneLayout(planes: planes, planar: planar, channels: channels, first: first, count: count)
        switch (libav.av_get_packed_sample_fmt(sourceFormat), format.sample) {
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
        return String(cString: text)
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
    fileprivate struct DamageTracker {
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

// MARK: - Timeline

extension FFmpegDecoder {

    /// Where position 0 and the end of the audio lie on the stream's timestamps (time-base units).
    fileprivate struct Timeline {
        var start: Int64
        var end: Int64?
        /// Frames are trimmed to `start..<end` by their timestamps: an MP4 whose boxes say which samples are audio.
        var clips: Bool
        var timeBase: AVRational
        /// False when frames come without timestamps or the container's cannot be trusted after a jump:
        /// seeks then decode their way from the start.
        var seeksByTimestamp = true
    }

    /// iTunes' gapless note: ` 00000000 DELAY PADDING LENGTH …`, hexadecimal sample counts.
    fileprivate struct ITunSMPB {
        let priming: Int64
        let length: Int64

        init?(_ text: String) {
            let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 4, let priming = Int64(fields[1], radix: 16), Int64(fields[2], radix: 16) != nil,
                  let length = Int64(fields[3], radix: 16), length > 0, priming >= 0 else { return nil }
            self.priming = priming
            self.length = length
        }
    }

    /// An MP4 track's timing as its own boxes give it. libavformat keeps the media's exact length private and
    /// takes the edit list at the movie's timescale, which FFmpeg-written files set to milliseconds: a track
    /// whose length is no whole number of milliseconds would lose or keep up to one millisecond of samples.
    fileprivate struct MP4Timing {
        let movieTimescale: Int64
        let mediaTimescale: Int64
        /// The sum of the sample durations (`stts`).
        let mediaDuration: Int64
        /// `elst` entries: duration in movie units, start in media units (-1: an empty edit).
        let edits: [(duration: Int64, mediaTime: Int64)]

        /// The audio's samples in FFmpeg's timestamps (media units, shifted so the edit's start is 0), or
        /// nil when the timing is beyond this reading (several edits, fragments) and FFmpeg's own trimming applies.
        func window(iTunSMPB: ITunSMPB?) -> Range<Int64>? {
            guard mediaDuration > 0, movieTimescale > 0, mediaTimescale > 0 else { return nil }
            if edits.isEmpty {
                if let smpb = iTunSMPB, smpb.priming + smpb.length <= mediaDuration {
                    return smpb.priming..<smpb.priming + smpb.length
                }
                return 0..<mediaDuration
            }
            guard edits.count == 1, let edit = edits.first, edit.mediaTime >= 0, edit.mediaTime < mediaDuration else {
                return nil
            }
            var end = edit.duration == 0 ? mediaDuration
                : edit.mediaTime + libav.av_rescale(edit.duration, mediaTimescale, movieTimescale)
            // Within one movie tick of the media's end, the edit meant the end: the tick only rounded it.
            let tick = (mediaTimescale + movieTimescale - 1) / movieTimescale
            if end < mediaDuration && mediaDuration - end < tick { end = mediaDuration }
            end = min(end, mediaDuration)
            return 0..<end - edit.mediaTime
        }

        /// Reads the `moov` box of the file behind `source` and the track numbered `trackID`; the source's
        /// position is restored.
        static func read(from source: ByteSource, trackID: Int32, timeBase: AVRational) -> MP4Timing? {
            let saved = source.position
            defer { source.seek(saved, whence: SEEK_SET) }
            guard let moov = findTopLevelBox("moov", in: source) else { return nil }
            var movieTimescale: Int64?
            for (type, body) in boxes(in: moov, moov.indices) {
                if type == "mvhd" { movieTimescale = timescale(moov, body) }
                if type == "mvex" { return nil }  // fragmented: the samples are not all in `stts`
            }
            for (type, body) in boxes(in: moov, moov.indices) where type == "trak" {
                guard let timing = track(moov, body, trackID: trackID, movieTimescale: movieTimescale) else { continue }
                // FFmpeg's timestamps count in the media timescale; anything else is beyond this reading.
                guard timeBase.num == 1, Int64(timeBase.den) == timing.mediaTimescale else { return nil }
                return timing
            }
            return nil
        }

        private static func track(_ data: [UInt8], _ trak: Range<Int>, trackID: Int32, movieTimescale: Int64?) -> MP4Timing? {
            var id: Int64?
            var edits: [(Int64, Int64)] = []
            var mediaTimescale: Int64?
            var mediaDuration: Int64?
            for (type, body) in boxes(in: data, trak) {
                switch type {
                case "tkhd":
                    let version = body.isEmpty ? 0 : data[body.lowerBound]
                    id = integer(data, body.lowerBound + (version == 1 ? 20 : 12), 4)
                case "edts":
                    for (inner, list) in boxes(in: data, body) where inner == "elst" { edits = editList(data, list) ?? [] }
                case "mdia":
                    for (inner, part) in boxes(in: data, body) {
                        if inner == "mdhd" { mediaTimescale = timescale(data, part) }
                        if inner == "minf" { mediaDuration = sampleTableDuration(data, part) }
                    }
                default: break
                }
            }
            guard let id, id == Int64(trackID), let movieTimescale, let mediaTimescale, let mediaDuration else { return nil }
            return MP4Timing(movieTimescale: movieTimescale, mediaTimescale: mediaTimescale,
                             mediaDuration: mediaDuration, edits: edits)
        }

        /// `mvhd` and `mdhd` share their layout up to the timescale.
        private static func timescale(_ data: [UInt8], _ body: Range<Int>) -> Int64? {
            guard !body.isEmpty else { return nil }
            let offset = body.lowerBound + (data[body.lowerBound] == 1 ? 20 : 12)
            guard offset + 4 <= body.upperBound else { return nil }
            return integer(data, offset, 4)
        }

        private static func editList(_ data: [UInt8], _ body: Range<Int>) -> [(Int64, Int64)]? {
            guard body.count >= 8, let count = integer(data, body.lowerBound + 4, 4) else { return nil }
            let wide = data[body.lowerBound] == 1
            let entrySize = wide ? 20 : 12
            guard count <= (body.count - 8) / entrySize else { return nil }
            return (0..<Int(count)).compactMap { index in
                let at = body.lowerBound + 8 + index * entrySize
                guard let duration = integer(data, at, wide ? 8 : 4), let time = integer(data, at + (wide ? 8 : 4), wide ? 8 : 4) else {
                    return nil
                }
                // media_time is signed: -1 marks an empty edit.
                let mediaTime = wide ? Int64(bitPattern: UInt64(bitPattern: time)) : Int64(Int32(truncatingIfNeeded: time))
                return (duration, mediaTime)
            }
        }

        private static func sampleTableDuration(_ data: [UInt8], _ minf: Range<Int>) -> Int64? {
            for (type, stbl) in boxes(in: data, minf) where type == "stbl" {
                for (inner, stts) in boxes(in: data, stbl) where inner == "stts" {
                    guard stts.count >= 8, let count = integer(data, stts.lowerBound + 4, 4),
                          count <= (stts.count - 8) / 8 else { return nil }
                    var total: Int64 = 0
                    for index in 0..<Int(count) {
                        let at = stts.lowerBound + 8 + index * 8
                        guard let samples = integer(data, at, 4), let delta = integer(data, at + 4, 4) else { return nil }
                        total += samples * delta
                    }
                    return total
                }
            }
            return nil
        }

        /// The child boxes in `range`: type and body.
        private static func boxes(in data: [UInt8], _ range: Range<Int>) -> [(String, Range<Int>)] {
            var found: [(String, Range<Int>)] = []
            var offset = range.lowerBound
            while offset + 8 <= range.upperBound {
                guard var size = integer(data, offset, 4) else { break }
                var header = 8
                if size == 1 {
                    guard offset + 16 <= range.upperBound, let large = integer(data, offset + 8, 8) else { break }
                    size = large
                    header = 16
                } else if size == 0 {
                    size = Int64(range.upperBound - offset)
                }
                guard size >= Int64(header), Int64(offset) + size <= Int64(range.upperBound) else { break }
                let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
                found.append((type, offset + header..<offset + Int(size)))
                offset += Int(size)
            }
            return found
        }

        /// The body of the first top-level box of `type`, read whole (up to 64 MiB).
        private static func findTopLevelBox(_ type: String, in source: ByteSource) -> [UInt8]? {
            guard let box = topLevelBox(type, in: source) else { return nil }
            guard box.bodySize > 0, box.bodySize <= 64 << 20 else { return nil }
            var body = [UInt8](repeating: 0, count: Int(box.bodySize))
            source.seek(box.bodyOffset, whence: SEEK_SET)
            let read = body.withUnsafeMutableBytes { source.readFully(into: $0) }
            return read == body.count ? body : nil
        }

        /// True for an MP4 (`ftyp` first) with no `moov` box: nothing says where its samples are.
        static func lacksIndex(_ source: ByteSource) -> Bool {
            var head = [UInt8](repeating: 0, count: 8)
            source.seek(0, whence: SEEK_SET)
            guard head.withUnsafeMutableBytes({ source.readFully(into: $0) }) == 8,
                  Array(head[4..<8]) == Array("ftyp".utf8) else { return false }
            return topLevelBox("moov", in: source) == nil
        }

        /// Walks the top-level box headers to the first box of `type`.
        private static func topLevelBox(_ type: String, in source: ByteSource) -> (bodyOffset: Int64, bodySize: Int64)? {
            var offset: Int64 = 0
            for _ in 0..<4096 {
                var header = [UInt8](repeating: 0, count: 16)
                source.seek(offset, whence: SEEK_SET)
                let got = header.withUnsafeMutableBytes { source.readFully(into: $0) }
                guard got >= 8, var size = integer(header, 0, 4) else { return nil }
                var headerSize: Int64 = 8
                if size == 1 {
                    guard got >= 16, let large = integer(header, 8, 8) else { return nil }
                    size = large
                    headerSize = 16
                }
                if String(decoding: header[4..<8], as: UTF8.self) == type {
                    let bodySize = size == 0 ? (source.size ?? 0) - offset - headerSize : size - headerSize
                    return (offset + headerSize, bodySize)
                }
                guard size >= headerSize else { return nil }
                offset += size
            }
            return nil
        }

        /// A big-endian unsigned integer of `width` bytes at `offset`, nil past the end.
        private static func integer(_ data: [UInt8], _ offset: Int, _ width: Int) -> Int64? {
            guard offset >= 0, offset + width <= data.count else { return nil }
            var value: UInt64 = 0
            for byte in data[offset..<offset + width] { value = value << 8 | UInt64(byte) }
            return Int64(bitPattern: value)
        }
    }

    /// Where each channel's samples lie in a frame, planar or packed.
    fileprivate struct PlaneLayout {
        let planes: [UnsafeRawPointer]
        let planar: Bool
        let channels: Int
        let first: Int
        let count: Int

        /// The plane and sample index of `sample` (from `first`) of `channel`.
        func place(channel: Int, sample: Int) -> (UnsafeRawPointer, Int) {
            planar ? (planes[channel], first + sample) : (planes[0], (first + sample) * channels + channel)
        }

        func interleave<Source, Target>(_: Source.Type, into out: UnsafeMutableRawPointer, _ convert: (Source) -> Target) {
            let target = out.bindMemory(to: Target.self, capacity: count * channels)
            if planar {
                for channel in 0..<channels {
                    let source = planes[channel].assumingMemoryBound(to: Source.self) + first
                    for i in 0..<count { target[i * channels + channel] = convert(source[i]) }
                }
            } else {
                let source = planes[0].assumingMemoryBound(to: Source.self) + first * channels
                for i in 0..<count * channels { target[i] = convert(source[i]) }
            }
        }
    }

    /// libavformat's reader over a `ByteSource`: reads and seeks go to the source, whose size answers AVSEEK_SIZE.
    fileprivate final class IOContext {
        let pointer: UnsafeMutablePointer<AVIOContext>
        /// Reached from C through an unretained pointer; held here so it outlives the context.
        let source: ByteSource

        init(source: ByteSource, name: String) throws {
            self.source = source
            let size = 65536
            guard let buffer = libav.av_malloc(size) else { throw AudioError(file: name, message: "out of memory") }
            let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = { opaque, buffer, size in
                let source = Unmanaged<ByteSource>.fromOpaque(opaque!).takeUnretainedValue()
                let got = source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(size)))
                return got > 0 ? Int32(got) : got == 0 ? FFmpegDecoder.errorEndOfFile : -EIO
            }
            let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
                let source = Unmanaged<ByteSource>.fromOpaque(opaque!).takeUnretainedValue()
                if whence & AVSEEK_SIZE != 0 { return source.size ?? -1 }
                return source.seek(offset, whence: whence & ~AVSEEK_FORCE) ?? Int64(-EINVAL)
            }
            let opaque = Unmanaged.passUnretained(source).toOpaque()
            guard let context = libav.avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 0,
                                                   opaque, read, nil, seek) else {
                libav.av_free(buffer)
                throw AudioError(file: name, message: "out of memory")
            }
            pointer = context
        }

        deinit {
            libav.av_free(pointer.pointee.buffer)  // libavformat may have replaced the one given
            var context: UnsafeMutablePointer<AVIOContext>? = pointer
            libav.avio_context_free(&context)
        }
    }

    fileprivate final class FormatContext {
        let pointer: UnsafeMutablePointer<AVFormatContext>
        /// Kept alive until the format context is closed.
        let io: IOContext

        init(io: IOContext, name: String) throws {
            self.io = io
            guard var context = libav.avformat_alloc_context() else { throw AudioError(file: name, message: "out of memory") }
            context.pointee.pb = io.pointer
            // FFmpeg's default reads up to 5 MB looking for streams hidden in PCM (DTS or AC-3 in a WAV),
            // running every demuxer's probe over it: most of a folder scan's time. A WAV or AIFF header says
            // all there is; other containers get enough for their first packets.
            context.pointee.probesize = Self.headerSaysAll(io.source) ? 4096 : 64 * 1024
            var opened: UnsafeMutablePointer<AVFormatContext>? = context
            let code = libav.avformat_open_input(&opened, name, nil, nil)
            guard code >= 0, let opened else {
                // avformat_open_input freed the context.
                if let failure = io.source.failureMessage { throw AudioError(file: name, message: failure) }
                if MP4Timing.lacksIndex(io.source) {
                    throw AudioError(file: name, message: "MP4 file without its index (moov box): it is probably cut short")
                }
                throw AudioError(file: name, message: "not an audio file FFmpeg can read (\(FFmpegDecoder.describe(code)))")
            }
            context = opened
            pointer = context
        }

        deinit {
            var context: UnsafeMutablePointer<AVFormatContext>? = pointer
            libav.avformat_close_input(&context)  // leaves the custom AVIOContext to IOContext
        }

        /// A RIFF (WAV) or IFF (AIFF) file, whose header gives the whole PCM format.
        private static func headerSaysAll(_ source: ByteSource) -> Bool {
            var magic = [UInt8](repeating: 0, count: 4)
            let start = source.position
            let got = magic.withUnsafeMutableBytes { source.readFully(into: $0) }
            source.seek(start, whence: SEEK_SET)
            return got == 4 && (magic == Array("RIFF".utf8) || magic == Array("FORM".utf8) || magic == Array("RF64".utf8))
        }
    }

    fileprivate final class CodecContext {
        let pointer: UnsafeMutablePointer<AVCodecContext>

        init(pointer: UnsafeMutablePointer<AVCodecContext>) { self.pointer = pointer }

        deinit {
            var context: UnsafeMutablePointer<AVCodecContext>? = pointer
            libav.avcodec_free_context(&context)
        }
    }

    fileprivate final class Packet {
        let pointer: UnsafeMutablePointer<AVPacket>

        init() throws {
            guard let packet = libav.av_packet_alloc() else { throw AudioError(file: "", message: "out of memory") }
            pointer = packet
        }

        deinit {
            var packet: UnsafeMutablePointer<AVPacket>? = pointer
            libav.av_packet_free(&packet)
        }
    }

    fileprivate final class Frame {
        let pointer: UnsafeMutablePointer<AVFrame>

        init() throws {
            guard let frame = libav.av_frame_alloc() else { throw AudioError(file: "", message: "out of memory") }
            pointer = frame
        }

        deinit {
            var frame: UnsafeMutablePointer<AVFrame>? = pointer
            libav.av_frame_free(&frame)
        }
    }

    /// One opening of the file: the container, its best audio stream and that stream's decoder.
    fileprivate final class OpenedFile {
        let container: FormatContext
        let stream: UnsafeMutablePointer<AVStream>
        let streamIndex: Int32
        private var codecContext: CodecContext?
        let packet: Packet
        let frame: Frame
        var readError: Int32?
        var readFailures = 0
        var lastPacketPosition: Int64 = -1

        var codec: CodecContext { codecContext! }

        init(source: ByteSource, name: String) throws {
            container = try FormatContext(io: IOContext(source: source, name: name), name: name)
            let context = container.pointer
            let infoCode = libav.avformat_find_stream_info(context, nil)
            if infoCode < 0 {
                if let failure = source.failureMessage { throw AudioError(file: name, message: failure) }
                throw AudioError(file: name, message: "not an audio file FFmpeg can read (\(FFmpegDecoder.describe(infoCode)))")
            }
            let index = libav.av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
            guard index >= 0, let stream = context.pointee.streams[Int(index)] else {
                throw AudioError(file: name, message: "no audio stream in this \(String(cString: context.pointee.iformat.pointee.long_name ?? context.pointee.iformat.pointee.name)) file")
            }
            for other in 0..<Int(context.pointee.nb_streams) where other != Int(index) {
                context.pointee.streams[other]?.pointee.discard = AVDISCARD_ALL
            }
            self.stream = stream
            streamIndex = index
            packet = try Packet()
            frame = try Frame()
        }

        /// `manualSkip`: the decoder leaves encoder delay in place (the caller trims by timestamps).
        func openDecoder(manualSkip: Bool, name: String) throws {
            let parameters = stream.pointee.codecpar!
            let codecName = FFmpegDecoder.codecName(parameters.pointee.codec_id)
            guard let decoder = libav.avcodec_find_decoder(parameters.pointee.codec_id) else {
                throw AudioError(file: name, message: "cannot decode \(codecName) audio: this FFmpeg has no decoder for it")
            }
            guard let pointer = libav.avcodec_alloc_context3(decoder) else { throw AudioError(file: name, message: "out of memory") }
            let context = CodecContext(pointer: pointer)
            var code = libav.avcodec_parameters_to_context(pointer, parameters)
            if code >= 0 {
                pointer.pointee.pkt_timebase = stream.pointee.time_base
                if manualSkip { pointer.pointee.flags2 |= AV_CODEC_FLAG2_SKIP_MANUAL }
                code = libav.avcodec_open2(pointer, decoder, nil)
            }
            guard code >= 0 else {
                throw AudioError(file: name, message: "cannot decode \(codecName) audio: \(FFmpegDecoder.describe(code))")
            }
            codecContext = context
        }
    }
}
