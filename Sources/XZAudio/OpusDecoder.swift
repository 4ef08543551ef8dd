import COpusFile
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ogg Opus through libopusfile, reading a `ByteSource`: always 48 kHz `.float32`, the header's output
/// gain applied; pre-skip and the end trim come from granule positions, so joins are sample-exact.
final class OpusDecoder: AudioDecoder {
    static let plugin = DecoderPlugin(
        name: "opus", suffixes: ["opus"], mimeTypes: ["audio/ogg", "audio/opus"],
        claims: { $0.starts(with: "OggS") && $0.starts(with: "OpusHead", at: 28) },
        open: { try OpusDecoder($0) })

    let path: String
    let format: AudioFormat
    private(set) var lengthInSamples: Int?
    private(set) var positionInSamples = 0

    private let source: ByteSource
    private let file: OpaquePointer
    private var damage = DamageLog()
    private var finished = false
    /// The serial number of the link whose tags `streamTags` holds; read again when a new link begins.
    private var tagsSerial: Int?
    private(set) var streamTags: StreamTags?
    private let packetDecoder = OpusPacketDecoder()

    init(_ input: AudioInput) throws {
        path = input.name
        source = try ByteSource(input)
        var callbacks = OpusFileCallbacks(read: { data, buffer, count in
            guard let data, let buffer else { return -1 }
            let source = Unmanaged<ByteSource>.fromOpaque(data).takeUnretainedValue()
            return Int32(source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(count))))
        }, seek: { data, offset, whence in
            guard let data else { return -1 }
            let source = Unmanaged<ByteSource>.fromOpaque(data).takeUnretainedValue()
            return source.seek(offset, whence: whence) == nil ? -1 : 0
        }, tell: { data in
            guard let data else { return -1 }
            return Unmanaged<ByteSource>.fromOpaque(data).takeUnretainedValue().position
        }, close: nil)
        // A stream of no known end (radio) is no seekable file: libopusfile would look for an end that never comes.
        if source.size == nil { callbacks.seek = nil }
        var error: Int32 = 0
        guard let file = op_open_callbacks(Unmanaged.passUnretained(source).toOpaque(), &callbacks, nil, 0, &error) else {
            throw source.failure ?? Self.openError(error, path: path)
        }
        self.file = file
        packetDecoder.file = file
        op_set_decode_callback(file, OpusPacketDecoder.decode, Unmanaged.passUnretained(packetDecoder).toOpaque())
        let channels = Int(op_channel_count(file, -1))
        guard channels > 0 else {
            op_free(file)
            throw AudioError.damaged("broken Opus header: no channels", file: path)
        }
        format = AudioFormat(sampleRate: 48000, channels: channels, sample: .float32)
        if op_seekable(file) != 0 {
            let total = op_pcm_total(file, -1)
            lengthInSamples = total >= 0 ? Int(total) : nil
        }
    }

    deinit { op_free(file) }

    var damageReport: String? { damage.report(rate: format.sampleRate) }
    var sourceOffset: Int64? { source.growingFile == nil ? nil : source.position }

    var bitrateKbps: Int? {
        let rate = op_bitrate(file, -1)
        return rate > 0 ? Int(rate / 1000) : nil
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let channels = format.channels
        let frames = buffer.count / format.bytesPerFrame
        guard frames > 0, let base = buffer.baseAddress?.assumingMemoryBound(to: Float.self) else { return 0 }
        var done = 0
        while done < frames && !finished {
            var link: Int32 = 0
            let got = op_read_float(file, base + done * channels, Int32((frames - done) * channels), &link)
            if got == OP_HOLE {
                damage.note(atSample: positionInSamples + done)
                continue
            }
            if got < 0 {
                finished = true
                if let failure = source.failure { throw failure }
                if done > 0 { break }
                throw AudioError.damaged("cannot decode the Opus stream (libopusfile error \(got))", file: path)
            }
            if got == 0 {
                finished = true
                break
            }
            if Int(op_channel_count(file, link)) != channels {
                finished = true
                throw AudioError.damaged("a chained Ogg stream changes its channel count mid-way; only its first part plays", file: path)
            }
            if source.growingFile != nil { readLinkTags() }
            done += Int(got)
        }
        positionInSamples += done
        return done * format.bytesPerFrame
    }

    /// A stream's current link's TITLE and ARTIST, once for each link (its serial number tells them apart).
    private func readLinkTags() {
        let serial = Int(op_serialno(file, -1))
        guard serial != tagsSerial, let tags = op_tags(file, -1) else { return }
        tagsSerial = serial
        func first(_ key: String) -> String? { opus_tags_query(tags, key, 0).map { String(cString: $0) } }
        streamTags = StreamTags(title: first("TITLE"), artist: first("ARTIST"))
    }

    func seek(toSample sample: Int) throws {
        positionInSamples = try seekOgg(to: sample, codec: "Opus", seekable: op_seekable(file) != 0,
                                        failure: source.failure) { op_pcm_seek(file, ogg_int64_t($0)) }
        finished = lengthInSamples.map { positionInSamples >= $0 } ?? false
    }

    private static func openError(_ code: Int32, path: String) -> AudioError {
        switch code {
        case OP_ENOTFORMAT: return AudioError.unsupportedFormat("not an Opus stream", file: path)
        case OP_EBADHEADER: return AudioError.damaged("broken Opus codec header", file: path)
        case OP_EVERSION: return AudioError.unsupportedFormat("unsupported Opus version", file: path)
        case OP_EREAD: return AudioError.unreadable("cannot read the file", file: path)
        case OP_EIMPL: return AudioError.unsupportedFormat("uses an Opus feature libopusfile does not support", file: path)
        default: return AudioError.damaged("cannot open the Ogg Opus stream (libopusfile error \(code))", file: path)
        }
    }
}

