import Foundation
import XZSystem
import XCTest
@testable import XZAudio
import XZTestSupport

/// XZAudio's own helpers: reference decodes, PCM comparison, ID3 bytes, fixture MP3s.
/// Paths, corpora, running tools and TestFailure come from XZTestSupport.

/// What command-line tools make of a file, for comparison; a tool that fails throws.
enum Tool {
    /// What the mpg123 command line writes for FILE: raw s16 native channels and rate, gapless.
    static func mpg123PCM(_ path: String) throws -> Data {
        try TestProcess.runChecked("mpg123", ["-q", "-s", path]).stdoutData
    }

    static func md5(_ path: String) throws -> String {
        String(try TestProcess.runChecked("md5sum", [path]).stdout.prefix(32))
    }

    /// `bytes` converted from one encoding to another by the system's iconv tool.
    static func iconv(_ bytes: [UInt8], from: String, to: String) throws -> [UInt8] {
        [UInt8](try TestProcess.runChecked("iconv", ["-f", from, "-t", to], input: Data(bytes)).stdoutData)
    }
}

enum PCM {
    /// Decodes to the end; `chunk` bytes per read, by default a count no frame size divides, so reads
    /// must stop short of a partial frame.
    static func decodeAll(_ decoder: AudioDecoder, chunk: Int = 12_345) throws -> Data {
        var out = Data()
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try decoder.read(into: $0) }
            if n == 0 { break }
            out.append(contentsOf: buffer[0..<n])
        }
        return out
    }

    static func decodeFile(_ path: String) throws -> (MP3Decoder, Data) {
        let decoder = try MP3Decoder(path: path)
        return (decoder, try decodeAll(decoder))
    }

    /// Reads up to `samples` sample frames from the current position.
    static func read(_ decoder: AudioDecoder, samples: Int) throws -> Data {
        var out = Data()
        let want = samples * decoder.format.bytesPerFrame
        var buffer = [UInt8](repeating: 0, count: min(want, 8192))
        while out.count < want {
            let n = try buffer.withUnsafeMutableBytes {
                try decoder.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<min($0.count, want - out.count)]))
            }
            if n == 0 { break }
            out.append(contentsOf: buffer[0..<n])
        }
        return out
    }

    static func int16s(_ data: Data) -> [Int16] {
        data.withUnsafeBytes { raw in
            (0..<raw.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
    }

    /// Byte equality with a readable failure instead of a multi-megabyte dump.
    static func assertSame(_ got: Data, _ expected: Data, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        if got == expected { return }
        let common = min(got.count, expected.count)
        let firstDiff = (0..<common).first { got[got.startIndex + $0] != expected[expected.startIndex + $0] } ?? common
        XCTFail("\(what): \(got.count) bytes vs \(expected.count) expected, first difference at byte \(firstDiff)", file: file, line: line)
    }

    /// minimp3's measure: max |diff| and PSNR = 10 log10(32767^2 / MSE), 99 dB when identical.
    static func compare(_ out: [Int16], _ ref: [Int16], offset: Int = 0) -> (count: Int, maxDiff: Int, psnr: Double) {
        let count = max(0, min(ref.count, out.count - offset))
        var maxDiff = 0
        var squared = 0.0
        for i in 0..<count {
            let d = Int(out[i + offset]) - Int(ref[i])
            maxDiff = max(maxDiff, abs(d))
            squared += Double(d * d)
        }
        let mse = count > 0 ? squared / Double(count) : 0
        let psnr = mse == 0 ? 99 : 10 * log10(32767.0 * 32767.0 / mse)
        return (count, maxDiff, psnr)
    }
}

/// Deterministic bytes for corruption tests (SplitMix64), so failures reproduce.
struct SeededBytes {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }
}

extension ID3Builder {
    /// Bytes of `text` in a legacy encoding, converted by the system's iconv tool.
    static func encode(_ text: String, as encoding: String) throws -> [UInt8] {
        try Tool.iconv(Array(text.utf8), from: "UTF-8", to: encoding)
    }
}

/// MP3s made at test time with sox and lame, once per test run, in a TemporaryFolder (gone at exit).
final class Fixtures: Sendable {
    private static let made: Result<Fixtures, Error> = Result { try Fixtures() }

    static func shared() throws -> Fixtures { try made.get() }

    private let folder: TemporaryFolder
    private let files = Mutex<[String: String]>([:])

    init() throws {
        folder = try TemporaryFolder("audio-fixtures")
        // Two tones so left and right differ; short files keep the suite fast on shared cores.
        let stereo44 = try sine("stereo44", rate: 44100, channels: 2, seconds: 4)
        try encode("cbr44", stereo44, ["-b", "128"])
        try encode("vbr44", stereo44, ["-V", "2"])  // Xing/LAME header with gapless info
        try encode("noheader44", stereo44, ["-b", "128", "-t"])  // no Xing/LAME frame
        try encode("mono22", try sine("mono22", rate: 22050, channels: 1, seconds: 3), ["-b", "64"])
        try encode("stereo48", try sine("stereo48", rate: 48000, channels: 2, seconds: 3), ["-V", "4"])
        try encode("mpeg25_8k", try sine("mono8", rate: 8000, channels: 1, seconds: 3), ["-V", "5"])
        try encode("cjk", stereo44, ["-b", "128", "--id3v2-utf16", "--tt", "晴天", "--ta", "周杰伦",
                                     "--tl", "叶惠美", "--ty", "2003", "--tn", "3/11"])
        // A 400 KB cover in front of a header-less CBR stream: libmpg123's own size guess would count it as audio.
        let cover = URL(fileURLWithPath: folder.path("cover.jpg"))
        var random = SeededBytes(seed: 7)
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0] + random.bytes(400_000)).write(to: cover)
        try encode("picture", stereo44, ["-b", "128", "-t", "--ti", cover.path, "--tt", "With cover"])
    }

    func path(_ name: String) throws -> String {
        guard let p = files.withLock({ $0[name] }) else { throw TestFailure("no fixture \(name)") }
        return p
    }

    /// A copy of fixture `name` with `transform` applied to its bytes.
    func variant(of name: String, as newName: String, _ transform: (inout [UInt8]) throws -> Void) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try path(name))))
        try transform(&bytes)
        return try write(newName, bytes)
    }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = folder.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func sine(_ name: String, rate: Int, channels: Int, seconds: Int) throws -> String {
        let wav = folder.path(name + ".wav")
        var args = ["-n", "-r", "\(rate)", "-b", "16", "-c", "\(channels)", wav, "synth", "\(seconds)", "sine", "440"]
        if channels == 2 { args += ["sine", "660"] }
        args += ["vol", "0.5"]
        try TestProcess.runChecked("sox", args)
        return wav
    }

    private func encode(_ name: String, _ wav: String, _ options: [String]) throws {
        let mp3 = folder.path(name + ".mp3")
        try TestProcess.runChecked("lame", ["--quiet"] + options + [wav, mp3])
        files.withLock { $0[name] = mp3 }
    }
}
