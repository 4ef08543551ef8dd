import XZAudio

/// Turns a decoder's samples into the output's, with the volume and the ReplayGain scale applied in the
/// same pass: the one place a 24-bit or float source is converted.
enum PCMConversion {
    /// Converts `samples` samples (all channels counted) from `input` into `output`.
    /// 16-bit in and out with no ReplayGain keeps the integer volume rule (exact, rounding toward zero).
    static func convert(_ input: UnsafeRawPointer, _ from: SampleFormat, samples: Int,
                        into output: UnsafeMutableRawPointer, _ to: SampleFormat, volume: Int, scale: Double) {
        let factor = scale * Double(volume) / 100
        switch (from, to) {
        case (.s16, .s16):
            let source = input.assumingMemoryBound(to: Int16.self)
            let target = output.assumingMemoryBound(to: Int16.self)
            if scale == 1 {
                if volume >= 100 {
                    if UnsafeRawPointer(output) != input { output.copyMemory(from: input, byteCount: samples * 2) }
                    return
                }
                let percent = Int32(volume)
                for i in 0..<samples { target[i] = Int16(truncatingIfNeeded: Int32(source[i]) * percent / 100) }
                return
            }
            let f = Float(factor)
            for i in 0..<samples { target[i] = clampS16(Float(source[i]) * f) }
        case (.s32, .s16):
            let source = input.assumingMemoryBound(to: Int32.self)
            let target = output.assumingMemoryBound(to: Int16.self)
            let f = Float(factor / 65536)
            for i in 0..<samples { target[i] = clampS16(Float(source[i]) * f) }
        case (.float32, .s16):
            let source = input.assumingMemoryBound(to: Float.self)
            let target = output.assumingMemoryBound(to: Int16.self)
            let f = Float(factor * 32768)
            for i in 0..<samples { target[i] = clampS16(source[i] * f) }
        case (.s16, .s32):
            let source = input.assumingMemoryBound(to: Int16.self)
            let target = output.assumingMemoryBound(to: Int32.self)
            let f = factor * 65536
            for i in 0..<samples { target[i] = clampS32(Double(source[i]) * f) }
        case (.s32, .s32):
            let source = input.assumingMemoryBound(to: Int32.self)
            let target = output.assumingMemoryBound(to: Int32.self)
            if factor == 1 {
                if UnsafeRawPointer(output) != input { output.copyMemory(from: input, byteCount: samples * 4) }
                return
            }
            for i in 0..<samples { target[i] = clampS32(Double(source[i]) * factor) }
        case (.float32, .s32):
            let source = input.assumingMemoryBound(to: Float.self)
            let target = output.assumingMemoryBound(to: Int32.self)
            let f = factor * 2147483648
            for i in 0..<samples { target[i] = clampS32(Double(source[i]) * f) }
        case (_, .float32):
            // No output asks for float; kept total so a new output cannot fall through silently.
            let target = output.assumingMemoryBound(to: Float.self)
            for i in 0..<samples { target[i] = Float(sampleValue(input, from, i) * factor) }
        }
    }

    /// Round to nearest even, clipped: what libvorbisfile's and opusdec's 16-bit output do. Adding 1.5 × 2²³
    /// leaves the rounded integer in the float's low mantissa bits, so the loop needs no per-sample rint call
    /// or checked conversion and vectorises.
    @inline(__always)
    private static func clampS16(_ value: Float) -> Int16 {
        let clipped = min(max(value, -32768), 32767)
        return Int16(truncatingIfNeeded: Int32(bitPattern: (clipped + 12_582_912).bitPattern) &- 0x4B40_0000)
    }

    @inline(__always)
    private static func clampS32(_ value: Double) -> Int32 {
        let rounded = value.rounded(.toNearestOrEven)
        // NaN compares false with every bound and would trap in Int32(_:): silence instead.
        if rounded.isNaN { return 0 }
        if rounded >= 2147483647 { return Int32.max }
        if rounded <= -2147483648 { return Int32.min }
        return Int32(rounded)
    }

    private static func sampleValue(_ input: UnsafeRawPointer, _ format: SampleFormat, _ i: Int) -> Double {
        switch format {
        case .s16: return Double(input.assumingMemoryBound(to: Int16.self)[i]) / 32768
        case .s32: return Double(input.assumingMemoryBound(to: Int32.self)[i]) / 2147483648
        case .float32: return Double(input.assumingMemoryBound(to: Float.self)[i])
        }
    }
}
