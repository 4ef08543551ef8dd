import CFFmpegLoader
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The decoder's plug-in: the suffixes and types it takes, and the content it claims by its first bytes.
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
