import CMPG123
import XZSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Fast look at an MP3 for folder scans: format and duration without decoding the audio.
enum MP3Probe {
    /// Frames whose sizes are averaged for a duration estimate when no VBR header says it.
    static let framesToAverage = 200

    /// The format and samples per channel (see durationSamples), without decoding.
    static func measure(path: String) throws -> (format: AudioFormat, samples: Int?) {
        let handle = try MPG123Handle(path: path)
        let format = try handle.streamFormat()
        return (format, durationSamples(handle))
    }

    /// Samples per channel: VBRI header, else libmpg123's Xing/LAME count, else an estimate
    /// from the audio byte count and the mean size of the first frames.
    private static func durationSamples(_ handle: MPG123Handle) -> Int? {
        let mh = handle.pointer
        guard let info = handle.frameInfo() else { return nil }
        let spf = Int(mpg123_spf(mh))
        let firstFrame = Int(mpg123_framepos(mh))
        guard spf > 0, firstFrame >= 0, let file = ReadOnlyFile(path: handle.path) else { return nil }

        // libmpg123 does not read Fraunhofer's VBRI header; it sits 32 bytes after the first header.
        if let frames = vbriFrameCount(file, frameStart: firstFrame) {
            return frames * spf
        }
        if handle.hasVBRHeader {
            let length = mpg123_length(mh)
            if length > 0 { return Int(length) }
        }
        // No header: libmpg123's own guess counts the ID3v2 tag (e.g. a cover picture) as audio, so estimate here.
        var total = Int(info.framesize)
        var count = total > 0 ? 1 : 0
        while count < framesToAverage {
            let code = mpg123_framebyframe_next(mh)
            guard code == MPG123_OK.rawValue || code == MPG123_NEW_FORMAT.rawValue,
                  let next = handle.frameInfo(), next.framesize > 0 else { break }
            total += Int(next.framesize)
            count += 1
        }
        guard count > 0 else { return nil }
        let audioBytes = file.audioEnd() - firstFrame
        guard audioBytes > 0 else { return nil }
        let frames = (Double(audioBytes) / (Double(total) / Double(count))).rounded()
        return Int(frames) * spf
    }

    private static func vbriFrameCount(_ file: ReadOnlyFile, frameStart: Int) -> Int? {
        let bytes = file.read(at: frameStart + 36, count: 18)
        guard bytes.count == 18, bytes[0] == 0x56, bytes[1] == 0x42, bytes[2] == 0x52, bytes[3] == 0x49 else { return nil }
        // "VBRI", version, delay, quality (2 bytes each), stream bytes, frame count (4 bytes each, big-endian).
        let frames = bytes[14..<18].reduce(0) { $0 << 8 | Int($1) }
        return frames > 0 ? frames : nil
    }
}

/// Minimal positional reads for the few header bytes libmpg123 does not expose.
final class ReadOnlyFile {
    private let fd: Int32
    let size: Int

    init?(path: String) {
        guard let (fd, size) = try? RegularFile.openForReading(path) else { return nil }
        self.fd = fd
        self.size = Int(size)
    }

    deinit { close(fd) }

    func read(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        return got > 0 ? Array(buffer[0..<got]) : []
    }

    /// End of the audio data: file size less an ID3v1 tag and an APEv2 tag in front of it.
    func audioEnd() -> Int {
        var end = size
        if end >= 128, read(at: end - 128, count: 3) == Array("TAG".utf8) { end -= 128 }
        let footer = read(at: end - 32, count: 32)
        if footer.count == 32, Array(footer[0..<8]) == Array("APETAGEX".utf8) {
            let tagSize = footer[12..<16].reversed().reduce(0) { $0 << 8 | Int($1) }  // little-endian, includes footer
            let hasHeader = footer[23] & 0x80 != 0
            let total = tagSize + (hasHeader ? 32 : 0)
            if total > 0 && total <= end { end -= total }
        }
        return end
    }
}
