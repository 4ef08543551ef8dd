import CFFmpegLoader
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// FFmpeg's sample formats and planes interleaved into the decoder's output format.
extension FFmpegDecoder {
    /// `.s16` for 8- and 16-bit integers, `.s32` for 32- and 64-bit ones, `.float32` for float and double.
    static func outputFormat(for source: AVSampleFormat, rate: Int, channels: Int, rawBits: Int) -> AudioFormat {
        switch libav.av_get_packed_sample_fmt(source) {
        case AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_S16:
            return AudioFormat(sampleRate: rate, channels: channels, sample: .s16)
        case AV_SAMPLE_FMT_S32:
            let bits = rawBits <= 0 ? 32 : rawBits <= 16 ? 16 : rawBits <= 24 ? 24 : 32
            return AudioFormat(sampleRate: rate, channels: channels, sample: .s32, bits: bits)
        case AV_SAMPLE_FMT_S64:
            return AudioFormat(sampleRate: rate, channels: channels, sample: .s32)
        default:
            return AudioFormat(sampleRate: rate, channels: channels, sample: .float32)
        }
    }

    /// Interleaves samples `first..<first + count` of `frame` into `out` in `format`.
    func convert(_ frame: UnsafeMutablePointer<AVFrame>, from first: Int, count: Int, into out: UnsafeMutableRawPointer) {
        let channels = format.channels
        let byteCount = count * format.bytesPerFrame
        let sourceFormat = AVSampleFormat(rawValue: frame.pointee.format)
        let planar = libav.av_sample_fmt_is_planar(sourceFormat) != 0
        guard let planes = frame.pointee.extended_data else {
            memset(out, 0, byteCount)
            return
        }
        let packedFormat = libav.av_get_packed_sample_fmt(sourceFormat)
        let sameSamples = (packedFormat, format.sample) == (AV_SAMPLE_FMT_S16, .s16)
            || (packedFormat, format.sample) == (AV_SAMPLE_FMT_S32, .s32)
            || (packedFormat, format.sample) == (AV_SAMPLE_FMT_FLT, .float32)
        if sameSamples && (!planar || channels == 1), let data = planes[0] {
            // Already interleaved in the output's layout (WAV, mono): one copy.
            memcpy(out, data + first * format.bytesPerFrame, byteCount)
            return
        }
        let layout = PlaneLayout(planes: planes, planar: planar, channels: channels, first: first, count: count)
        switch (packedFormat, format.sample) {
        case (AV_SAMPLE_FMT_S16, .s16): layout.interleave(Int16.self, into: out) { $0 }
        case (AV_SAMPLE_FMT_U8, .s16): layout.interleave(UInt8.self, into: out) { Int16(Int16($0) - 128) << 8 }
        case (AV_SAMPLE_FMT_S32, .s32): layout.interleave(Int32.self, into: out) { $0 }
        case (AV_SAMPLE_FMT_S64, .s32): layout.interleave(Int64.self, into: out) { Int32(truncatingIfNeeded: $0 >> 32) }
        case (AV_SAMPLE_FMT_FLT, .float32): layout.interleave(Float.self, into: out) { $0 }
        case (AV_SAMPLE_FMT_DBL, .float32): layout.interleave(Double.self, into: out) { Float($0) }
        case (let packed, let target):
            // A frame whose sample format differs from the first one's: through full scale.
            let read: (UnsafeRawPointer, Int) -> Double
            switch packed {
            case AV_SAMPLE_FMT_U8: read = { (Double($0.load(fromByteOffset: $1, as: UInt8.self)) - 128) / 128 }
            case AV_SAMPLE_FMT_S16: read = { Double($0.load(fromByteOffset: $1 * 2, as: Int16.self)) / 32768 }
            case AV_SAMPLE_FMT_S32: read = { Double($0.load(fromByteOffset: $1 * 4, as: Int32.self)) / 2147483648 }
            case AV_SAMPLE_FMT_S64: read = { Double($0.load(fromByteOffset: $1 * 8, as: Int64.self)) / 9223372036854775808 }
            case AV_SAMPLE_FMT_FLT: read = { Double($0.load(fromByteOffset: $1 * 4, as: Float.self)) }
            case AV_SAMPLE_FMT_DBL: read = { $0.load(fromByteOffset: $1 * 8, as: Double.self) }
            default:
                memset(out, 0, byteCount)
                return
            }
            for channel in 0..<channels {
                for i in 0..<count {
                    let (plane, index) = layout.place(channel: channel, sample: i)
                    let value = read(plane, index)
                    let at = (i * channels + channel) * target.bytes
                    switch target {
                    case .s16: out.storeBytes(of: Int16(Self.clamped(value * 32768, Int16.min, Int16.max)), toByteOffset: at, as: Int16.self)
                    case .s32: out.storeBytes(of: Int32(Self.clamped(value * 2147483648, Int32.min, Int32.max)), toByteOffset: at, as: Int32.self)
                    case .float32: out.storeBytes(of: Float(value), toByteOffset: at, as: Float.self)
                    }
                }
            }
        }
    }

    /// Rounded and clipped to the integer range; NaN becomes silence.
    private static func clamped<T: FixedWidthInteger>(_ value: Double, _ low: T, _ high: T) -> Int64 {
        guard !value.isNaN else { return 0 }
        return Int64(min(max(value.rounded(), Double(low)), Double(high)))
    }
}
