#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Uncompressed PCM in WAV (RIFF WAVE, WAVE_FORMAT_EXTENSIBLE) and AIFF/AIFC files, read without any codec
/// library, so playing or scanning them never loads FFmpeg: integer samples of 1 to 32 bits and 32- or
/// 64-bit float, little- or big-endian. Other codecs in these containers (ADPCM, µ-law, MP3 in WAV…) are
/// FFmpeg's. Out as FFmpegDecoder hands them: up to 16 bits `.s16`, deeper `.s32` in the high bits,
/// float `.float32`.
final class PCMFileDecoder: AudioDecoder {
    static let plugin = DecoderPlugin(
        name: "pcm", suffixes: ["wav", "wave", "aif", "aiff", "aifc"],
        mimeTypes: ["audio/wav", "audio/wave", "audio/x-wav", "audio/aiff", "audio/x-aiff"],
        claims: { PCMFileLayout.claims($0) },
        open: { input in
            let source = try ByteSource(input)
            guard let layout = try PCMFileLayout.read(source) else { return try FFmpegDecoder(input) }
            return try PCMFileDecoder(source: source, layout: layout)
        },
        measure: { path in
            guard let layout = try PCMFileLayout.read(try ByteSource(.file(path: path))) else {
                let decoder = try FFmpegDecoder(path: path)
                return (decoder.format, decoder.lengthInSamples)
            }
            return (layout.format, layout.frames)
        })

    let path: String
    let format: AudioFormat
    private(set) var lengthInSamples: Int?
    private(set) var positionInSamples = 0

    private let source: ByteSource
    private let layout: PCMFileLayout
    private var damage = DamageLog()
    /// The file's bytes for a read before they are converted; unused when they are already the output's.
    private var scratch: UnsafeMutableRawBufferPointer

    private init(source: ByteSource, layout: PCMFileLayout) throws {
        path = source.name
        self.source = source
        self.layout = layout
        format = layout.format
        lengthInSamples = layout.frames
        if let cut = layout.cutShort {
            damage.cutShort = (cut.at, cut.of)
        }
        let frameBytes = layout.blockAlign
        scratch = .allocate(byteCount: max(frameBytes, 32768 - 32768 % frameBytes), alignment: 16)
        source.seek(layout.dataStart, whence: SEEK_SET)
    }

    deinit { scratch.deallocate() }

    var damageReport: String? { damage.report(rate: format.sampleRate) }
    var sourceOffset: Int64? { source.growingFile == nil ? nil : source.position }
    var bitrateKbps: Int? { Int((Double(format.sampleRate * layout.blockAlign * 8) / 1000).rounded()) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let outFrame = format.bytesPerFrame
        var frames = buffer.count / outFrame
        if let length = lengthInSamples { frames = min(frames, length - positionInSamples) }
        guard frames > 0, let out = buffer.baseAddress else { return 0 }
        let inFrame = layout.blockAlign
        var done = 0
        while done < frames {
            let direct = layout.isOutputLayout
            let target = direct ? UnsafeMutableRawBufferPointer(rebasing: buffer[done * outFrame..<frames * outFrame])
                : UnsafeMutableRawBufferPointer(rebasing: scratch[0..<min(scratch.count, (frames - done) * inFrame)])
            let got = source.readFully(into: target)
            if got < 0 { throw source.failure ?? AudioError.unreadable("cannot read the file", file: path) }
            let whole = got / inFrame
            if !direct, let bytes = target.baseAddress {
                layout.convert(UnsafeRawPointer(bytes), samples: whole * format.channels, into: out + done * outFrame)
            }
            done += whole
            if got < target.count {
                endsEarly(at: positionInSamples + done)
                break
            }
        }
        positionInSamples += done
        // A piece of a frame at a cut end is left for the next read to drop at the same place.
        source.seek(layout.dataStart + Int64(positionInSamples) * Int64(inFrame), whence: SEEK_SET)
        return done * outFrame
    }

    /// The bytes stopped before the length the header gives: that is the length now.
    private func endsEarly(at reached: Int) {
        guard source.failure == nil else { return }
        if let length = lengthInSamples, reached < length {
            damage.cutShort = (reached, damage.cutShort?.of ?? length)
            lengthInSamples = reached
        }
    }

    func seek(toSample sample: Int) throws {
        guard sample >= 0 else { throw AudioError.cannotSeek("cannot seek to negative sample \(sample)", file: path) }
        let target = lengthInSamples.map { min(sample, $0) } ?? sample
        let (offset, overflow) = Int64(target).multipliedReportingOverflow(by: Int64(layout.blockAlign))
        guard !overflow, offset <= Int64.max - layout.dataStart else {
            throw AudioError.cannotSeek("cannot seek to sample \(sample): it is past any file's end", file: path)
        }
        source.seek(layout.dataStart + offset, whence: SEEK_SET)
        positionInSamples = target
    }
}

