import XZAudio
import XZSystem

/// What an encoder is told when the song changes: a stream's listeners show it as the title.
package struct StreamTag: Sendable, Equatable {
    package var title: String?
    package var artist: String?
    package var album: String?

    package init(title: String? = nil, artist: String? = nil, album: String? = nil) {
        self.title = title
        self.artist = artist
        self.album = album
    }

    /// `Artist - Title` as ICY's `StreamTitle` and MPD's httpd output show a song.
    package var streamTitle: String {
        [artist, title].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " - ")
    }
}

/// The encoders of MPD's `encoder` setting, by MPD's names.
package enum EncoderKind: String, Sendable, CaseIterable {
    case opus, vorbis, lame, flac, wave

    /// The keys of an output's block this encoder reads; it checks their values itself.
    package var settingNames: [String] {
        switch self {
        case .opus: return ["bitrate", "complexity", "signal", "vbr", "packet_loss"]
        case .vorbis, .lame: return ["quality", "bitrate"]
        case .flac: return ["compression"]
        case .wave: return []
        }
    }

    /// The keys some encoder reads, once each.
    package static var allSettingNames: [String] {
        var seen = Set<String>()
        return allCases.flatMap(\.settingNames).filter { seen.insert($0).inserted }
    }
}

/// Why an encoder refused: a setting out of its domain (`setting` names its key), or the library failed.
package struct EncoderError: KindedError {
    package enum Kind: Hashable, Sendable {
        case badSetting, failed
    }

    package let kind: Kind
    package var message: String
    /// The key a `.badSetting` refuses, so that a config error can name its line; nil when no one key is.
    package var setting: String? = nil

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    package static let badSetting = EncoderError(kind: .badSetting, message: "bad encoder setting")
    /// The setting `key` refused, in `message`'s words.
    package static func badSetting(_ key: String, _ message: String) -> EncoderError {
        EncoderError(kind: .badSetting, message: message, setting: key)
    }
    package static let failed = EncoderError(kind: .failed, message: "the encoder failed")
}

/// PCM in, a byte stream out (MPD's `Encoder`). Used from one thread at a time.
///
/// The bytes come out in order through `takeOutput()`; `streamHeader` is a copy of the bytes a listener
/// joining in the middle needs before any of them (Ogg's header pages, FLAC's `fLaC` and STREAMINFO, the
/// WAV header; empty for MP3), and changes when an Ogg stream chains a new one for a new tag.
package protocol AudioEncoder: AnyObject {
    var kind: EncoderKind { get }
    /// The `Content-Type` a stream of it is served as.
    var mimeType: String { get }
    /// True when the stream itself carries the title (Ogg's comments): no ICY metadata is needed.
    var carriesTags: Bool { get }
    /// Starts a stream for `format`; returns the PCM layout `encode` then takes (rate, channels, sample).
    func open(format: AudioFormat) throws(EncoderError) -> AudioFormat
    /// Interleaved PCM in the layout `open` returned.
    func encode(_ pcm: UnsafeRawBufferPointer) throws(EncoderError)
    /// A new song: Ogg encoders chain a new logical stream with the tag as its comments; others ignore it.
    func sendTag(_ tag: StreamTag) throws(EncoderError)
    /// Ends what is pending into whole pages or frames, so that the bytes so far can be sent now.
    func flush() throws(EncoderError)
    /// Ends the stream; `open` starts another.
    func close()
    var streamHeader: [UInt8] { get }
    /// The bytes made since the last call.
    func takeOutput() -> [UInt8]
}
