import XZAudio
import XZEncoders
import XZSystem

/// One transcode: which file (a CUE track's part of its image), from where, to what.
struct TranscodeJob: Sendable {
    var path: String
    /// A CUE sheet track's bounds in CD frames (end nil: the image's end).
    var cueFrames: (start: Int, end: Int?)?
    /// Seconds into the song to start at (`timeOffset`), already held within its length.
    var offsetSeconds: Double
    var format: TranscodeFormat
    var kbps: Int
}

/// Decodes a file with the player's decoder registry and encodes it with the stream output's encoders,
/// handing the bytes out as they are made. No process is started; it runs on the caller's thread.
enum Transcoder {
    /// Sample frames decoded per read.
    static let framesPerRead = 4_096
    /// Bytes gathered before a write, past the first (which goes at once, for the client's first byte).
    static let writeSize = 32 * 1024

    static func run(_ job: TranscodeJob, write: ([UInt8]) throws -> Void) throws {
        let decoder = try AudioDecoders.open(path: job.path)
        let source = decoder.format
        var start = 0
        var end = decoder.lengthInSamples
        if let cue = job.cueFrames {
            start = CueSheet.samples(frames: max(0, cue.start), sampleRate: source.sampleRate)
            if let cueEnd = cue.end {
                let cueEndSample = CueSheet.samples(frames: max(0, cueEnd), sampleRate: source.sampleRate)
                end = end.map { min($0, cueEndSample) } ?? cueEndSample
            }
        }
        let offset = Int(clamping: job.offsetSeconds * Double(source.sampleRate), to: 0...(Int.max / 4))
        start = min(start + offset, end ?? Int.max)
        if start > 0 { try decoder.seek(toSample: start) }

        let asked = job.format.encodedFormat(for: source)
        let (encoder, layout) = try openEncoder(job, asked)
        defer { encoder.close() }
        let conversion = try PCMConversion(from: source, to: layout)

        var pending: [UInt8] = []
        var wroteAny = false
        func collect(final: Bool) throws {
            pending += encoder.takeOutput()
            guard !pending.isEmpty, final || !wroteAny || pending.count >= writeSize else { return }
            try write(pending)
            pending.removeAll(keepingCapacity: true)
            wroteAny = true
        }

        var left = end.map { max(0, $0 - start) }
        var buffer = [UInt8](repeating: 0, count: framesPerRead * source.bytesPerFrame)
        while left.map({ $0 > 0 }) ?? true {
            let bytes = try buffer.withUnsafeMutableBytes { try decoder.read(into: $0) }
            guard bytes > 0 else { break }
            var frames = bytes / source.bytesPerFrame
            if let remaining = left {
                frames = min(frames, remaining)
                left = remaining - frames
            }
            try buffer.withUnsafeBytes { raw in
                try conversion.convert(UnsafeRawBufferPointer(rebasing: raw[0..<(frames * source.bytesPerFrame)])) {
                    try encoder.encode($0)
                }
            }
            try collect(final: false)
        }
        try conversion.finish { try encoder.encode($0) }
        encoder.close()
        try collect(final: true)
    }

    private static func openEncoder(_ job: TranscodeJob, _ format: AudioFormat) throws -> (AudioEncoder, AudioFormat) {
        let encoder = try makeEncoder(kind: job.format.encoderKind, settings: job.format.encoderSettings(kbps: job.kbps))
        if let layout = try? encoder.open(format: format) { return (encoder, layout) }
        guard job.format == .vorbis else { return (encoder, try encoder.open(format: format)) }
        // libvorbis has no setup for some qualities at some rates and channel counts: its default then.
        let byQuality = try makeEncoder(kind: .vorbis, settings: [:])
        return (byQuality, try byQuality.open(format: format))
    }
}
