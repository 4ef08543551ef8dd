import CFFmpegLoader
import XZAudio

/// A decoder's PCM to the layout an encoder asked for at `open`: its sample format, its channels and its
/// rate (LAME takes only MP3's rates, libopus works at 48 kHz), through FFmpeg's libswresample. PCM that
/// already fits passes through untouched, so FLAC at the source's rate stays bit-exact; 16- and 24-bit
/// samples survive the float stage exactly.
final class PCMConversion {
    let source: AudioFormat
    let target: AudioFormat
    /// Input frames handed to libswresample at once, which bounds `output`.
    static let framesPerConvert = 8_192
    /// nil when nothing changes (pass-through).
    private let resampler: Resampler?
    private var output: [UInt8] = []

    /// Throws `AudioError.libraryFailed` when libswresample cannot be loaded or takes neither layout.
    init(from source: AudioFormat, to target: AudioFormat) throws {
        self.source = source
        self.target = target
        let passThrough = source.sampleRate == target.sampleRate && source.channels == target.channels
            && source.sample == target.sample
        resampler = passThrough ? nil : try Resampler(from: source, to: target)
    }

    /// Converts whole frames of `pcm` and hands the result to `body` (not called when nothing came out).
    func convert(_ pcm: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let resampler else { return try body(pcm) }
        let frames = pcm.count / source.bytesPerFrame
        var done = 0
        while done < frames {
            let count = min(frames - done, Self.framesPerConvert)
            _ = try run(resampler, input: pcm.baseAddress! + done * source.bytesPerFrame, frames: count, body)
            done += count
        }
    }

    /// The resampler's last frames, at the end of the track.
    func finish(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let resampler else { return }
        while try run(resampler, input: nil, frames: 0, body) > 0 {}
    }

    /// One `swr_convert` (a flush when `input` is nil); the frames it gave.
    private func run(_ resampler: Resampler, input: UnsafeRawPointer?, frames: Int,
                     _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        let swr = resampler.swr
        let capacity = Int(swr.swr_get_out_samples(resampler.context, Int32(frames)))
        guard capacity > 0 else { return 0 }
        let bytes = capacity * target.bytesPerFrame
        if output.count < bytes { output = [UInt8](repeating: 0, count: bytes) }
        let produced = output.withUnsafeMutableBytes { out -> Int32 in
            var outPlane: UnsafeMutablePointer<UInt8>? = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var inPlane: UnsafePointer<UInt8>? = input?.assumingMemoryBound(to: UInt8.self)
            return withUnsafeMutablePointer(to: &outPlane) { outPlanes in
                guard input != nil else { return swr.swr_convert(resampler.context, outPlanes, Int32(capacity), nil, 0) }
                return withUnsafeMutablePointer(to: &inPlane) {
                    swr.swr_convert(resampler.context, outPlanes, Int32(capacity), $0, Int32(frames))
                }
            }
        }
        guard produced >= 0 else { throw AudioError.libraryFailed("libswresample failed (\(produced))", file: "transcode") }
        if produced > 0 {
            try output.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<(Int(produced) * target.bytesPerFrame)])) }
        }
        return Int(produced)
    }
}

/// A libswresample context from one interleaved layout to another: FFmpeg's mixing matrix (channels past
/// the target's folded in at -3 dB, as the ffmpeg CLI does), except mono, which goes to every side at full
/// level as players play it.
private final class Resampler {
    let swr: xz_ffmpeg_resample
    let context: OpaquePointer

    init(from source: AudioFormat, to target: AudioFormat) throws {
        guard let swr = xz_ffmpeg_resample_load()?.pointee else {
            throw AudioError.libraryFailed(String(cString: xz_ffmpeg_resample_error()!), file: "transcode")
        }
        self.swr = swr
        let described = "\(source.mpdFormat) to \(target.mpdFormat)"
        guard var inLayout = Self.layout(channels: source.channels, swr), var outLayout = Self.layout(channels: target.channels, swr),
              source.sampleRate > 0, target.sampleRate > 0, let inRate = Int32(exactly: source.sampleRate),
              let outRate = Int32(exactly: target.sampleRate)
        else { throw AudioError.libraryFailed("libswresample cannot convert \(described)", file: "transcode") }
        var made: OpaquePointer?
        let status = swr.swr_alloc_set_opts2(&made, &outLayout, Self.sampleFormat(target.sample), outRate,
                                             &inLayout, Self.sampleFormat(source.sample), inRate, 0, nil)
        guard status >= 0, let made else { throw AudioError.libraryFailed("libswresample cannot convert \(described)", file: "transcode") }
        context = made
        if source.channels == 1 && target.channels > 1 {
            let matrix = [Double](repeating: 1, count: target.channels)
            _ = swr.swr_set_matrix(context, matrix, 1)
        }
        guard swr.swr_init(context) >= 0 else {
            var freed: OpaquePointer? = context
            swr.swr_free(&freed)
            throw AudioError.libraryFailed("libswresample cannot convert \(described)", file: "transcode")
        }
    }

    deinit {
        var freed: OpaquePointer? = context
        swr.swr_free(&freed)
    }

    static func sampleFormat(_ sample: SampleFormat) -> AVSampleFormat {
        switch sample {
        case .s16: AV_SAMPLE_FMT_S16
        case .s32: AV_SAMPLE_FMT_S32
        case .float32: AV_SAMPLE_FMT_FLT
        }
    }

    /// FLAC's and WAVE's channel order for 1 to 8 channels (FFmpeg's FLAC layouts); past 8, the first
    /// channels of FFmpeg's order.
    static func layout(channels: Int, _ swr: xz_ffmpeg_resample) -> AVChannelLayout? {
        let fl: UInt64 = 1 << 0, fr: UInt64 = 1 << 1, fc: UInt64 = 1 << 2, lfe: UInt64 = 1 << 3
        let bl: UInt64 = 1 << 4, br: UInt64 = 1 << 5, bc: UInt64 = 1 << 8, sl: UInt64 = 1 << 9, sr: UInt64 = 1 << 10
        let masks: [UInt64] = [fc, fl | fr, fl | fr | fc, fl | fr | bl | br, fl | fr | fc | sl | sr, fl | fr | fc | lfe | sl | sr,
                               fl | fr | fc | lfe | bc | sl | sr, fl | fr | fc | lfe | bl | br | sl | sr]
        guard (1...63).contains(channels) else { return nil }
        let mask = channels <= masks.count ? masks[channels - 1] : (UInt64(1) << UInt64(channels)) - 1
        var layout = AVChannelLayout()
        guard swr.av_channel_layout_from_mask(&layout, mask) >= 0 else { return nil }
        return layout
    }
}
