/// The encoder MPD's `encoder` setting names, made from the output block's settings (`bitrate`,
/// `quality`, …); a setting out of its domain throws a one-line error naming it.
package func makeEncoder(kind: EncoderKind, settings: [String: String]) throws(EncoderError) -> AudioEncoder {
    switch kind {
    case .wave: return try WaveEncoder(settings: settings)
    case .opus: return try OpusEncoder(settings: settings)
    case .vorbis: return try VorbisEncoder(settings: settings)
    case .lame: return try LameEncoder(settings: settings)
    case .flac: return try FlacEncoder(settings: settings)
    }
}
