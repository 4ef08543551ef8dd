import CMPG123
import XZSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XZSystem

/// Decodes one MP3 (or MP1/MP2) file to signed 16-bit PCM at the stream's own rate and channel count,
/// gapless, byte for byte what `mpg123 -s FILE` writes. The format is that of the first frame and never
/// changes: a broken stream that switches rate or channel count mid-way is converted by libmpg123
/// (where mpg123 would switch). One instance per track; not thread-safe, use it from one thread at a time.
final class MP3Decoder {
    let path: String
    let format: AudioFormat
    /// Per channel, after gapless trimming: the VBR header's when it counts every byte the file holds,
    /// else from a full header scan, so exact for intact files.
    private(set) var lengthInSamples: Int?
    private(set) var positionInSamples: Int = 0

    private let handle: MPG123Handle
    /// Decoded bytes of the current frame not yet handed out; they live in libmpg123's buffer,
    /// which stays valid until the next decode or seek call.
    private var pending: UnsafeMutablePointer<UInt8>?
    private var pendingCount = 0
    private var finished = false
    private var deferredError: AudioError?

    // Damage tracking: a frame that does not start where the previous one ended means libmpg123
    // skipped bytes to resync.
    private var expectedFramePos: Int?
    private var damagePlaces = 0
    private var damagedBytes = 0
    private var firstDamageSample: Int?

    // Seeking (see seek(toSample:)).
    private let gaplessBegin: Int
    private let defaultPreframes: Int
    private var seekIndex: SeekIndex?
    /// A whole file whose length its VBR header gave: its frame index is scanned at the first far seek.
    private var indexOnFirstSeek = false

    /// libmpg123's frame index (byte offsets every `step` frames) from the scan, handed to the
    /// reopened handle so a seek jumps instead of reading the file up to the target.
    private struct SeekIndex {
        var offsets: [off_t]
        let step: off_t
    }

    /// `scanningLength: false` skips the header scan of the whole file, for a quick check that a file
    /// decodes: the length is then the VBR header's figure (or libmpg123's guess) and a seek reads
    /// its way to the target.
    convenience init(path: String, scanningLength: Bool = true) throws {
        try self.init(handle: MPG123Handle(path: path), scanningLength: scanningLength)
    }

    /// Decodes a file that may still be arriving (a stream), named `name` (its URL) in messages. Reads wait
    /// for missing bytes until they come, the source fails, or `giveUp` (asked while waiting) says to stop.
    /// The length is the VBR header's (no scan: that would wait for the whole file); a seek to a place not
    /// yet arrived jumps there by the stream's mean frame size, so the source can fetch from that point.
    convenience init(source: GrowingFile, name: String, giveUp: @escaping () -> Bool = { false }) throws {
        try self.init(handle: MPG123Handle(source: source, name: name, giveUp: giveUp), scanningLength: false)
    }

    private init(handle: MPG123Handle, scanningLength: Bool) throws {
        path = handle.path
        self.handle = handle
        format = try handle.streamFormat()
        // Pin the output so a mid-stream rate or channel change is converted, not passed on.
        try handle.fixOutput(to: format)
        // The first frame was found and checked under libmpg123's default resync limit, which keeps
        // garbage files out. Past that point skip any amount of damage rather than give up mid-track.
        try handle.resyncWithoutLimit()

        let encoderDelay = handle.state(MPG123_ENC_DELAY) ?? -1
        gaplessBegin = encoderDelay >= 0 ? encoderDelay + max(0, handle.state(MPG123_DEC_DELAY) ?? 0) : 0
        var preframes = 0
        var unused = 0.0
        mpg123_getparam2(handle.pointer, Int32(MPG123_PREFRAMES.rawValue), &preframes, &unused)
        defaultPreframes = preframes

        if scanningLength, Self.vbrHeaderCoversFile(handle), case let claimed = mpg123_length(handle.pointer), claimed >= 0 {
            (lengthInSamples, seekIndex) = (Int(claimed), nil)
            indexOnFirstSeek = true
        } else if scanningLength {
            (lengthInSamples, seekIndex) = Self.exactLength(handle)
        } else {
            let claimed = mpg123_length(handle.pointer)
            (lengthInSamples, seekIndex) = (claimed >= 0 ? Int(claimed) : nil, nil)
        }
    }