/// Decodes libopusfile's packets of a mono or stereo stream (one Opus stream, channels in order) with that stream's
/// own decoder inside libopusfile's multistream decoder: the same state (libopusfile's resets and output gain
/// reach it), the same samples, but none of the multistream layer's per-packet work, which in libopus 1.3 runs
/// CPUID eight times a packet — a trap to the hypervisor on a virtual machine, a quarter of the decode's CPU.
/// Any other layout, or 16-bit output, is left to libopusfile.
private final class OpusPacketDecoder {
    var file: OpaquePointer?
    /// The multistream decoder whose first stream's decoder `stream` is (libopusfile makes a new one when a
    /// chained link changes layout; the first stream always sits at the same place in it).
    private var multistream: OpaquePointer?
    private var stream: OpaquePointer?

    static let decode: op_decode_cb_func = { context, multistream, pcm, packet, samples, channels, format, link in
        guard let context, let multistream, let pcm, let packet else { return OP_DEC_USE_DEFAULT }
        let decoder = Unmanaged<OpusPacketDecoder>.fromOpaque(context).takeUnretainedValue()
        guard format == OP_DEC_FORMAT_FLOAT, let file = decoder.file, let head = op_head(file, link),
              OpusPacketDecoder.isOneStreamInOrder(head, channels: channels) else { return OP_DEC_USE_DEFAULT }
        if decoder.multistream != multistream {
            decoder.stream = xz_opus_first_stream_decoder(multistream)
            decoder.multistream = multistream
        }
        guard let stream = decoder.stream else { return OP_DEC_USE_DEFAULT }
        let got = opus_decode_float(stream, packet.pointee.packet, Int32(clamping: packet.pointee.bytes),
                                    pcm.assumingMemoryBound(to: Float.self), samples, 0)
        // libopusfile asks for the packet's whole duration; anything else is a broken packet, as its own decode says.
        return got == samples ? 0 : (got < 0 ? got : OP_EBADPACKET)
    }

    private static func isOneStreamInOrder(_ head: UnsafePointer<OpusHead>, channels: Int32) -> Bool {
        let header = head.pointee
        guard header.stream_count == 1, header.channel_count == channels,
              header.coupled_count == (channels == 2 ? 1 : 0), channels == 1 || channels == 2 else { return false }
        return header.mapping.0 == 0 && (channels == 1 || header.mapping.1 == 1)
    }
}
