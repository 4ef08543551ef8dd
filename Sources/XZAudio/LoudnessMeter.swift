import CEBUR128
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An EBU R128 measurement and the ReplayGain 2.0 values it gives.
package struct LoudnessResult: Sendable, Equatable {
    /// ReplayGain 2.0's reference: a track at −18 LUFS gets a gain of 0 dB.
    package static let referenceLUFS = -18.0
    /// Silence (every block under the absolute gate) would otherwise ask for an infinite gain.
    package static let gainLimitDB = 51.0

    /// Integrated loudness in LUFS; −infinity when nothing is louder than the −70 LUFS gate.
    package let integratedLUFS: Double
    /// The largest sample of any channel, linear (1.0 is full scale).
    package let samplePeak: Double

    package init(integratedLUFS: Double, samplePeak: Double) {
        self.integratedLUFS = integratedLUFS
        self.samplePeak = samplePeak
    }

    /// The gain in dB that brings the loudness to the reference.
    package var gainDB: Double {
        let gain = Self.referenceLUFS - integratedLUFS
        return gain.isNaN ? 0 : min(max(gain, -Self.gainLimitDB), Self.gainLimitDB)
    }
}

/// One track's loudness as libebur128 measures it (integrated loudness and sample peak). The state stays
/// alive with the meter, so meters of one album give the album's loudness together.
package final class LoudnessMeter {
    package let path: String
    package let format: AudioFormat
    private var state: UnsafeMutablePointer<ebur128_state>

    /// A meter for PCM in `format`; `path` names the file in messages.
    package init(format: AudioFormat, path: String) throws {
        guard format.channels > 0, format.sampleRate > 0,
              let state = ebur128_init(UInt32(format.channels), UInt(format.sampleRate),
                                       Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_SAMPLE_PEAK.rawValue)) else {
            throw AudioError.measurementFailed("cannot measure loudness of \(format.channels) channels at \(format.sampleRate) Hz", file: path)
        }
        self.state = state
        self.path = path
        self.format = format
        // A mono file is heard from both speakers: counted twice, it measures as the same signal in stereo.
        if format.channels == 1 {
            ebur128_set_channel(state, 0, Int32(EBUR128_DUAL_MONO.rawValue))
        }
    }

    deinit {
        var pointer: UnsafeMutablePointer<ebur128_state>? = state
        ebur128_destroy(&pointer)
    }

    /// Adds whole sample frames laid out as `format` says.
    package func add(_ bytes: UnsafeRawBufferPointer) throws {
        let frames = bytes.count / format.bytesPerFrame
        guard frames > 0, let base = bytes.baseAddress else { return }
        let status: Int32
        switch format.sample {
        case .s16: status = ebur128_add_frames_short(state, base.assumingMemoryBound(to: Int16.self), frames)
        case .s32: status = ebur128_add_frames_int(state, base.assumingMemoryBound(to: Int32.self), frames)
        case .float32: status = ebur128_add_frames_float(state, base.assumingMemoryBound(to: Float.self), frames)
        }
        guard status == Int32(EBUR128_SUCCESS.rawValue) else {
            throw AudioError.measurementFailed("loudness measurement ran out of memory", file: path)
        }
    }

    /// The integrated loudness and sample peak of everything added so far.
    package func result() throws -> LoudnessResult {
        var loudness = 0.0
        guard ebur128_loudness_global(state, &loudness) == Int32(EBUR128_SUCCESS.rawValue) else {
            throw AudioError.measurementFailed("cannot compute the integrated loudness", file: path)
        }
        return LoudnessResult(integratedLUFS: loudness, samplePeak: try peak())
    }

    private func peak() throws -> Double {
        var peak = 0.0
        for channel in 0 ..< format.channels {
            var value = 0.0
            guard ebur128_sample_peak(state, UInt32(channel), &value) == Int32(EBUR128_SUCCESS.rawValue) else {
                throw AudioError.measurementFailed("cannot read the sample peak", file: path)
            }
            peak = max(peak, value)
        }
        return peak
    }

    /// Decodes `path` to its end through the decoder its content calls for and measures it.
    /// `progress` gets the fraction decoded (when the length is known); `isCancelled` is asked between
    /// reads, and a true answer stops with `CancellationError`.
    package static func measure(path: String, progress: ((Double) -> Void)? = nil,
                               isCancelled: () -> Bool = { false }) throws -> LoudnessMeter {
        let decoder = try AudioDecoders.open(path: path)
        let format = decoder.format
        let meter = try LoudnessMeter(format: format, path: path)
        let size = 65536 - 65536 % format.bytesPerFrame
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        var frames = 0
        while true {
            if isCancelled() { throw CancellationError() }
            let count = try decoder.read(into: buffer)
            if count == 0 { break }
            try meter.add(UnsafeRawBufferPointer(rebasing: buffer[0 ..< count]))
            frames += count / format.bytesPerFrame
            if let progress, let length = decoder.lengthInSamples, length > 0 {
                progress(min(Double(frames) / Double(length), 1))
            }
        }
        guard frames > 0 else { throw AudioError.measurementFailed("holds no audio to measure", file: path) }
        return meter
    }

    /// The loudness of `meters` played one after another (an album's tracks), and their highest peak;
    /// none is silence.
    package static func album(_ meters: [LoudnessMeter]) throws -> LoudnessResult {
        guard let first = meters.first else { return LoudnessResult(integratedLUFS: -.infinity, samplePeak: 0) }
        var states: [UnsafeMutablePointer<ebur128_state>?] = meters.map(\.state)
        var loudness = 0.0
        let status = withExtendedLifetime(meters) {
            ebur128_loudness_global_multiple(&states, states.count, &loudness)
        }
        guard status == Int32(EBUR128_SUCCESS.rawValue) else {
            throw AudioError.measurementFailed("cannot compute the album's integrated loudness", file: first.path)
        }
        return LoudnessResult(integratedLUFS: loudness, samplePeak: try meters.map { try $0.peak() }.max() ?? 0)
    }
}
