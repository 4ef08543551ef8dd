import Foundation
import XCTest
@testable import XZAudio
import XZTestSupport

/// Decoders write a whole codec block straight into the reader's buffer when it fits and keep the rest of
/// one that does not: every format gives the same PCM whatever the reader's buffer size, before and after a
/// seek, and says how much of the block it began is left.
final class ReadSizeTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("read-size")
    }

    override func tearDown() {
        folder = nil  // removes the files
    }

    /// Each file made from a sox tone of `channels` and `bits`, with its encoder.
    private func files() throws -> [(name: String, path: String)] {
        var made: [(String, String)] = []
        for (channels, bits) in [(2, 16), (1, 16), (2, 24)] {
            let wav = folder.path("tone-\(channels)-\(bits).wav")
            try TestProcess.runChecked("sox", ["-R", "-r", "44100", "-c", "\(channels)", "-n", "-b", "\(bits)", wav,
                                               "synth", "70001s", "sine", "440", "sine", "660", "vol", "0.5"])
            let stem = folder.path("tone-\(channels)-\(bits)")
            made.append(("WAV \(channels)ch \(bits)-bit", wav))
            try TestProcess.runChecked("flac", ["-s", "-f", "-o", stem + ".flac", wav])
            made.append(("FLAC \(channels)ch \(bits)-bit", stem + ".flac"))
            try TestProcess.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", wav, "-c:a", "alac", stem + "-alac.m4a"])
            made.append(("ALAC \(channels)ch \(bits)-bit", stem + "-alac.m4a"))
            guard bits == 16 else { continue }
            try TestProcess.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "128k", stem + "-aac.m4a"])
            made.append(("AAC \(channels)ch", stem + "-aac.m4a"))
            try TestProcess.runChecked("oggenc", ["-Q", "-q", "4", "-o", stem + ".ogg", wav])
            made.append(("Vorbis \(channels)ch", stem + ".ogg"))
            try TestProcess.runChecked("opusenc", ["--quiet", wav, stem + ".opus"])
            made.append(("Opus \(channels)ch", stem + ".opus"))
        }
        return made
    }

    func testEveryBufferSizeGivesTheSamePCM() throws {
        for (name, path) in try files() {
            let whole = try PCM.decodeAll(try AudioDecoders.open(path: path), chunk: 1 << 22)
            XCTAssertGreaterThan(whole.count, 0, name)
            let frameBytes = try AudioDecoders.open(path: path).format.bytesPerFrame
            // One frame a read, a 20 ms period, and a size no block divides.
            for chunk in [frameBytes, 882 * frameBytes, 12_345] {
                let pcm = try PCM.decodeAll(try AudioDecoders.open(path: path), chunk: chunk)
                XCTAssertTrue(pcm == whole, "\(name), \(chunk)-byte reads: \(pcm.count) bytes against \(whole.count)")
            }
        }
    }

    /// A seek into the middle of a block, then reads into a large buffer: the seek's block is handed out
    /// first, then whole blocks, exactly what a straight decode gives there.
    func testLargeReadsAfterASeekAreExact() throws {
        for (name, path) in try files() where !["AAC", "Vorbis", "Opus"].contains(where: name.hasPrefix) {
            let whole = try PCM.decodeAll(try AudioDecoders.open(path: path), chunk: 1 << 22)
            let decoder = try AudioDecoders.open(path: path)
            let frameBytes = decoder.format.bytesPerFrame
            for target in [50_001, 7, 0] {
                try decoder.seek(toSample: target)
                XCTAssertEqual(decoder.positionInSamples, target, name)
                let rest = try PCM.decodeAll(decoder, chunk: 1 << 22)
                XCTAssertTrue(rest == whole.subdata(in: target * frameBytes..<whole.count), "\(name) from \(target)")
            }
        }
    }

    /// FLAC and ALAC blocks are 4096 frames: a read of one frame leaves the rest of the block, and a read
    /// of exactly the rest leaves nothing.
    func testFramesLeftInBlockCountsTheBlockBegun() throws {
        for (name, path) in try files() where name.hasPrefix("FLAC") || name.hasPrefix("ALAC") {
            let decoder = try AudioDecoders.open(path: path)
            let frameBytes = decoder.format.bytesPerFrame
            XCTAssertEqual(try PCM.read(decoder, samples: 1).count, frameBytes, name)
            XCTAssertEqual(decoder.framesLeftInBlock, 4095, name)
            var rest = [UInt8](repeating: 0, count: 4095 * frameBytes)
            XCTAssertEqual(try rest.withUnsafeMutableBytes { try decoder.read(into: $0) }, 4095 * frameBytes, name)
            XCTAssertEqual(decoder.framesLeftInBlock, 0, name)
            // A buffer that holds a whole block takes it in one read, leaving nothing.
            var block = [UInt8](repeating: 0, count: 8192 * frameBytes)
            XCTAssertEqual(try block.withUnsafeMutableBytes { try decoder.read(into: $0) }, 8192 * frameBytes, name)
            XCTAssertEqual(decoder.framesLeftInBlock, 0, name)
        }
    }
}
