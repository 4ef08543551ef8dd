import CVorbisFile
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ogg Vorbis through libvorbisfile, reading a `ByteSource`. Samples come out as `.float32`, as the codec
/// makes them; the length and every seek are exact by granule position, so joins are sample-exact.
final class VorbisDecoder: AudioDecoder {
    static let plugin = DecoderPlugin(
        name: "vorbis", suffixes: ["ogg", "oga"], mimeTypes: ["audio/ogg", "audio/vorbis", "application/ogg"],
        claims: { $0.starts(with: "OggS") && $0.starts(with: "\u{01}vorbis", at: 28) },
        open: { try VorbisDecoder($0) })

    let path: String
    let format: AudioFormat
    private(set) var lengthInSamples: Int?
    private(set) var positionInSamples = 0

    private let source: ByteSource
    private let file: UnsafeMutablePointer<OggVorbis_File>
    private var damage = DamageLog()
    private var finished = false
    /// The serial number of the link whose comments `streamTags` holds; read again when a new link begins.
    private var commentsSerial: Int?
    private(set) var streamTags: StreamTags?

    init(_ input: AudioInput) throws {
        path = input.name
        source = try ByteSource(input)
        file = .allocate(capacity: 1)
        var callbacks = ov_callbacks(read_func: { buffer, size, count, data in
            guard let buffer, let data else { return 0 }
            let source = Unmanaged<ByteSource>.fromOpaque(data).takeUnretainedValue()
            let got = source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
            if got < 0 {
                errno = EIO
                return 0
            }
            return got / max(size, 1)
        }, seek_func: { data, offset, whence in
            guard let data else { return -1 }
            let source = Unmanaged<ByteSource>.fromOpaque(data).takeUnretainedValue()
            return source.seek(offset, whence: whence) == nil ? -1 : 0
        }, close_func: nil, tell_func: { data in
            guard let data else { return -1 }
            return Int(Unmanaged<ByteSource>.fromOpaque(data).takeUnretainedValue().position)
        })
        // A stream of no known end (radio) is no seekable file: libvorbisfile would take it for one a few pages
        // long and skip every link after the first of a chained stream.
        if source.size == nil { callbacks.seek_func = nil }
        let opened = ov_open_callbacks(Unmanaged.passUnretained(source).toOpaque(), file, nil, 0, callbacks)
        guard opened == 0 else {
            file.deallocate()
            throw source.failure ?? Self.openError(opened, path: path)
        }
        guard let info = ov_info(file, -1)?.pointee, info.rate > 0, info.channels > 0 else {
            ov_clear(file)
            file.deallocate()
            throw AudioError.damaged("broken Vorbis header: no sample rate or channels", file: path)
        }
        format = AudioFormat(sampleRate: info.rate, channels: Int(info.channels), sample: .float32)
        if ov_seekable(file) != 0 {
            let total = ov_pcm_total(file, -1)
            lengthInSamples = total >= 0 ? Int(total) : nil
        }
    }

    deinit {
        ov_clear(file)
        file.deallocate()
    }

    var damageReport: String? { damage.report(rate: format.sampleRate) }
    var sourceOffset: Int64? { source.growingFile == nil ? nil : source.position }

    var bitrateKbps: Int? {
        let rate = ov_bitrate(file, -1)
        return rate > 0 ? Int(rate / 1000) : nil
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let channels = format.channels
        let frameBytes = format.bytesPerFrame
        let frames = buffer.count / frameBytes
        guard frames > 0, let base = buffer.baseAddress?.assumingMemoryBound(to: Float.self) else { return 0 }
        var done = 0
        while done < frames && !finished {
            var pcm: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
            var link: Int32 = 0
            let got = ov_read_float(file, &pcm, Int32(frames - done), &link)
            if got == OV_HOLE {
                damage.note(atSample: positionInSamples + done)
                continue
            }
            if got < 0 {
                finished = true
                if let failure = source.failure { throw failure }
                if done > 0 { break }
                throw AudioError.damaged("cannot decode the Vorbis stream (libvorbisfile error \(got))", file: path)
            }
            if got == 0 {
                finished = true
                break
            }
            if let info = ov_info(file, link)?.pointee, info.rate != format.sampleRate || Int(info.channels) != channels {
                finished = true
                throw AudioError.damaged("a chained Ogg stream changes to \(info.rate) Hz, \(info.channels) channel(s) mid-way; only its first part plays", file: path)
            }
            if source.growingFile != nil { readLinkComments() }
            guard let pcm else { continue }
            let count = Int(got)
            if channels == 2, let left = pcm[0], let right = pcm[1] {
                // Stereo, the usual case: both channels in one pass, writing the output in order.
                let out = base + done * 2
                for i in 0..<count {
                    out[2 * i] = left[i]
                    out[2 * i + 1] = right[i]
                }
                done += count
                continue
            }
            for c in 0..<channels {
                guard let input = pcm[c] else { continue }
                var o = done * channels + c
                for i in 0..<count {
                    base[o] = input[i]
                    o += channels
                }
            }
            done += count
        }
        positionInSamples += done
        return done * frameBytes
    }

    /// A stream's current link's TITLE and ARTIST, once for each link (its serial number tells them apart).
    private func readLinkComments() {
        let serial = Int(ov_serialnumber(file, -1))
        guard serial != commentsSerial, let comment = ov_comment(file, -1) else { return }
        commentsSerial = serial
        func first(_ key: String) -> String? { vorbis_comment_query(comment, key, 0).map { String(cString: $0) } }
        streamTags = StreamTags(title: first("TITLE"), artist: first("ARTIST"))
    }

    func seek(toSample sample: Int) throws {
        positionInSamples = try seekOgg(to: sample, codec: "Vorbis", seekable: ov_seekable(file) != 0,
                                        failure: source.failure) { ov_pcm_seek(file, ogg_int64_t($0)) }
        finished = lengthInSamples.map { positionInSamples >= $0 } ?? false
    }

    private static func openError(_ code: Int32, path: String) -> AudioError {
        switch code {
        case OV_ENOTVORBIS: return AudioError.unsupportedFormat("not a Vorbis stream", file: path)
        case OV_EBADHEADER: return AudioError.damaged("broken Vorbis codec header", file: path)
        case OV_EVERSION: return AudioError.unsupportedFormat("unsupported Vorbis version", file: path)
        case OV_EREAD: return AudioError.unreadable("cannot read the file", file: path)
        default: return AudioError.damaged("cannot open the Ogg Vorbis stream (libvorbisfile error \(code))", file: path)
        }
    }
}