    /// Gapless length of what read() will deliver. This handle is never scanned: after a scan that
    /// disagrees with the VBR header libmpg123 turns gapless off, while `mpg123 -s` still trims.
    /// A second handle counts the frames really there (headers only, no decoding).
    private static func exactLength(_ main: MPG123Handle) -> (Int?, SeekIndex?) {
        let mh = main.pointer
        let claimed = mpg123_length(mh)
        let claimedFrames = mpg123_framelength(mh)
        // The count only refines the main handle's figure: if it cannot be had, that figure stands.
        guard let counter = scanned(main.path) else {
            return (claimed >= 0 ? Int(claimed) : nil, nil)
        }
        let index = seekIndex(of: counter)
        let frames = mpg123_framelength(counter.pointer)
        guard main.hasVBRHeader else {
            // No header, no gapless info: the scanned count is exact, libmpg123's own figure a size guess.
            let length = mpg123_length(counter.pointer)
            return (length >= 0 ? Int(length) : nil, index)
        }
        if frames >= claimedFrames { return (claimed >= 0 ? Int(claimed) : nil, index) }
        // Truncated: decoding trims the encoder delay at the start and hits EOF before the end trim.
        let spf = Int(mpg123_spf(mh))
        let encoderDelay = main.state(MPG123_ENC_DELAY) ?? -1
        let startTrim = encoderDelay >= 0 ? encoderDelay + max(0, main.state(MPG123_DEC_DELAY) ?? 0) : 0
        return (max(0, Int(frames) * spf - startTrim), index)
    }

    /// A second handle on `path` that has read every frame header (no decoding); nil when it cannot.
    private static func scanned(_ path: String) -> MPG123Handle? {
        guard let counter = try? MPG123Handle(path: path), (try? counter.streamFormat()) != nil,
              (try? counter.resyncWithoutLimit()) != nil, mpg123_scan(counter.pointer) == MPG123_OK.rawValue else { return nil }
        return counter
    }

    /// True when the file starts (after any ID3v2 tag) with a Xing/Info frame whose byte count is exactly
    /// what the file holds from there to its end tags: nothing is missing, so the header's frame count is
    /// what a scan would find. Anything else (no header, junk before it, a cut-off or padded file) is scanned.
    private static func vbrHeaderCoversFile(_ handle: MPG123Handle) -> Bool {
        guard handle.hasVBRHeader, let file = ReadOnlyFile(path: handle.path) else { return false }
        let start = ContentHead.id3v2End(file.read(at: 0, count: 10)).map(Int.init) ?? 0
        let header = file.read(at: start, count: 4)
        guard header.count == 4, header[0] == 0xFF, header[1] & 0xE0 == 0xE0 else { return false }
        // The tag follows the side information, whose size depends on the MPEG version and on mono.
        let mpeg1 = (header[1] >> 3) & 3 == 3
        let mono = header[3] >> 6 == 3
        let tag = file.read(at: start + 4 + (mpeg1 ? (mono ? 17 : 32) : (mono ? 9 : 17)), count: 16)
        guard tag.count == 16, tag[0..<4].elementsEqual("Xing".utf8) || tag[0..<4].elementsEqual("Info".utf8) else { return false }
        func word(_ at: Int) -> Int { tag[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        // Flags: 1 the frame count, 2 the byte count, both needed.
        guard word(4) & 3 == 3 else { return false }
        return word(12) == file.audioEnd() - start
    }

    private static func seekIndex(of handle: MPG123Handle) -> SeekIndex? {
        var offsets: UnsafeMutablePointer<off_t>?
        var step: off_t = 0
        var fill = 0
        guard mpg123_index(handle.pointer, &offsets, &step, &fill) == MPG123_OK.rawValue,
              let offsets, step > 0, fill > 0 else { return nil }
        return SeekIndex(offsets: Array(UnsafeBufferPointer(start: offsets, count: fill)), step: step)
    }

    /// One sentence once libmpg123 had to skip damaged data between frames; nil for a clean stream.
    var damageReport: String? {
        guard damagePlaces > 0 else { return nil }
        let at = firstDamageSample.map { clock($0, rate: format.sampleRate) } ?? "?"
        if damagePlaces == 1 {
            return "Skipped \(damagedBytes) bytes of damaged data at \(at); decoding carried on after it."
        }
        return "Skipped damaged data in \(damagePlaces) places (\(damagedBytes) bytes), the first at \(at); decoding carried on after each."
    }

    /// Fills `buffer` with whole sample frames; returns the bytes written, 0 at the end of the track.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let error = deferredError {
            deferredError = nil
            throw error
        }
        let frameBytes = format.bytesPerFrame
        let usable = buffer.count - buffer.count % frameBytes
        guard usable > 0, let base = buffer.baseAddress else {
            if buffer.count == 0 { return 0 }
            throw AudioError.invalidArgument("read buffer of \(buffer.count) bytes is smaller than one sample frame (\(frameBytes) bytes)", file: path)
        }
        var written = 0
        while written < usable {
            if pendingCount > 0, let source = pending {
                let n = min(pendingCount, usable - written)
                (base + written).copyMemory(from: source, byteCount: n)
                pending = source + n
                pendingCount -= n
                written += n
                positionInSamples += n / frameBytes
                continue
            }
            if finished { break }
            do {
                try decodeNextFrame()
            } catch let error as AudioError {
                // Hand out what we have; the error comes with the next call.
                if written == 0 { throw error }
                deferredError = error
                break
            }
        }
        return written
    }

