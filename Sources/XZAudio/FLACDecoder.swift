import CFLAC
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XZSystem

/// Native FLAC through libFLAC's stream decoder, reading a `ByteSource`. 16-bit (and smaller) streams come
/// out as `.s16`, deeper ones as `.s32` with the samples in the high bits; the length is STREAMINFO's total,
/// so joins are sample-exact.
final class FLACDecoder: AudioDecoder {
    static let plugin = DecoderPlugin(
        name: "flac", suffixes: ["flac"], mimeTypes: ["audio/flac", "audio/x-flac"],
        claims: { $0.starts(with: "fLaC") },
        open: { try FLACDecoder($0) })

    let path: String
    private(set) var format = AudioFormat(sampleRate: 0, channels: 0)
    private(set) var lengthInSamples: Int?
    private(set) var positionInSamples = 0

    private let source: ByteSource
    private let decoder: UnsafeMutablePointer<FLAC__StreamDecoder>
    /// What a frame larger than the reader's buffer leaves over.
    private let queue = PCMQueue()
    /// The part of the reader's buffer the write callback fills directly when a whole frame fits.
    private var directOutput: UnsafeMutableRawBufferPointer?
    /// Bytes the write callback put into `directOutput` during the current frame's decode.
    private var directWritten = 0
    private var damage = DamageLog()
    /// The first error libFLAC reported since the last look (lost sync, bad header, CRC mismatch).
    private var streamError: FLAC__StreamDecoderErrorStatus?
    private var sawStreamInfo = false
    private var unsupported: String?
    /// The stream's end (or a failure) was reached; reads return what is queued, then 0.
    private var finished = false

    init(_ input: AudioInput) throws {
        path = input.name
        source = try ByteSource(input)
        guard let decoder = FLAC__stream_decoder_new() else {
            throw AudioError.libraryFailed("cannot create a FLAC decoder", file: path)
        }
        self.decoder = decoder
        let me = Unmanaged.passUnretained(self).toOpaque()
        let status = FLAC__stream_decoder_init_stream(
            decoder, flacRead, flacSeek, flacTell, flacLength, flacEOF, flacWrite, flacMetadata, flacError, me)
        guard status == FLAC__STREAM_DECODER_INIT_STATUS_OK else {
            throw AudioError.libraryFailed("cannot start the FLAC decoder", file: path)
        }
        guard FLAC__stream_decoder_process_until_end_of_metadata(decoder) != 0, sawStreamInfo else {
            throw source.failure ?? unsupported.map { AudioError.unsupportedFormat($0, file: path) }
                ?? AudioError.damaged("broken FLAC header: no readable STREAMINFO block", file: path)
        }
        if let unsupported { throw AudioError.unsupportedFormat(unsupported, file: path) }
    }

    deinit {
        FLAC__stream_decoder_delete(decoder)
    }

    var damageReport: String? { damage.report(rate: format.sampleRate) }
    var sourceOffset: Int64? { source.growingFile == nil ? nil : source.position }
    /// The queue holds only the rest of the last FLAC frame decoded (nothing when it went out whole).
    var framesLeftInBlock: Int? { queue.count / max(format.bytesPerFrame, 1) }

    var bitrateKbps: Int? {
        guard let size = source.size, let length = lengthInSamples, length > 0, format.sampleRate > 0 else { return nil }
        return Int(clamping: (Double(size) * 8 / (Double(length) / Double(format.sampleRate)) / 1000).rounded(.down), to: 0...Int.max)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let frameBytes = format.bytesPerFrame
        let usable = buffer.count - buffer.count % frameBytes
        guard usable > 0 else { return 0 }
        var written = 0
        while written < usable {
            if !queue.isEmpty {
                let n = queue.drain(into: UnsafeMutableRawBufferPointer(rebasing: buffer[written..<usable]))
                written += n
                positionInSamples += n / frameBytes
                continue
            }
            if finished { break }
            directOutput = UnsafeMutableRawBufferPointer(rebasing: buffer[written..<usable])
            directWritten = 0
            defer { directOutput = nil }
            try decodeNextFrame()
            written += directWritten
            positionInSamples += directWritten / frameBytes
        }
        return written
    }