/// Where a WAV or AIFF file's samples lie and how each is stored, read from its header by walking a
/// bounded number of chunks. A hostile header is refused with one line, before any size is trusted.
struct PCMFileLayout {
    enum Encoding { case unsigned, signed, float }

    let container: String
    let sampleRate: Int
    let channels: Int
    /// Bytes each sample takes in the file: 1 to 4 for integers, 4 or 8 for float.
    let sampleBytes: Int
    /// The significant bits of an integer sample (left-justified in its bytes).
    let bits: Int
    let encoding: Encoding
    let bigEndian: Bool
    let dataStart: Int64
    /// Whole sample frames the file holds; nil when the header says "to the end" and the end is unknown.
    let frames: Int?
    /// The header's length when the file holds fewer frames than it gives.
    let cutShort: (at: Int, of: Int)?

    var blockAlign: Int { channels * sampleBytes }

    var format: AudioFormat {
        switch (encoding, sampleBytes) {
        case (.float, _): return AudioFormat(sampleRate: sampleRate, channels: channels, sample: .float32)
        case (_, 1), (_, 2): return AudioFormat(sampleRate: sampleRate, channels: channels, sample: .s16)
        default: return AudioFormat(sampleRate: sampleRate, channels: channels, sample: .s32, bits: bits <= 24 ? 24 : 32)
        }
    }

    /// The file's bytes are already the output's: native-endian 16- or 32-bit integers or 32-bit floats.
    var isOutputLayout: Bool {
        bigEndian == (1.bigEndian == 1) && (sampleBytes == 2 || sampleBytes == 4) && encoding != .unsigned
    }

    /// Most chunks a header walk looks at before giving up on finding the format and the samples.
    static let chunkLimit = 1024
    /// The 16 bytes of a WAVE_FORMAT_EXTENSIBLE sub-format GUID after its two-byte format tag.
    private static let guidTail: [UInt8] = [0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]

    /// True for a WAV or AIFF file unless its first bytes already show a codec other than PCM, which
    /// FFmpeg then claims.
    static func claims(_ head: ContentHead) -> Bool {
        let wave = head.starts(with: "RIFF", in: head.bytes) && head.starts(with: "WAVE", at: 8, in: head.bytes)
        let aiff = head.starts(with: "FORM", in: head.bytes)
            && (head.starts(with: "AIFF", at: 8, in: head.bytes) || head.starts(with: "AIFC", at: 8, in: head.bytes))
        guard wave || aiff else { return false }
        let bytes = head.bytes
        do {
            // nil: the header names another codec.
            return try read(name: "", size: nil) { offset, count in
                guard offset < bytes.count else { return [] }
                return Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
            } != nil
        } catch {
            // A broken header, or one whose samples lie past the first bytes: ours to read or refuse.
            return true
        }
    }

    /// The layout of `source`'s file, or nil when it holds a codec other than PCM.
    static func read(_ source: ByteSource) throws -> PCMFileLayout? {
        try read(name: source.name, size: source.size) { offset, count in
            guard source.seek(offset, whence: SEEK_SET) != nil else { return [] }
            var bytes = [UInt8](repeating: 0, count: count)
            let got = bytes.withUnsafeMutableBytes { source.readFully(into: $0) }
            if got < 0 { throw source.failure ?? AudioError.unreadable("cannot read the file", file: source.name) }
            return Array(bytes[0..<got])
        }
    }

