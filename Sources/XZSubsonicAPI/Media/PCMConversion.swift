import Foundation
import XZAudio

/// A decoder's PCM to the layout an encoder asked for at `open`: its sample format, its channels (mono
/// doubled, more than it takes mixed down) and its rate (resampled: LAME takes only MP3's rates). PCM that
/// already fits passes through untouched; 16- and 24-bit samples survive the float stage exactly, so FLAC
/// stays lossless.
final class PCMConversion {
    let source: AudioFormat
    let target: AudioFormat
    private let passThrough: Bool
    private var floats: [Float] = []
    private var mixed: [Float] = []
    private var output: [UInt8] = []
    private let resampler: Resampler?

    init(from source: AudioFormat, to target: AudioFormat) {
        self.source = source
        self.target = target
        passThrough = source.sampleRate == target.sampleRate && source.channels == target.channels
            && source.sample == target.sample
        resampler = source.sampleRate == target.sampleRate ? nil
            : Resampler(from: source.sampleRate, to: target.sampleRate, channels: target.channels)
    }

    /// Converts whole frames of `pcm` and hands the result to `body` (not called when nothing came out).
    func convert(_ pcm: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        if passThrough { return try body(pcm) }
        let frames = pcm.count / source.bytesPerFrame
        guard frames > 0 else { return }
        readFloats(pcm, frames: frames)
        mixChannels(frames: frames)
        if let resampler {
            resampler.push(mixed)
            let out = resampler.pull()
            try emit(out, body)
        } else {
            try emit(mixed, body)
        }
    }

    /// The resampler's last frames, at the end of the track.
    func finish(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let resampler else { return }
        try emit(resampler.finish(), body)
    }

    private func readFloats(_ pcm: UnsafeRawBufferPointer, frames: Int) {
        let count = frames * source.channels
        if floats.count != count { floats = [Float](repeating: 0, count: count) }
        floats.withUnsafeMutableBufferPointer { out in
            switch source.sample {
            case .s16:
                let samples = pcm.bindMemory(to: Int16.self)
                for i in 0..<count { out[i] = Float(samples[i]) * (1 / 32_768) }
            case .s32:
                let samples = pcm.bindMemory(to: Int32.self)
                for i in 0..<count { out[i] = Float(samples[i]) * (1 / 2_147_483_648) }
            case .float32:
                let samples = pcm.bindMemory(to: Float.self)
                for i in 0..<count { out[i] = samples[i] }
            }
        }
    }

    /// The target's channels: the same ones, mono to both sides, else the first two with the rest mixed in.
    private func mixChannels(frames: Int) {
        let from = source.channels, to = target.channels
        if from == to {
            swap(&mixed, &floats)
            return
        }
        if mixed.count != frames * to { mixed = [Float](repeating: 0, count: frames * to) }
        floats.withUnsafeBufferPointer { input in
            mixed.withUnsafeMutableBufferPointer { out in
                for frame in 0..<frames {
                    let base = frame * from
                    for channel in 0..<to {
                        if from == 1 {
                            out[frame * to + channel] = input[base]
                        } else if channel < from && to > 1 {
                            // Channels past the target's are spread over it at -3 dB.
                            var sum = input[base + channel]
                            var extra = to
                            while extra < from {
                                if extra % to == channel { sum += input[base + extra] * 0.707 }
                                extra += 1
                            }
                            out[frame * to + channel] = sum
                        } else {
                            var sum: Float = 0
                            for c in 0..<from { sum += input[base + c] }
                            out[frame * to + channel] = sum / Float(from)
                        }
                    }
                }
            }
        }
    }

    private func emit(_ samples: [Float], _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !samples.isEmpty else { return }
        switch target.sample {
        case .float32:
            try samples.withUnsafeBytes(body)
        case .s16:
            if output.count != samples.count * 2 { output = [UInt8](repeating: 0, count: samples.count * 2) }
            output.withUnsafeMutableBytes { raw in
                let out = raw.bindMemory(to: Int16.self)
                for i in 0..<samples.count {
                    out[i] = Int16((samples[i] * 32_768).rounded().clampedSample(32_767))
                }
            }
            try output.withUnsafeBytes(body)
        case .s32:
            if output.count != samples.count * 4 { output = [UInt8](repeating: 0, count: samples.count * 4) }
            output.withUnsafeMutableBytes { raw in
                let out = raw.bindMemory(to: Int32.self)
                for i in 0..<samples.count {
                    // Float holds 24 bits exactly: the high 24 bits of a sample come back as they were.
                    let value = Double(samples[i]) * 2_147_483_648
                    out[i] = Int32(value.rounded().clampedSample(2_147_483_647))
                }
            }
            try output.withUnsafeBytes(body)
        }
    }
}

private extension Float {
    func clampedSample(_ top: Float) -> Float {
        guard !isNaN else { return 0 }
        return Swift.min(Swift.max(self, -top - 1), top)
    }
}

private extension Double {
    func clampedSample(_ top: Double) -> Double {
        guard !isNaN else { return 0 }
        return Swift.min(Swift.max(self, -top - 1), top)
    }
}

