import CChromaprint
import XZSystem

/// A track's Chromaprint fingerprint as MPD's `getfingerprint` makes it, so that a lossless file gets
/// MPD's string exactly: the first two minutes of audio at the file's own rate and channels, brought to
/// 16 bits as MPD converts (its dither included), and the decoder's block that reaches two minutes fed
/// whole, as MPD's decoders hand over whole blocks (a FLAC frame, a 16 KiB read of a WAV file).
package enum AudioFingerprint {
    /// MPD feeds Chromaprint the start of a track, this long.
    package static let fedSeconds = 120

    /// The fingerprint of `path`, in Chromaprint's compressed base64 form. Decodes at most two minutes
    /// and a block of it, checking `deadline` between reads; throws `AudioError` when nothing decodes it.
    package static func chromaprint(path: String, deadline: Deadline = .never) throws -> String {
        let decoder = try AudioDecoders.open(path: path)
        let format = decoder.format
        let feed = MPDFeed(decoder: decoder, path: path)
        let print = try Chromaprint(sampleRate: format.sampleRate, channels: format.channels, path: path)
        let chunkFrames = feed.fixedChunkFrames ?? 4096
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkFrames * format.bytesPerFrame, alignment: 16)
        defer { buffer.deallocate() }
        var samples = [Int16](repeating: 0, count: chunkFrames * format.channels)
        var dither = MPDDither()
        // The rate is below 2^30 (`AudioDecoders.checkFormat`): the product fits.
        let limit = fedSeconds * format.sampleRate
        var fed = 0
        func feedNext(_ frames: Int) throws -> Int {
            try deadline.check()
            let bytes = try decoder.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< frames * format.bytesPerFrame]))
            let count = bytes / format.sample.bytes
            samples.withUnsafeMutableBufferPointer { out in
                feed.convert(UnsafeRawBufferPointer(rebasing: buffer[0 ..< bytes]), count: count, into: out, dither: &dither)
            }
            try samples.withUnsafeBufferPointer { try print.feed(UnsafeBufferPointer(rebasing: $0[0 ..< count])) }
            return bytes / format.bytesPerFrame
        }
        while fed < limit {
            // A fixed read is whole even past the limit; otherwise the limit is read up to, then the rest
            // of its block below.
            let frames = try feedNext(feed.fixedChunkFrames ?? min(chunkFrames, limit - fed))
            if frames == 0 { break }
            fed += frames
        }
        while feed.fixedChunkFrames == nil, let left = decoder.framesLeftInBlock, left > 0 {
            if try feedNext(min(left, chunkFrames)) == 0 { break }
        }
        return try print.finish()
    }

    /// How alike two fingerprints are: the share of equal bits over the items both have, the second
    /// moved by up to `shift` items either way to where they agree best (1 is the same audio); nil when
    /// either is no fingerprint.
    package static func similarity(_ one: String, _ other: String, shift: Int = 0) -> Double? {
        guard let first = items(one), let second = items(other), !first.isEmpty, !second.isEmpty else { return nil }
        var best = 0.0
        for offset in -shift ... shift {
            let pairs = zip(first.dropFirst(max(offset, 0)), second.dropFirst(max(-offset, 0)))
            var compared = 0
            var differing = 0
            for (a, b) in pairs {
                compared += 1
                differing += (a ^ b).nonzeroBitCount
            }
            if compared > 0 { best = max(best, 1 - Double(differing) / Double(compared * 32)) }
        }
        return best
    }

    /// The 32-bit items of a base64 fingerprint.
    static func items(_ fingerprint: String) -> [UInt32]? {
        var raw: UnsafeMutablePointer<UInt32>?
        var size: Int32 = 0
        var algorithm: Int32 = 0
        guard let library = xz_chromaprint_load()?.pointee else { return nil }
        let decoded = fingerprint.withCString {
            library.chromaprint_decode_fingerprint($0, Int32(clamping: fingerprint.utf8.count), &raw, &size, &algorithm, 1)
        }
        guard decoded == 1, let raw else { return nil }
        defer { library.chromaprint_dealloc(raw) }
        return Array(UnsafeBufferPointer(start: raw, count: Int(size)))
    }
}

/// How MPD's decoder plug-in for a file hands its samples over: in which sample format, so how they
/// become 16 bits, and in reads of what size.
struct MPDFeed {
    enum Conversion {
        /// Already 16 bits.
        case none
        /// MPD's FLAC plug-in gives 24-bit FLAC as 24 bits in 32 (S24_P32), dithered to 16.
        case dither24
        /// 32-bit integers (libsndfile's for 24- and 32-bit WAV, 32-bit FLAC), dithered to 16.
        case dither32
        /// Floats, scaled by 2^15, truncated and clamped.
        case float
    }

    let conversion: Conversion
    /// libsndfile's plug-in reads 16 KiB at a time; nil: the decoder's blocks.
    let fixedChunkFrames: Int?

    /// The suffixes MPD gives libsndfile first (its plug-in order; `mpd --version`).
    static let sndfileSuffixes: Set<String> = [
        "wav", "aiff", "aif", "au", "snd", "paf", "iff", "svx", "sf", "voc", "w64", "pvf", "xi", "htk", "caf", "sd2",
    ]