    /// Reads the header through `fetch` (up to `count` bytes at an offset, fewer at the end).
    static func read(name: String, size: Int64?, fetch: (Int64, Int) throws -> [UInt8]) throws -> PCMFileLayout? {
        let start = try fetch(0, 12)
        guard start.count == 12 else { throw AudioError.damaged("broken header: the file ends inside it", file: name) }
        let wave = Array(start[0..<4]) == Array("RIFF".utf8)
        let kind = wave ? "WAV" : "AIFF"
        let container = Header(bytes: start, bigEndian: !wave)
        var format: Header?
        var compression = "NONE"
        var data: (start: Int64, bytes: Int64?)?
        var offset: Int64 = 12
        for _ in 0..<chunkLimit {
            let chunk = try fetch(offset, 8)
            guard chunk.count == 8 else { break }
            let header = Header(bytes: chunk, bigEndian: !wave)
            let id = header.text(0, 4), length = Int64(header.u32(4))
            let body = offset + 8
            switch id {
            case "fmt " where wave, "COMM" where !wave:
                let minimum = wave ? 16 : (container.text(8, 4) == "AIFC" ? 22 : 18)
                let bytes = try fetch(body, Int(min(length, 40)))
                guard length >= minimum, bytes.count >= minimum else {
                    throw AudioError.damaged("broken \(kind) header: its \(wave ? "fmt" : "COMM") chunk is cut short", file: name)
                }
                format = Header(bytes: bytes, bigEndian: !wave)
                if !wave && minimum == 22 { compression = format!.text(18, 4) }
            case "data" where wave:
                // 0 and 2^32 - 1: "to the end", as a program writing to a pipe leaves it.
                data = (body, length == 0 || length == 0xFFFF_FFFF ? nil : length)
            case "SSND" where !wave:
                let fields = try fetch(body, 8)
                guard length >= 8, fields.count == 8 else {
                    throw AudioError.damaged("broken AIFF header: its SSND chunk is cut short", file: name)
                }
                let skip = Int64(Header(bytes: fields, bigEndian: true).u32(0))
                guard skip <= length - 8 else {
                    throw AudioError.damaged("broken AIFF header: its SSND chunk's offset lies past the chunk", file: name)
                }
                data = (body + 8 + skip, length - 8 - skip)
            default:
                break
            }
            if let format {
                // Another codec is FFmpeg's, whatever else the header holds.
                if wave ? ![1, 3, 0xFFFE].contains(format.u16(0)) : !Self.aifcCodecs.keys.contains(compression) { return nil }
                if data != nil { break }
            }
            // Chunks are padded to an even length.
            offset = body + length + (length & 1)
            if let size, offset >= size { break }
        }
        guard let format else { throw AudioError.damaged("broken \(kind) header: no format chunk", file: name) }
        guard let data else { throw AudioError.damaged("broken \(kind) header: no sample data chunk", file: name) }

        let channels: Int, rate: Int, sampleBytes: Int, bits: Int, encoding: Encoding, bigEndian: Bool
        if wave {
            var tag = format.u16(0)
            channels = Int(format.u16(2))
            rate = Int(format.u32(4))
            let blockAlign = Int(format.u16(12))
            let containerBits = Int(format.u16(14))
            var valid = containerBits
            if tag == 0xFFFE {
                guard format.bytes.count >= 40 else {
                    throw AudioError.damaged("broken WAV header: its extensible fmt chunk is cut short", file: name)
                }
                guard Array(format.bytes[26..<40]) == guidTail, [1, 3].contains(format.u16(24)) else { return nil }
                tag = format.u16(24)
                let stated = Int(format.u16(18))
                valid = stated == 0 ? containerBits : stated
                guard valid <= containerBits, containerBits % 8 == 0 else {
                    throw AudioError.damaged("broken WAV header: \(valid) valid bits in \(containerBits)-bit samples", file: name)
                }
            }
            encoding = tag == 3 ? .float : containerBits <= 8 ? .unsigned : .signed
            sampleBytes = (containerBits + 7) / 8
            bits = valid
            bigEndian = false
            try check(kind, name: name, channels: channels, rate: rate, bits: containerBits, float: tag == 3)
            guard blockAlign == channels * sampleBytes else {
                throw AudioError.damaged("broken WAV header: blocks of \(blockAlign) bytes do not hold \(channels) "
                                         + "channels of \(sampleBytes)-byte samples", file: name)
            }
        } else {
            channels = Int(format.u16(0))
            let sampleBits = Int(format.u16(6))
            rate = try extendedRate(Array(format.bytes[8..<18]), name: name)
            let codec = aifcCodecs[compression]!
            encoding = codec.encoding
            bigEndian = codec.bigEndian
            bits = codec.bits ?? sampleBits
            sampleBytes = (bits + 7) / 8
            try check(kind, name: name, channels: channels, rate: rate, bits: bits, float: encoding == .float)
        }

        let blockAlign = channels * sampleBytes
        var frames: Int?
        var cutShort: (at: Int, of: Int)?
        let available = size.map { max(0, $0 - data.start) }
        if let stated = data.bytes {
            let stated = Int(stated / Int64(blockAlign))
            frames = stated
            if let available, Int(available / Int64(blockAlign)) < stated {
                frames = Int(available / Int64(blockAlign))
                cutShort = (frames!, stated)
            }
        } else if let available {
            frames = Int(available / Int64(blockAlign))
        }
        return PCMFileLayout(container: kind, sampleRate: rate, channels: channels, sampleBytes: sampleBytes, bits: bits,
                             encoding: encoding, bigEndian: bigEndian, dataStart: data.start, frames: frames, cutShort: cutShort)
    }

