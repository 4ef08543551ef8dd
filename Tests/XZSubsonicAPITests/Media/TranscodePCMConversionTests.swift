import XCTest
import XZAudio
@testable import XZSubsonicAPI

/// The conversion between a decoder's PCM and an encoder's: exact where nothing changes, channels mixed,
/// and libswresample keeping a tone's pitch and level without folding an ultrasonic one back.
final class TranscodePCMConversionTests: XCTestCase {
    func convert(_ samples: [Float], from source: AudioFormat, to target: AudioFormat, pieces: Int = 7) throws -> [Float] {
        let conversion = try PCMConversion(from: source, to: target)
        var out: [Float] = []
        let frames = samples.count / source.channels
        let step = max(1, frames / pieces)
        var start = 0
        while start < frames {
            let end = min(frames, start + step)
            try Array(samples[(start * source.channels)..<(end * source.channels)]).withUnsafeBytes { raw in
                try conversion.convert(raw) { out += Array($0.bindMemory(to: Float.self)) }
            }
            start = end
        }
        try conversion.finish { out += Array($0.bindMemory(to: Float.self)) }
        return out
    }

    func tone(_ frequency: Double, rate: Int, seconds: Double, level: Float = 0.5) -> [Float] {
        (0..<Int(Double(rate) * seconds)).map { level * Float(sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
    }

    /// The level of `frequency` in `samples` (a single-bin DFT), as an amplitude.
    func level(of frequency: Double, in samples: ArraySlice<Float>, rate: Int) -> Double {
        var re = 0.0, im = 0.0
        for (index, sample) in samples.enumerated() {
            let phase = 2 * Double.pi * frequency * Double(index) / Double(rate)
            re += Double(sample) * cos(phase)
            im -= Double(sample) * sin(phase)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(samples.count)
    }

    func testSixteenAndTwentyFourBitsSurviveExactly() throws {
        let conversion = try PCMConversion(from: AudioFormat(sampleRate: 44_100, channels: 2, sample: .s32, bits: 24),
                                       to: AudioFormat(sampleRate: 44_100, channels: 2, sample: .s32, bits: 24))
        let samples: [Int32] = [Int32.min, Int32.min + 256, -256, 0, 256, 0x7FFF_FF00, 123_456 << 8, -987_654 << 8]
        // Through the float stage (not passed through): from s32 to s16 and back is not exact, so a float target is used.
        let toFloat = try PCMConversion(from: AudioFormat(sampleRate: 44_100, channels: 2, sample: .s32, bits: 24),
                                    to: AudioFormat(sampleRate: 44_100, channels: 2, sample: .float32))
        var floats: [Float] = []
        try samples.withUnsafeBytes { try toFloat.convert($0) { floats += Array($0.bindMemory(to: Float.self)) } }
        let back = try PCMConversion(from: AudioFormat(sampleRate: 44_100, channels: 2, sample: .float32),
                                 to: AudioFormat(sampleRate: 44_100, channels: 2, sample: .s32, bits: 24))
        var restored: [Int32] = []
        try floats.withUnsafeBytes { try back.convert($0) { restored += Array($0.bindMemory(to: Int32.self)) } }
        XCTAssertEqual(restored, samples)
        var same: [Int32] = []
        try samples.withUnsafeBytes { try conversion.convert($0) { same += Array($0.bindMemory(to: Int32.self)) } }
        XCTAssertEqual(same, samples)
    }

    func testMonoIsDoubledAndSurroundMixedToStereo() throws {
        let mono: [Float] = [0.1, -0.2, 0.3]
        XCTAssertEqual(try convert(mono, from: AudioFormat(sampleRate: 8_000, channels: 1, sample: .float32),
                                   to: AudioFormat(sampleRate: 8_000, channels: 2, sample: .float32), pieces: 1),
                       [0.1, 0.1, -0.2, -0.2, 0.3, 0.3])
        let surround: [Float] = [0.1, 0.2, 0.4, 0.4]
        let stereo = try convert(surround, from: AudioFormat(sampleRate: 8_000, channels: 4, sample: .float32),
                                 to: AudioFormat(sampleRate: 8_000, channels: 2, sample: .float32), pieces: 1)
        // Quad's back pair folded into the front at -3 dB (FFmpeg's surround mix level, 1/√2).
        XCTAssertEqual(stereo[0], 0.1 + 0.4 * Float(0.5).squareRoot(), accuracy: 1e-6)
        XCTAssertEqual(stereo[1], 0.2 + 0.4 * Float(0.5).squareRoot(), accuracy: 1e-6)
    }

    func testResamplingKeepsATonesPitchLevelAndLength() throws {
        for (from, to) in [(96_000, 48_000), (88_200, 44_100), (192_000, 48_000), (44_100, 48_000), (50_000, 48_000)] {
            let input = tone(1_000, rate: from, seconds: 1)
            let output = try convert(input, from: AudioFormat(sampleRate: from, channels: 1, sample: .float32),
                                     to: AudioFormat(sampleRate: to, channels: 1, sample: .float32))
            XCTAssertEqual(output.count, to, accuracy: 2, "\(from) → \(to)")
            let middle = output[(to / 4)..<(3 * to / 4)]
            XCTAssertEqual(level(of: 1_000, in: middle, rate: to), 0.5, accuracy: 0.01, "\(from) → \(to)")
        }
    }

    func testAnUltrasonicToneIsNotFoldedBack() throws {
        // 30 kHz at 96 kHz would alias to 18 kHz at 48 kHz without the low-pass.
        let output = try convert(tone(30_000, rate: 96_000, seconds: 0.5), from: AudioFormat(sampleRate: 96_000, channels: 1, sample: .float32),
                                 to: AudioFormat(sampleRate: 48_000, channels: 1, sample: .float32))
        let middle = output[6_000..<18_000]
        XCTAssertLessThan(level(of: 18_000, in: middle, rate: 48_000), 0.5 * 0.001, "at least 60 dB down")
    }

    func testOpusIsAskedForFortyEightKilohertzAndOthersKeepTheirFamily() {
        let cd = AudioFormat(sampleRate: 44_100, channels: 2, sample: .s16)
        let hiRes = AudioFormat(sampleRate: 88_200, channels: 2, sample: .s32, bits: 24)
        XCTAssertEqual(TranscodeFormat.opus.encodedFormat(for: cd).sampleRate, 48_000)
        XCTAssertEqual(TranscodeFormat.mp3.encodedFormat(for: cd), cd)
        XCTAssertEqual(TranscodeFormat.vorbis.encodedFormat(for: hiRes).sampleRate, 44_100)
        XCTAssertEqual(TranscodeFormat.flac.encodedFormat(for: hiRes), hiRes)
    }
}
