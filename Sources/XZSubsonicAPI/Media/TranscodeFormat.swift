import Foundation
import XZAudio
import XZEncoders

/// A format `stream` transcodes to, with the project's encoder for it and its bit rates.
package enum TranscodeFormat: String, Sendable, CaseIterable {
    case mp3, opus, vorbis, flac

    /// The `format` parameter's words; "raw", an absent or an unknown format is none (the file as it is).
    package init?(parameter: String?) {
        switch parameter?.lowercased() {
        case "mp3": self = .mp3
        case "opus": self = .opus
        case "ogg", "oga", "vorbis": self = .vorbis
        case "flac": self = .flac
        default: return nil
        }
    }

    /// The format a file already is, by its name's suffix.
    package init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: "."), !fileName[dot...].contains("/") else { return nil }
        switch fileName[fileName.index(after: dot)...].lowercased() {
        case "mp3": self = .mp3
        case "opus": self = .opus
        case "ogg", "oga": self = .vorbis
        case "flac": self = .flac
        default: return nil
        }
    }

    package var contentType: String {
        switch self {
        case .mp3: "audio/mpeg"
        case .opus, .vorbis: "audio/ogg"
        case .flac: "audio/flac"
        }
    }

    /// The suffix a file of it takes (a download's name, a cached transcode).
    package var fileExtension: String {
        switch self {
        case .mp3: "mp3"
        case .opus: "opus"
        case .vorbis: "ogg"
        case .flac: "flac"
        }
    }

    var encoderKind: EncoderKind {
        switch self {
        case .mp3: .lame
        case .opus: .opus
        case .vorbis: .vorbis
        case .flac: .flac
        }
    }

    /// FLAC is lossless: it has no bit rate to ask for.
    package var isLossless: Bool { self == .flac }

    /// kbit/s when the client names no `maxBitRate`.
    package var defaultKbps: Int {
        switch self {
        case .mp3: 192
        case .opus: 128
        case .vorbis: 160
        case .flac: 0
        }
    }

    /// The rates its encoder takes at CD rates, stereo: LAME's MPEG-1 CBR, libopus's, libvorbis's managed
    /// range at 44.1 kHz.
    var kbpsDomain: ClosedRange<Int> {
        switch self {
        case .mp3: 32...320
        case .opus: 6...510
        case .vorbis: 48...480
        case .flac: 0...0
        }
    }

    /// The bit rate to encode at for the client's `maxBitRate` (0: no limit): the default, or the limit
    /// held within what the encoder takes; 0 for FLAC.
    package func kbps(maxBitRate: Int) -> Int {
        guard !isLossless else { return 0 }
        let asked = maxBitRate > 0 ? maxBitRate : defaultKbps
        let held = min(max(asked, kbpsDomain.lowerBound), kbpsDomain.upperBound)
        // MP3's frames have a rate of their own: the highest one within the limit.
        guard self == .mp3 else { return held }
        return Self.mp3Rates.last { $0 <= held } ?? Self.mp3Rates[0]
    }

    /// MPEG-1 layer III's bit rates (kbit/s).
    static let mp3Rates = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]

    /// The encoder's settings, by MPD's names (FLAC at its default compression).
    func encoderSettings(kbps: Int) -> [String: String] {
        switch self {
        case .mp3: ["bitrate": String(kbps)]
        case .opus: ["bitrate": String(kbps * 1000)]
        // Quality for the rate, as ffmpeg's `-b:a` and oggenc's `-b` do: libvorbis's managed bit rate costs
        // four times the CPU for the same sound.
        case .vorbis: ["quality": Self.vorbisQuality(kbps: kbps)]
        case .flac: [:]
        }
    }

    /// What the encoder is asked to take for `source`: Opus at its own 48 kHz (resampled here, not by
    /// libopusenc's slower resampler, as the ffmpeg CLI does); other lossy formats at most 48 kHz (their bit
    /// rates are made for it, and libvorbis refuses most at 96 kHz), keeping the 44.1 kHz family; FLAC as it is.
    func encodedFormat(for source: AudioFormat) -> AudioFormat {
        let rate: Int
        switch self {
        case .flac: return source
        case .opus: rate = 48_000
        case .mp3, .vorbis:
            guard source.sampleRate > 48_000 else { return source }
            rate = source.sampleRate % 11_025 == 0 ? 44_100 : 48_000
        }
        return AudioFormat(sampleRate: rate, channels: source.channels, sample: source.sample, bits: source.bits)
    }

    /// The length announced for `estimateContentLength`: the bit rate over the seconds, with room for what
    /// else the stream holds, so the body is seldom cut: MP3 at a constant rate, only its encoder's padding
    /// frames (8 KiB); Ogg its headers and a VBR encoder's excess (5 % and 16 KiB). nil for FLAC.
    package func estimatedLength(seconds: Double, kbps: Int) -> Int64? {
        guard !isLossless, seconds > 0 else { return nil }
        let bytes = seconds * Double(kbps) * 125
        return self == .mp3 ? Int64(Int(clamping: bytes)) + 8_192 : Int64(Int(clamping: bytes * 1.05)) + 16_384
    }

    /// The VBR quality whose nominal rate at CD rates is `kbps` (libvorbis's table, between its points in
    /// proportion), -1 to 10.
    static func vorbisQuality(kbps: Int) -> String {
        let table: [(kbps: Double, quality: Double)] = [(45, -1), (64, 0), (80, 1), (96, 2), (112, 3), (128, 4), (160, 5), (192, 6),
                                                        (224, 7), (256, 8), (320, 9), (500, 10)]
        let rate = Double(kbps)
        guard rate > table[0].kbps else { return "-1" }
        for (low, high) in zip(table, table.dropFirst()) where rate <= high.kbps {
            let quality = low.quality + (rate - low.kbps) / (high.kbps - low.kbps) * (high.quality - low.quality)
            return String(format: "%.2f", quality)
        }
        return "10"
    }
}