    init(decoder: AudioDecoder, path: String) {
        let format = decoder.format
        let isFLAC = decoder is FLACDecoder
        switch format.sample {
        case .s16: conversion = .none
        case .s32: conversion = isFLAC && format.bits == 24 ? .dither24 : .dither32
        case .float32: conversion = .float
        }
        if !isFLAC, let suffix = AudioDecoders.suffix(of: path), Self.sndfileSuffixes.contains(suffix) {
            fixedChunkFrames = max(16384 / format.bytesPerFrame, 1)
        } else {
            fixedChunkFrames = nil
        }
    }

    /// `count` samples of the decoder's layout in `input` as 16 bits into `output`.
    func convert(_ input: UnsafeRawBufferPointer, count: Int, into output: UnsafeMutableBufferPointer<Int16>,
                 dither: inout MPDDither) {
        switch conversion {
        case .none:
            for i in 0 ..< count { output[i] = input.load(fromByteOffset: i * 2, as: Int16.self) }
        case .dither24:
            // The decoder keeps 24-bit samples in the high bits; MPD's are in the low 24.
            for i in 0 ..< count {
                output[i] = dither.convert(Int64(input.load(fromByteOffset: i * 4, as: Int32.self) >> 8), sourceBits: 24)
            }
        case .dither32:
            for i in 0 ..< count {
                output[i] = dither.convert(Int64(input.load(fromByteOffset: i * 4, as: Int32.self)), sourceBits: 32)
            }
        case .float:
            for i in 0 ..< count {
                let scaled = input.load(fromByteOffset: i * 4, as: Float.self) * 32768
                // MPD converts to 32 bits and clamps; x86 makes NaN and overflow the lowest value.
                let whole = scaled.isNaN || abs(scaled) >= 2_147_483_648 ? Int32.min : Int32(scaled)
                output[i] = Int16(clamping: whole)
            }
        }
    }
}

/// MPD's `PcmDither`: the rounding error fed back through a noise-shaping filter, plus the difference of
/// two draws of its linear congruential random numbers; one state for all channels, in interleaved order.
struct MPDDither {
    private var error0: Int64 = 0
    private var error1: Int64 = 0
    private var error2: Int64 = 0
    private var random: UInt32 = 0

    /// `sample`, a signed integer of `sourceBits` bits, dithered to 16 bits.
    mutating func convert(_ sample: Int64, sourceBits: Int) -> Int16 {
        let scaleBits = Int64(sourceBits - 16)
        let round: Int64 = 1 << (scaleBits - 1)
        let mask: Int64 = (1 << scaleBits) - 1
        let maximum: Int64 = (1 << (Int64(sourceBits) - 1)) - 1
        let minimum: Int64 = -(1 << (Int64(sourceBits) - 1))
        var sample = sample + error0 - error1 + error2
        error2 = error1
        error1 = error0 / 2
        var output = sample + round
        let next = random &* 0x0019_660D &+ 0x3C6E_F35F
        // Only the low bits count, the same whatever the width MPD keeps its state in.
        output += Int64(next) & mask - Int64(random) & mask
        random = next
        if output > maximum {
            output = maximum
            if sample > maximum { sample = maximum }
        } else if output < minimum {
            output = minimum
            if sample < minimum { sample = minimum }
        }
        output &= ~mask
        // MPD keeps the error in 32 bits; it is small, so nothing is lost.
        error0 = Int64(Int32(truncatingIfNeeded: sample - output))
        return Int16(truncatingIfNeeded: output >> scaleBits)
    }
}

/// One Chromaprint context (the default algorithm, as MPD's), freed with it.
private final class Chromaprint {
    private let library: xz_chromaprint
    private let context: OpaquePointer
    private let path: String

    init(sampleRate: Int, channels: Int, path: String) throws {
        self.path = path
        guard let library = xz_chromaprint_load()?.pointee else {
            throw AudioError.libraryFailed(xz_chromaprint_error().map { String(cString: $0) } ?? "cannot load Chromaprint",
                                           file: path)
        }
        self.library = library
        guard let context = library.chromaprint_new(Int32(CHROMAPRINT_ALGORITHM_DEFAULT.rawValue)) else {
            throw AudioError.libraryFailed("cannot create a Chromaprint context", file: path)
        }
        self.context = context
        guard library.chromaprint_start(context, Int32(clamping: sampleRate), Int32(clamping: channels)) == 1 else {
            throw AudioError.libraryFailed("Chromaprint cannot fingerprint \(channels) channels at \(sampleRate) Hz", file: path)
        }
    }

    deinit { library.chromaprint_free(context) }

    func feed(_ samples: UnsafeBufferPointer<Int16>) throws {
        guard let base = samples.baseAddress, !samples.isEmpty else { return }
        guard library.chromaprint_feed(context, base, Int32(samples.count)) == 1 else {
            throw AudioError.libraryFailed("Chromaprint refused the audio", file: path)
        }
    }

    func finish() throws -> String {
        var text: UnsafeMutablePointer<CChar>?
        guard library.chromaprint_finish(context) == 1, library.chromaprint_get_fingerprint(context, &text) == 1, let text else {
            throw AudioError.libraryFailed("Chromaprint could not finish the fingerprint", file: path)
        }
        defer { library.chromaprint_dealloc(text) }
        return String(cString: text)
    }
}
