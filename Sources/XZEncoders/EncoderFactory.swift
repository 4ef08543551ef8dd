/// The encoder MPD's `encoder` setting names, made from the output block's settings (`bitrate`,
/// `quality`, …); a setting out of its domain throws a one-line error naming it.
public func makeEncoder(kind: EncoderKind, settings: [String: String]) throws(EncoderError) -> AudioEncoder {
    switch kind {
    case .wave: return try WaveEncoder(settings: settings)
    case .opus, .vorbis, .lame, .flac: throw .failed("encoder \"\(kind.rawValue)\" is not built into this XZMusic")
    }
}
