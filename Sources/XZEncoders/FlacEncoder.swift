import CFLAC
import XZAudio

/// FLAC through libFLAC's stream encoder (MPD's `encoder "flac"`): 16-bit PCM as it is, anything deeper as
/// 24 bits (MPD's rule). The stream carries no tags; the stream output sends the title as ICY metadata.
package final class FlacEncoder: AudioEncoder {
    package var kind: EncoderKind { .flac }
    package var mimeType: String { "audio/flac" }
    package var carriesTags: Bool { false }

    /// Frames handed to libFLAC per call, which bounds the conversion buffer.
    static let framesPerCall = 4_096

    private let compression: UInt32
    private var encoder: UnsafeMutablePointer<FLAC__StreamEncoder>?
    private var format = AudioFormat(sampleRate: 44_100, channels: 2)
    /// PCM widened to libFLAC's 32-bit samples, sized at `open` for `framesPerCall` frames.
    private var widened: [Int32] = []
    private var output = EncodedOutput()
    package private(set) var streamHeader: [UInt8] = []
    /// True while libFLAC writes the metadata blocks at `init`: they are the stream's header.
    private var writingHeader = false

    /// MPD's key: `compression` (0…8, 5 when unset).
    package init(settings: [String: String]) throws(EncoderError) {
        compression = UInt32(try EncoderSettings(settings).integer("compression", in: 0...8) ?? 5)
    }

    deinit { close() }

    package func open(format: AudioFormat) throws(EncoderError) -> AudioFormat {
        close()
        let channels = (1...8).contains(format.channels) ? format.channels : 2
        let bits = format.sample == .s16 ? 16 : 24
        guard (1...655_350).contains(format.sampleRate) else {
            throw .failed("FLAC cannot encode a sample rate of \(format.sampleRate) Hz")
        }
        guard let encoder = FLAC__stream_encoder_new() else { throw .failed("FLAC__stream_encoder_new() failed") }
        guard FLAC__stream_encoder_set_compression_level(encoder, compression) != 0,
              FLAC__stream_encoder_set_channels(encoder, UInt32(channels)) != 0,
              FLAC__stream_encoder_set_bits_per_sample(encoder, UInt32(bits)) != 0,
              FLAC__stream_encoder_set_sample_rate(encoder, UInt32(format.sampleRate)) != 0
        else {
            FLAC__stream_encoder_delete(encoder)
            throw .failed("FLAC cannot encode \(format.sampleRate) Hz, \(channels) channels, \(bits) bits")
        }
        self.format = AudioFormat(sampleRate: format.sampleRate, channels: channels, sample: bits == 16 ? .s16 : .s32, bits: bits)
        widened = [Int32](repeating: 0, count: Self.framesPerCall * channels)
        streamHeader = []
        writingHeader = true
        // No seek callback: a stream cannot go back to rewrite STREAMINFO, so its length and MD5 stay unknown.
        let status = FLAC__stream_encoder_init_stream(encoder, { _, data, bytes, samples, _, user in
            guard let user, let data else { return FLAC__STREAM_ENCODER_WRITE_STATUS_FATAL_ERROR }
            Unmanaged<FlacEncoder>.fromOpaque(user).takeUnretainedValue().written(data, bytes, isAudio: samples > 0)
            return FLAC__STREAM_ENCODER_WRITE_STATUS_OK
        }, nil, nil, nil, Unmanaged.passUnretained(self).toOpaque())
        writingHeader = false
        guard status == FLAC__STREAM_ENCODER_INIT_STATUS_OK else {
            let state = String(cString: FLAC__stream_encoder_get_resolved_state_string(encoder))
            FLAC__stream_encoder_delete(encoder)
            throw .failed("FLAC encoder could not start (init status \(status.rawValue), \(state))")
        }
        self.encoder = encoder
        return self.format
    }

    package func encode(_ pcm: UnsafeRawBufferPointer) throws(EncoderError) {
        guard let encoder else { throw .failed("FLAC encoder: not open") }
        let channels = format.channels
        let frames = pcm.count / format.bytesPerFrame
        var done = 0
        while done < frames {
            let count = min(frames - done, Self.framesPerCall)
            let first = done * channels, total = count * channels
            widened.withUnsafeMutableBufferPointer { target in
                if format.sample == .s16 {
                    let source = pcm.bindMemory(to: Int16.self)
                    for i in 0..<total { target[i] = Int32(source[first + i]) }
                } else {
                    // 24 bits sit in the high bits of our 32-bit samples; libFLAC wants them in the low bits.
                    let source = pcm.bindMemory(to: Int32.self)
                    for i in 0..<total { target[i] = source[first + i] >> 8 }
                }
            }
            let ok = widened.withUnsafeBufferPointer {
                FLAC__stream_encoder_process_interleaved(encoder, $0.baseAddress, UInt32(count))
            }
            guard ok != 0 else { throw .failed("FLAC encoder: \(String(cString: FLAC__stream_encoder_get_resolved_state_string(encoder)))") }
            done += count
        }
    }

    package func sendTag(_ tag: StreamTag) throws(EncoderError) {}

    /// libFLAC hands out whole frames of its block size (4096 samples at the usual levels) as they fill;
    /// a shorter one now would end the stream.
    package func flush() throws(EncoderError) {}

    package func close() {
        guard let encoder else { return }
        _ = FLAC__stream_encoder_finish(encoder)
        FLAC__stream_encoder_delete(encoder)
        self.encoder = nil
    }

    package func takeOutput() -> [UInt8] { output.take() }

    private func written(_ data: UnsafePointer<UInt8>, _ count: Int, isAudio: Bool) {
        output.append(data, count: count)
        if writingHeader && !isAudio { streamHeader += UnsafeBufferPointer(start: data, count: count) }
    }
}