    /// Sample-accurate: the next read starts exactly at `sample` (clamped to the track length) and
    /// gives what a straight decode from the start gives there.
    ///
    /// libmpg123's own seek lands on the right sample, but the audio right after it can differ from a
    /// straight decode: its default 4 frames of pre-roll do not refill a large bit reservoir (a burst of
    /// wrong audio in low-bitrate files), and its synthesis filter keeps a ring-buffer phase that seeking
    /// does not reset (1-LSB rounding differences). So short hops forward are decoded through; longer
    /// jumps reopen the file (phase back to its start value) and pre-roll at least 16 frames, a count
    /// chosen so the phase at the target matches a straight decode.
    func seek(toSample sample: Int) throws {
        guard sample >= 0 else {
            throw AudioError.cannotSeek("cannot seek to negative sample \(sample)", file: path)
        }
        let target = lengthInSamples.map { min(sample, $0) } ?? sample
        deferredError = nil
        if let source = handle.source, !source.isComplete, !hasArrived(sample: target, in: source) {
            return try jump(toSample: target)
        }
        if target >= positionInSamples && target - positionInSamples <= format.sampleRate * 10 {
            try skip(target - positionInSamples)
            return
        }
        try reopen()
        let mh = handle.pointer
        let spf = Int(mpg123_spf(mh))
        guard spf >= 32 else { return try skip(target) }
        // A straight decode synthesises every frame from the first output frame on; spf/32 filter
        // steps per frame move the 16-slot ring, so the pre-roll length only matters modulo `period`.
        let frame = (target + gaplessBegin) / spf
        let decodedBefore = frame - gaplessBegin / spf
        let period = 16 / gcd(spf / 32, 16)
        let minimum = 16
        let preroll = minimum + ((decodedBefore - minimum) % period + period) % period
        if decodedBefore - preroll < 2 {
            // Close to the start: decoding through is as cheap and exact by construction.
            return try skip(target)
        }
        try handle.check(mpg123_param2(mh, Int32(MPG123_PREFRAMES.rawValue), preroll, 0))
        let result = mpg123_seek(mh, off_t(target), SEEK_SET)
        try handle.check(mpg123_param2(mh, Int32(MPG123_PREFRAMES.rawValue), defaultPreframes, 0))
        guard result >= 0 else { throw handle.error(Int32(truncatingIfNeeded: result)) }
        positionInSamples = Int(result)
    }

    /// Where libmpg123 reads next in a growing source; nil for a plain file.
    var sourceOffset: Int64? { handle.sourceOffset }

    /// The average bitrate so far in kbit/s (the nominal one for CBR), nil before the first frame.
    var bitrateKbps: Int? {
        guard let info = handle.frameInfo(), info.bitrate > 0 else { return nil }
        return Int(info.abr_rate > 0 ? info.abr_rate : info.bitrate)
    }

    /// True when every byte from the start up to a little past `sample` (by the average rate) is there,
    /// so an exact seek decodes its way through without waiting.
    private func hasArrived(sample: Int, in source: GrowingFile) -> Bool {
        guard let kbps = bitrateKbps, format.sampleRate > 0 else { return false }
        let estimate = Int64(Int(clamping: Double(sample) / Double(format.sampleRate) * Double(kbps) * 125, to: 0...Int(Int64.max / 2)))
        return source.available(from: 0) >= estimate + 64 * 1024
    }

    /// A seek into a part of a growing file that has not arrived: libmpg123 jumps by the mean frame size
    /// (fuzzy) instead of reading every frame before the target; the position it reports is where decoding
    /// resumes. The pre-roll frames still refill the bit reservoir.
    private func jump(toSample target: Int) throws {
        try reopen()
        let mh = handle.pointer
        try handle.check(mpg123_param2(mh, Int32(MPG123_ADD_FLAGS.rawValue), Int(MPG123_FUZZY.rawValue), 0))
        try handle.check(mpg123_param2(mh, Int32(MPG123_PREFRAMES.rawValue), 16, 0))
        let result = mpg123_seek(mh, off_t(target), SEEK_SET)
        try handle.check(mpg123_param2(mh, Int32(MPG123_PREFRAMES.rawValue), defaultPreframes, 0))
        try handle.check(mpg123_param2(mh, Int32(MPG123_REMOVE_FLAGS.rawValue), Int(MPG123_FUZZY.rawValue), 0))
        guard result >= 0 else {
            if let failure = handle.sourceFailure { throw failure }
            throw handle.error(Int32(truncatingIfNeeded: result))
        }
        positionInSamples = Int(result)
        expectedFramePos = nil
    }

