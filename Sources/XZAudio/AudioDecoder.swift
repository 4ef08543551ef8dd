/// How a decoder lays out its samples: interleaved, native-endian.
package enum SampleFormat: Sendable, Equatable {
    /// Signed 16-bit.
    case s16
    /// Signed 32-bit; a source of fewer bits (24-bit FLAC, ALAC) sits in the high bits.
    case s32
    /// 32-bit float, full scale at ±1.
    case float32

    package var bytes: Int {
        switch self {
        case .s16: return 2
        case .s32, .float32: return 4
        }
    }
}

/// The PCM a decoder hands out: the file's own rate and channels, in `sample` layout. `bits` is the
/// source's own depth (24 for 24-bit FLAC in `.s32`), for MPD's `Format:` line.
package struct AudioFormat: Sendable, Equatable {
    package let sampleRate: Int
    package let channels: Int
    package let sample: SampleFormat
    package let bits: Int

    package init(sampleRate: Int, channels: Int, sample: SampleFormat = .s16, bits: Int? = nil) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.sample = sample
        self.bits = bits ?? (sample == .s16 ? 16 : 32)
    }

    /// Bytes of one sample frame (all channels).
    package var bytesPerFrame: Int { channels * sample.bytes }

    /// MPD's `RATE:BITS:CHANNELS`, `f` for float.
    package var mpdFormat: String {
        "\(sampleRate):" + (sample == .float32 ? "f" : "\(bits)") + ":\(channels)"
    }

    /// The same rate and channels in another sample layout.
    package func with(sample newSample: SampleFormat) -> AudioFormat {
        AudioFormat(sampleRate: sampleRate, channels: channels, sample: newSample,
                    bits: newSample == .s16 ? 16 : (newSample == sample ? bits : 32))
    }
}

/// One open track of any format, as MPD's `DecoderPlugin` and cmus's `input_plugin_ops` see it. One
/// instance per track, used from one thread at a time (the audio thread, a scan thread).
package protocol AudioDecoder: AnyObject {
    /// The file (or, for a stream, its URL) that messages name.
    var path: String { get }
    var format: AudioFormat { get }
    /// Sample frames after gapless trimming; nil when the file does not say.
    var lengthInSamples: Int? { get }
    /// The sample frame the next read starts at.
    var positionInSamples: Int { get }
    /// Fills `buffer` with whole sample frames; returns the bytes written, 0 at the end of the track.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Sample-exact: the next read starts at `sample` (clamped to the length).
    func seek(toSample sample: Int) throws
    /// One sentence when damaged data was skipped; nil for a clean stream.
    var damageReport: String? { get }
    /// Where reading goes on in a growing source; nil for a plain file.
    var sourceOffset: Int64? { get }
    /// The average bitrate so far in kbit/s, nil before any audio.
    var bitrateKbps: Int? { get }
    /// Frames of the codec's block (a FLAC frame, an FFmpeg frame) that the last read began and left
    /// unread, 0 at a block's end; nil when the decoder does not keep to its codec's blocks.
    var framesLeftInBlock: Int? { get }
    /// What a stream's own tags say of the part playing now (a chained Ogg stream's current link); nil for
    /// a plain file, or a stream that says nothing.
    var streamTags: StreamTags? { get }
}

extension AudioDecoder {
    package var damageReport: String? { nil }
    package var sourceOffset: Int64? { nil }
    package var bitrateKbps: Int? { nil }
    package var framesLeftInBlock: Int? { nil }
    package var streamTags: StreamTags? { nil }

    /// The Ogg decoders' seek: granule-exact through the library's own `pcmSeek` when the stream is
    /// seekable, else by decoding forward. Returns the new position.
    func seekOgg(to sample: Int, codec: String, seekable: Bool, failure: AudioError?, pcmSeek: (Int) -> Int32) throws -> Int {
        guard sample >= 0 else { throw AudioError.cannotSeek("cannot seek to negative sample \(sample)", file: path) }
        let target = lengthInSamples.map { min(sample, $0) } ?? sample
        // The libraries refuse a seek to the very end; nothing is left to read there anyway.
        if let length = lengthInSamples, target == length { return target }
        guard seekable else {
            guard target >= positionInSamples else {
                throw AudioError.cannotSeek("cannot seek back in this \(codec) stream: it is not seekable", file: path)
            }
            try skipByDecoding(target - positionInSamples)
            return positionInSamples
        }
        let code = pcmSeek(target)
        guard code == 0 else {
            throw failure ?? AudioError.cannotSeek("cannot seek in the \(codec) stream (error \(code))", file: path)
        }
        return target
    }

    /// Decodes and drops `samples` sample frames (fewer at the end of the track).
    func skipByDecoding(_ samples: Int) throws {
        var left = samples * format.bytesPerFrame
        guard left > 0 else { return }
        var scratch = [UInt8](repeating: 0, count: 32768 - 32768 % format.bytesPerFrame)
        while left > 0 {
            let n = try scratch.withUnsafeMutableBytes {
                try read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<min($0.count, left)]))
            }
            if n == 0 { break }
            left -= n
        }
    }
}

/// What a decoder reads: a file on disk, or a file still arriving (a stream), whose reads wait for bytes
/// until they come, the source fails, or `giveUp` says to stop.
package enum AudioInput {
    case file(path: String)
    case growing(GrowingFile, name: String, giveUp: () -> Bool)

    /// The name messages use.
    package var name: String {
        switch self {
        case .file(let path): return path
        case .growing(_, let name, _): return name
        }
    }
}