/// A windowed-sinc resampler over interleaved float frames, fed and drained in pieces. Its kernel is a
/// table of phases (the rate ratio's own, at most `maxPhases`), its cut-off below the lower Nyquist
/// frequency, so a 96 kHz file comes to 48 kHz without folding its ultrasonics back.
final class Resampler {
    static let maxPhases = 1024
    /// Zero crossings of the sinc on each side.
    static let zeroCrossings = 16

    private let inRate: Int64
    private let outRate: Int64
    private let channels: Int
    private let phases: Int
    /// Input frames on each side of an output position.
    private let halfWidth: Int
    /// `phases + 1` rows of `2 × halfWidth` taps.
    private let kernel: [Float]
    /// Interleaved input frames; its first frame is input frame `base` (negative: the zeros before the track).
    private var history: [Float] = []
    private var base: Int64
    private var received: Int64 = 0
    /// The next output frame's number.
    private var produced: Int64 = 0

    init(from inRate: Int, to outRate: Int, channels: Int) {
        self.inRate = Int64(inRate)
        self.outRate = Int64(outRate)
        self.channels = channels
        var a = inRate, b = outRate
        while b != 0 { (a, b) = (b, a % b) }
        phases = min(outRate / a, Self.maxPhases)
        let cutoff = min(1, Double(outRate) / Double(inRate)) * 0.95
        halfWidth = Int((Double(Self.zeroCrossings) / cutoff).rounded(.up))
        var table = [Float](repeating: 0, count: (phases + 1) * 2 * halfWidth)
        for phase in 0...phases {
            let fraction = Double(phase) / Double(phases)
            var sum = 0.0
            var row = [Double](repeating: 0, count: 2 * halfWidth)
            for tap in 0..<(2 * halfWidth) {
                // Tap k weighs input frame `center - halfWidth + 1 + k`, at this distance from the position.
                let x = Double(tap - halfWidth + 1) - fraction
                let scaled = x * cutoff
                let sinc = scaled == 0 ? 1 : sin(Double.pi * scaled) / (Double.pi * scaled)
                let w = x / Double(halfWidth)
                let window = abs(w) >= 1 ? 0 : 0.42 + 0.5 * cos(Double.pi * w) + 0.08 * cos(2 * Double.pi * w)
                row[tap] = sinc * window
                sum += row[tap]
            }
            for tap in 0..<(2 * halfWidth) {
                table[phase * 2 * halfWidth + tap] = Float(sum == 0 ? 0 : row[tap] / sum)
            }
        }
        kernel = table
        base = -Int64(halfWidth)
        history = [Float](repeating: 0, count: halfWidth * channels)
    }

    func push(_ frames: [Float]) {
        history.append(contentsOf: frames)
        received += Int64(frames.count / channels)
    }

    /// Every output frame the input so far allows.
    func pull() -> [Float] { produce(until: received) }

    /// The rest: the input's end padded with zeros, up to the output frame the input's length calls for.
    func finish() -> [Float] {
        history.append(contentsOf: [Float](repeating: 0, count: halfWidth * channels))
        let total = received
        received += Int64(halfWidth)
        let last = (total * outRate + inRate - 1) / inRate
        var out: [Float] = []
        while produced < last {
            let before = produced
            out += produce(until: received, limit: last)
            if produced == before { break }
        }
        return out
    }

    private func produce(until available: Int64, limit: Int64 = .max) -> [Float] {
        var out: [Float] = []
        let width = 2 * halfWidth
        let expected = (available - (produced * inRate) / outRate) * outRate / inRate + 2
        out.reserveCapacity(Int(max(0, min(expected, 1 << 20))) * channels)
        history.withUnsafeBufferPointer { input in
            kernel.withUnsafeBufferPointer { taps in
                while produced < limit {
                    let position = produced * inRate
                    let center = position / outRate
                    let remainder = position % outRate
                    var phase = Int((remainder * Int64(phases) + outRate / 2) / outRate)
                    var first = center - Int64(halfWidth) + 1
                    if phase == phases { phase = 0; first += 1 }
                    // Every input frame this output weighs must have come.
                    let start = Int(first - base)
                    guard first + Int64(width) <= available, start >= 0, start + width <= input.count / channels else { break }
                    let weights = taps.baseAddress! + phase * width
                    let frames = input.baseAddress! + start * channels
                    if channels == 2 {
                        // Both sides in one pass over the taps: the usual case, twice as fast.
                        var left: Float = 0, right: Float = 0
                        for tap in 0..<width {
                            let weight = weights[tap]
                            left += frames[2 * tap] * weight
                            right += frames[2 * tap + 1] * weight
                        }
                        out.append(left)
                        out.append(right)
                    } else {
                        for channel in 0..<channels {
                            var sum: Float = 0
                            for tap in 0..<width { sum += frames[tap * channels + channel] * weights[tap] }
                            out.append(sum)
                        }
                    }
                    produced += 1
                }
            }
        }
        // Frames no later output reaches are dropped.
        let nextFirst = (produced * inRate) / outRate - Int64(halfWidth) + 1
        let drop = Int(max(0, min(nextFirst - base, Int64(history.count / channels))))
        if drop > 0 {
            history.removeFirst(drop * channels)
            base += Int64(drop)
        }
        return out
    }
}