    /// Decodes and drops `samples` sample frames (fewer at the end of the track).
    private func skip(_ samples: Int) throws {
        var left = samples * format.bytesPerFrame
        guard left > 0 else { return }
        var scratch = [UInt8](repeating: 0, count: 32768)
        while left > 0 {
            let n = try scratch.withUnsafeMutableBytes {
                try read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<min($0.count, left)]))
            }
            if n == 0 { break }
            left -= n
        }
    }

    /// Closes and reopens the file on the same handle: decoder state as at the start, settings kept.
    private func reopen() throws {
        let mh = handle.pointer
        mpg123_close(mh)
        pending = nil
        pendingCount = 0
        finished = false
        expectedFramePos = nil
        positionInSamples = 0
        if handle.source != nil {
            try handle.openSource()
        } else {
            // libmpg123 opens by name: the file is asked again, as it may have been replaced since.
            try RegularFile.checkAudio(path)
            try handle.check(mpg123_open(mh, path))
        }
        let now = try handle.streamFormat()
        guard now == format else {
            throw AudioError.damaged("file changed while open: now \(now.sampleRate) Hz, \(now.channels) channel(s)", file: path)
        }
        if indexOnFirstSeek {
            indexOnFirstSeek = false
            seekIndex = Self.scanned(path).flatMap(Self.seekIndex)
        }
        if let index = seekIndex {
            var offsets = index.offsets  // libmpg123 copies them
            _ = offsets.withUnsafeMutableBufferPointer {
                mpg123_set_index(mh, $0.baseAddress, index.step, $0.count)
            }
        }
        _ = takeNewTagFlag()  // the tag read again on open is no news
    }

    private func decodeNextFrame() throws {
        let mh = handle.pointer
        var number: off_t = 0
        var audio: UnsafeMutablePointer<UInt8>?
        var bytes = 0
        let code = mpg123_decode_frame(mh, &number, &audio, &bytes)
        switch code {
        case MPG123_OK.rawValue:
            noteFramePosition()
            pending = audio
            pendingCount = audio == nil ? 0 : bytes
        case MPG123_NEW_FORMAT.rawValue:
            // Expected once at the start; output is pinned, so a different format means conversion failed.
            let now = try handle.streamFormat()
            if now != format {
                throw AudioError.damaged("stream changed to \(now.sampleRate) Hz, \(now.channels) channel(s) mid-way and cannot be converted to \(format.sampleRate) Hz, \(format.channels) channel(s)", file: path)
            }
        case MPG123_DONE.rawValue, MPG123_NEED_MORE.rawValue:
            finished = true
        default:
            finished = true
            throw handle.error(code)
        }
    }

    private func noteFramePosition() {
        let mh = handle.pointer
        let position = Int(mpg123_framepos(mh))
        let size = handle.frameInfo().map { Int($0.framesize) } ?? 0
        if let expected = expectedFramePos, position > expected, !takeNewTagFlag() {
            if damagePlaces == 0 { firstDamageSample = positionInSamples }
            damagePlaces += 1
            damagedBytes += position - expected
        }
        expectedFramePos = position >= 0 && size > 0 ? position + size : nil
    }

    /// True when libmpg123 parsed a new ID3 tag since the last look (a tag between frames is no damage).
    private func takeNewTagFlag() -> Bool {
        let mh = handle.pointer
        guard mpg123_meta_check(mh) & MPG123_NEW_ID3 != 0 else { return false }
        var v1: UnsafeMutablePointer<mpg123_id3v1>?
        var v2: UnsafeMutablePointer<mpg123_id3v2>?
        _ = mpg123_id3(mh, &v1, &v2)  // reading the tag clears the flag
        return true
    }

    private func gcd(_ a: Int, _ b: Int) -> Int {
        b == 0 ? max(a, 1) : gcd(b, a % b)
    }
}

extension MP3Decoder: AudioDecoder {
    static let plugin = DecoderPlugin(
        name: "mpg123", suffixes: ["mp3", "mp2", "mp1"], mimeTypes: ["audio/mpeg", "audio/mp3"],
        claims: { $0.startsWithMPEGFrame },
        open: { input in
            switch input {
            case .file(let path): return try MP3Decoder(path: path)
            case .growing(let source, let name, let giveUp): return try MP3Decoder(source: source, name: name, giveUp: giveUp)
            }
        },
        measure: { path in
            let measured = try MP3Probe.measure(path: path)
            return (measured.format, measured.samples)
        })
}
