import XZAudio

/// s16 PCM (what the stream and recorder outputs take from the player) to the 32-bit layout an encoder asked
/// for at `open`: float in -1…1 or s32.
func widenS16(_ pcm: [UInt8], to sample: SampleFormat, into buffer: inout [UInt8]) {
    let samples = pcm.count / 2
    if buffer.count != samples * 4 { buffer = [UInt8](repeating: 0, count: samples * 4) }
    buffer.withUnsafeMutableBytes { target in
        for index in 0..<samples {
            let value = Int16(bitPattern: UInt16(pcm[index * 2]) | UInt16(pcm[index * 2 + 1]) << 8)
            if sample == .float32 {
                target.storeBytes(of: Float(value) / 32_768, toByteOffset: index * 4, as: Float.self)
            } else {
                target.storeBytes(of: Int32(value) << 16, toByteOffset: index * 4, as: Int32.self)
            }
        }
    }
}