    /// Sample frames decoded past `positionInSamples`: queued, or written straight into the reader's buffer.
    private var framesAhead: Int { (queue.count + directWritten) / format.bytesPerFrame }

    private func decodeNextFrame() throws {
        let ok = FLAC__stream_decoder_process_single(decoder) != 0
        let state = FLAC__stream_decoder_get_state(decoder)
        if streamError != nil {
            streamError = nil
            damage.note(atSample: positionInSamples + framesAhead)
        }
        if state == FLAC__STREAM_DECODER_END_OF_STREAM || !ok || state == FLAC__STREAM_DECODER_ABORTED {
            finished = true
            if let failure = source.failure { throw failure }
            let reached = positionInSamples + framesAhead
            if let length = lengthInSamples, reached < length {
                damage.cutShort = (reached, length)
                lengthInSamples = reached
            }
        }
    }

    func seek(toSample sample: Int) throws {
        guard sample >= 0 else { throw AudioError.cannotSeek("cannot seek to negative sample \(sample)", file: path) }
        let target = lengthInSamples.map { min(sample, $0) } ?? sample
        queue.removeAll()
        finished = false
        if let length = lengthInSamples, target >= length {
            finished = true
            positionInSamples = length
            return
        }
        // libFLAC hands the frame holding the target to the write callback, trimmed to start at it.
        if FLAC__stream_decoder_seek_absolute(decoder, FLAC__uint64(target)) == 0 {
            queue.removeAll()
            if FLAC__stream_decoder_get_state(decoder) == FLAC__STREAM_DECODER_SEEK_ERROR {
                _ = FLAC__stream_decoder_flush(decoder)
            }
            if let failure = source.failure { throw failure }
            // No seek table and a damaged stream: decode through from the start.
            guard FLAC__stream_decoder_reset(decoder) != 0,
                  FLAC__stream_decoder_process_until_end_of_metadata(decoder) != 0 else {
                throw AudioError.cannotSeek("cannot seek in this FLAC stream", file: path)
            }
            queue.removeAll()
            positionInSamples = 0
            try skipByDecoding(target)
            return
        }
        positionInSamples = target
    }

    // MARK: libFLAC's callbacks