    /// AIFC's uncompressed codecs: how each stores a sample (bits nil: as COMM's sample size says).
    private static let aifcCodecs: [String: (encoding: Encoding, bigEndian: Bool, bits: Int?)] = [
        "NONE": (.signed, true, nil), "twos": (.signed, true, nil), "sowt": (.signed, false, nil),
        "in24": (.signed, true, 24), "in32": (.signed, true, 32), "raw ": (.unsigned, true, 8),
        "fl32": (.float, true, 32), "FL32": (.float, true, 32), "fl64": (.float, true, 64), "FL64": (.float, true, 64),
    ]

    private static func check(_ kind: String, name: String, channels: Int, rate: Int, bits: Int, float: Bool) throws {
        guard channels > 0 else { throw AudioError.damaged("broken \(kind) header: 0 channels", file: name) }
        guard channels <= 8 else { throw AudioError.unsupportedFormat("has \(channels) channels; at most 8 play", file: name) }
        guard (1..<(1 << 30)).contains(rate) else {
            throw AudioError.unsupportedFormat("has an impossible sample rate (\(rate) Hz)", file: name)
        }
        guard float ? bits == 32 || bits == 64 : (1...32).contains(bits) else {
            throw AudioError.unsupportedFormat("has \(bits)-bit \(float ? "float" : "integer") samples, which do not play", file: name)
        }
    }

    /// AIFF's sample rate, an 80-bit IEEE extended float; a whole number of hertz below 2^30.
    private static func extendedRate(_ e: [UInt8], name: String) throws -> Int {
        let exponent = Int(e[0] & 0x7F) << 8 | Int(e[1])
        let mantissa = e[2..<10].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let power = exponent - 16383
        // Negative, below 1 Hz or at least 2^30 Hz: no rate that plays.
        guard e[0] & 0x80 == 0, mantissa >> 63 == 1, (0..<30).contains(power) else {
            throw AudioError.unsupportedFormat("has an impossible sample rate in its AIFF header", file: name)
        }
        return Int(mantissa >> UInt64(63 - power))
    }

    /// Converts `samples` samples of the file at `input` into the output's layout at `out`.
    func convert(_ input: UnsafeRawPointer, samples: Int, into out: UnsafeMutableRawPointer) {
        let swap = bigEndian != (1.bigEndian == 1)
        switch (encoding, sampleBytes) {
        case (.unsigned, 1):
            let o = out.assumingMemoryBound(to: Int16.self)
            for i in 0..<samples { o[i] = (Int16(input.load(fromByteOffset: i, as: UInt8.self)) - 128) << 8 }
        case (_, 1):
            let o = out.assumingMemoryBound(to: Int16.self)
            for i in 0..<samples { o[i] = Int16(input.load(fromByteOffset: i, as: Int8.self)) << 8 }
        case (_, 2):
            let o = out.assumingMemoryBound(to: Int16.self)
            for i in 0..<samples {
                let raw = input.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)
                o[i] = Int16(bitPattern: swap ? raw.byteSwapped : raw)
            }
        case (_, 3):
            let o = out.assumingMemoryBound(to: Int32.self)
            let (low, high) = bigEndian ? (2, 0) : (0, 2)
            for i in 0..<samples {
                let b = input + 3 * i
                let value = UInt32(b.load(fromByteOffset: low, as: UInt8.self)) << 8
                    | UInt32(b.load(fromByteOffset: 1, as: UInt8.self)) << 16
                    | UInt32(b.load(fromByteOffset: high, as: UInt8.self)) << 24
                o[i] = Int32(bitPattern: value)
            }
        case (.float, 8):
            let o = out.assumingMemoryBound(to: Float.self)
            for i in 0..<samples {
                let raw = input.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)
                o[i] = Float(Double(bitPattern: swap ? raw.byteSwapped : raw))
            }
        default:
            // Four bytes: a 32-bit integer or float, moved as its bits.
            let o = out.assumingMemoryBound(to: UInt32.self)
            for i in 0..<samples {
                let raw = input.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)
                o[i] = swap ? raw.byteSwapped : raw
            }
        }
    }

    /// Fixed-width fields of a header, in the file's byte order.
    private struct Header {
        let bytes: [UInt8]
        let bigEndian: Bool

        func u16(_ at: Int) -> UInt16 {
            let (a, b) = (UInt16(bytes[at]), UInt16(bytes[at + 1]))
            return bigEndian ? a << 8 | b : b << 8 | a
        }

        func u32(_ at: Int) -> UInt32 {
            let value = bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return bigEndian ? value : value.byteSwapped
        }

        func text(_ at: Int, _ count: Int) -> String {
            String(decoding: bytes[at..<at + count], as: UTF8.self)
        }
    }
}
