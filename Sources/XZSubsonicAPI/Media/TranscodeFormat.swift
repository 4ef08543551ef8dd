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
        return min(max(asked, kbpsDomain.lowerBound), kbpsDomain.upperBound)
    }

    /// The encoder's settings, by MPD's names (FLAC at its default compression).
    func encoderSettings(kbps: Int) -> [String: String] {
        switch self {
        case .mp3: ["bitrate": String(kbps)]
        case .opus: ["bitrate": String(kbps * 1000)]
        case .vorbis: ["bitrate": String(kbps)]
        case .flac: [:]
        }
    }
}