    fileprivate func readBytes(_ buffer: UnsafeMutablePointer<FLAC__byte>, _ bytes: UnsafeMutablePointer<Int>) -> FLAC__StreamDecoderReadStatus {
        let got = source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: bytes.pointee))
        if got < 0 {
            bytes.pointee = 0
            return FLAC__STREAM_DECODER_READ_STATUS_ABORT
        }
        bytes.pointee = got
        return got == 0 ? FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM : FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
    }

    fileprivate func seekBytes(_ offset: UInt64) -> Bool {
        source.seek(Int64(offset), whence: SEEK_SET) != nil
    }

    fileprivate var bytePosition: UInt64 { UInt64(source.position) }
    fileprivate var byteLength: UInt64? { source.size.map { UInt64($0) } }
    fileprivate var atEnd: Bool { source.isAtEnd }

    fileprivate func metadata(_ block: UnsafePointer<FLAC__StreamMetadata>) {
        guard block.pointee.type == FLAC__METADATA_TYPE_STREAMINFO else { return }
        let info = block.pointee.data.stream_info
        let bits = Int(info.bits_per_sample)
        guard info.sample_rate > 0, info.channels > 0, bits >= 4, bits <= 32 else {
            unsupported = "FLAC stream of \(bits)-bit samples at \(info.sample_rate) Hz is not playable"
            return
        }
        sawStreamInfo = true
        format = AudioFormat(sampleRate: Int(info.sample_rate), channels: Int(info.channels),
                             sample: bits <= 16 ? .s16 : .s32, bits: bits)
        lengthInSamples = info.total_samples > 0 ? Int(info.total_samples) : nil
    }

    fileprivate func write(_ frame: UnsafePointer<FLAC__Frame>, _ channelsData: UnsafePointer<UnsafePointer<FLAC__int32>?>) -> FLAC__StreamDecoderWriteStatus {
        let header = frame.pointee.header
        let channels = format.channels
        guard Int(header.channels) == channels, Int(header.sample_rate) == format.sampleRate else {
            // A frame whose layout disagrees with STREAMINFO is damage, not a format change.
            damage.note(atSample: positionInSamples + (queue.count + directWritten) / max(format.bytesPerFrame, 1))
            return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
        }
        let count = Int(header.blocksize)
        let bits = Int(header.bits_per_sample == 0 ? UInt32(format.bits) : header.bits_per_sample)
        let byteCount = count * format.bytesPerFrame
        let direct = directOutput.flatMap { $0.count - directWritten >= byteCount ? $0.baseAddress : nil }
        let out = direct.map { $0 + directWritten } ?? queue.reserve(byteCount)
        if format.sample == .s16 && channels == 2, let left = channelsData[0], let right = channelsData[1] {
            // Stereo, the usual case: both channels in one pass, writing the output in order.
            let samples = out.assumingMemoryBound(to: Int16.self)
            let shift = Int32(16 - bits)
            for i in 0..<count {
                samples[2 * i] = Int16(truncatingIfNeeded: left[i] << shift)
                samples[2 * i + 1] = Int16(truncatingIfNeeded: right[i] << shift)
            }
        } else if format.sample == .s16 {
            let samples = out.assumingMemoryBound(to: Int16.self)
            let shift = Int32(16 - bits)
            for c in 0..<channels {
                guard let input = channelsData[c] else { continue }
                var o = c
                for i in 0..<count {
                    samples[o] = Int16(truncatingIfNeeded: input[i] << shift)
                    o += channels
                }
            }
        } else {
            let samples = out.assumingMemoryBound(to: Int32.self)
            let shift = Int32(32 - bits)
            for c in 0..<channels {
                guard let input = channelsData[c] else { continue }
                var o = c
                for i in 0..<count {
                    samples[o] = input[i] << shift
                    o += channels
                }
            }
        }
        if direct != nil { directWritten += byteCount } else { queue.commit(byteCount) }
        return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
    }

    fileprivate func error(_ status: FLAC__StreamDecoderErrorStatus) {
        if streamError == nil { streamError = status }
    }
}

private func decoderOf(_ data: UnsafeMutableRawPointer?) -> FLACDecoder {
    Unmanaged<FLACDecoder>.fromOpaque(data!).takeUnretainedValue()
}

private let flacRead: FLAC__StreamDecoderReadCallback = { _, buffer, bytes, data in
    guard let buffer, let bytes else { return FLAC__STREAM_DECODER_READ_STATUS_ABORT }
    return decoderOf(data).readBytes(buffer, bytes)
}

private let flacSeek: FLAC__StreamDecoderSeekCallback = { _, offset, data in
    decoderOf(data).seekBytes(offset) ? FLAC__STREAM_DECODER_SEEK_STATUS_OK : FLAC__STREAM_DECODER_SEEK_STATUS_ERROR
}

private let flacTell: FLAC__StreamDecoderTellCallback = { _, offset, data in
    offset?.pointee = decoderOf(data).bytePosition
    return FLAC__STREAM_DECODER_TELL_STATUS_OK
}

private let flacLength: FLAC__StreamDecoderLengthCallback = { _, length, data in
    guard let size = decoderOf(data).byteLength else { return FLAC__STREAM_DECODER_LENGTH_STATUS_UNSUPPORTED }
    length?.pointee = size
    return FLAC__STREAM_DECODER_LENGTH_STATUS_OK
}

private let flacEOF: FLAC__StreamDecoderEofCallback = { _, data in
    decoderOf(data).atEnd ? 1 : 0
}

private let flacWrite: FLAC__StreamDecoderWriteCallback = { _, frame, buffer, data in
    guard let frame, let buffer else { return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT }
    return decoderOf(data).write(frame, buffer)
}

private let flacMetadata: FLAC__StreamDecoderMetadataCallback = { _, block, data in
    if let block { decoderOf(data).metadata(block) }
}

private let flacError: FLAC__StreamDecoderErrorCallback = { _, status, data in
    decoderOf(data).error(status)
}
