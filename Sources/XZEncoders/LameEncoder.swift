import CLame
import XZAudio

/// MP3 through libmp3lame (MPD's `encoder "lame"`): 16-bit stereo at a rate MP3 has. The stream carries no
/// tags; the stream output sends the title as ICY metadata.
package final class LameEncoder: AudioEncoder {
    package var kind: EncoderKind { .lame }
    package var mimeType: String { "audio/mpeg" }
    package var carriesTags: Bool { false }

    /// The rates of MPEG-1, 2 and 2.5 layer III.
    static let rates = [8_000, 11_025, 12_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000]
    /// Frames handed to LAME per call, which bounds the output buffer (LAME's worst case: 1.25 × samples + 7200).
    static let framesPerCall = 8_192
    static let outputCapacity = 5 * framesPerCall / 4 + 7_200

    private let mode: QualityOrBitrate
    private var lame: OpaquePointer?
    private let encoded = UnsafeMutablePointer<UInt8>.allocate(capacity: LameEncoder.outputCapacity)
    private var output = EncodedOutput()

    /// MPD's keys: `quality` (VBR, 0 best … 9.999) or `bitrate` (kbit/s, CBR), exactly one of them.
    package init(settings: [String: String]) throws(EncoderError) {
        guard let mode = try QualityOrBitrate.read(EncoderSettings(settings), quality: 0...9.999, qualityShown: "0 to 9.999",
                                                   maxBitrate: 320)
        else { throw .badSetting("neither bitrate nor quality defined") }
        self.mode = mode
    }

    deinit {
        close()
        encoded.deallocate()
    }

    package var streamHeader: [UInt8] { [] }

    package func open(format: AudioFormat) throws(EncoderError) -> AudioFormat {
        close()
        // A rate MP3 lacks becomes the nearest of its family (88.2 kHz to 44.1 kHz); the stream output resamples.
        let rate = Self.rates.contains(format.sampleRate) ? format.sampleRate
            : (format.sampleRate % 11_025 == 0 ? 44_100 : 48_000)
        guard let lame = lame_init() else { throw .failed("lame_init() failed") }
        var ok: Bool
        switch mode {
        case .quality(let quality):
            ok = lame_set_VBR(lame, vbr_default) == 0 && lame_set_VBR_quality(lame, Float(quality)) == 0
        case .bitrate(let kbits):
            ok = lame_set_brate(lame, Int32(kbits)) == 0
        }
        ok = ok && lame_set_num_channels(lame, 2) == 0
            && lame_set_in_samplerate(lame, Int32(rate)) == 0 && lame_set_out_samplerate(lame, Int32(rate)) == 0
            // No Xing/LAME info frame: it describes a file, and a stream has no end to count to.
            && lame_set_bWriteVbrTag(lame, 0) == 0
            && lame_init_params(lame) >= 0
        guard ok else {
            lame_close(lame)
            throw .failed("LAME cannot encode \(rate) Hz at this bit rate or quality")
        }
        self.lame = lame
        return AudioFormat(sampleRate: rate, channels: 2, sample: .s16)
    }

    package func encode(_ pcm: UnsafeRawBufferPointer) throws(EncoderError) {
        guard let lame else { throw .failed("LAME encoder: not open") }
        let samples = pcm.bindMemory(to: Int16.self)
        let frames = samples.count / 2
        var done = 0
        while done < frames {
            let count = min(frames - done, Self.framesPerCall)
            let made = lame_encode_buffer_interleaved(lame, UnsafeMutablePointer(mutating: samples.baseAddress! + 2 * done),
                                                      Int32(count), encoded, Int32(Self.outputCapacity))
            guard made >= 0 else { throw .failed("LAME encoder failed (\(made))") }
            output.append(encoded, count: Int(made))
            done += count
        }
    }

    package func sendTag(_ tag: StreamTag) throws(EncoderError) {}

    /// LAME hands out whole frames as it makes them; ending one early would put a gap in the stream.
    package func flush() throws(EncoderError) {}

    package func close() {
        guard let lame else { return }
        let made = lame_encode_flush(lame, encoded, Int32(Self.outputCapacity))
        if made > 0 { output.append(encoded, count: Int(made)) }
        lame_close(lame)
        self.lame = nil
    }

    package func takeOutput() -> [UInt8] { output.take() }
}
