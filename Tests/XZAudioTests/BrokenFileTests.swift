import Foundation
import XCTest
@testable import XZAudio
import XZTestSupport

/// Inputs that must never crash: refused with an AudioError, or decoded as far as possible.
final class BrokenFileTests: XCTestCase {
    private var fixtures: Fixtures!

    override func setUpWithError() throws {
        fixtures = try Fixtures.shared()
    }

    private func assertRefused(_ path: String, mentioning words: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        for attempt in ["decoder", "probe"] {
            do {
                if attempt == "decoder" { _ = try MP3Decoder(path: path) } else { _ = try AudioDecoders.probe(path: path) }
                XCTFail("\(attempt) accepted \(path)", file: file, line: line)
            } catch let error as AudioError {
                XCTAssertEqual(error.file, path, file: file, line: line)
                XCTAssertEqual(error.description, "\(path): \(error.message)", file: file, line: line)
                if let words { XCTAssertTrue(error.message.contains(words), error.message, file: file, line: line) }
            } catch {
                XCTFail("\(attempt): not an AudioError: \(error)", file: file, line: line)
            }
        }
    }

    func testMissingFileCarriesLibmpg123Message() {
        assertRefused("/nonexistent/folder/song.mp3", mentioning: "No such file")
    }

    func testEmptyFile() throws {
        assertRefused(try fixtures.write("empty.mp3", []))
    }

    func testRandomBytes() throws {
        var random = SeededBytes(seed: 42)
        assertRefused(try fixtures.write("garbage.mp3", random.bytes(64 * 1024)))
    }

    func testPlainTextFile() throws {
        let text = String(repeating: "This is not an MP3 file, just some words on a line.\n", count: 400)
        assertRefused(try fixtures.write("text.mp3", Array(text.utf8)))
    }

    func testFolderNamedLikeAnMP3() throws {
        let path = try fixtures.write("folder.mp3", [])
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        assertRefused(path, mentioning: "is a folder")
    }

    func testCutToAFewBytes() throws {
        assertRefused(try fixtures.variant(of: "cbr44", as: "three-bytes.mp3") { $0 = Array($0.prefix(3)) })
    }

    func testID3TagSizePastEndOfFile() throws {
        // Header claims 1 MB of tag; 500 bytes follow.
        let header = Array("ID3".utf8) + [3, 0, 0] + ID3Builder.synchsafe(1_000_000)
        assertRefused(try fixtures.write("tag-past-end.mp3", header + [UInt8](repeating: 0x41, count: 500)), mentioning: "ID3v2")
        // The same in front of real audio: libmpg123 takes the audio for tag bytes and finds nothing after.
        let path = try fixtures.variant(of: "cbr44", as: "tag-swallows-audio.mp3") { bytes in
            bytes = Array("ID3".utf8) + [3, 0, 0] + ID3Builder.synchsafe(bytes.count * 2) + bytes
        }
        assertRefused(path, mentioning: "ID3v2")
    }

    func testTruncatedHalfDecodesWhatIsThere() throws {
        for name in ["cbr44", "vbr44"] {
            let path = try fixtures.variant(of: name, as: "\(name)-half.mp3") { $0 = Array($0.prefix($0.count / 2)) }
            let (decoder, pcm) = try PCM.decodeFile(path)
            PCM.assertSame(pcm, try Tool.mpg123PCM(path), "\(name) cut in half")
            let samples = pcm.count / decoder.format.bytesPerFrame
            XCTAssertEqual(decoder.lengthInSamples, samples, "length counts the frames really there")
            XCTAssertEqual(Double(samples), 2.0 * 44100, accuracy: 0.25 * 44100, name)
            // The probe trusts the header (fast), so a VBR header still claims the full length.
            XCTAssertNotNil(try AudioDecoders.probe(path: path).durationMs)
        }
    }

    func testCorruptionInTheMiddleIsSkippedAndReported() throws {
        for name in ["cbr44", "vbr44", "mono22"] {
            let clean = try PCM.decodeFile(try fixtures.path(name))
            XCTAssertNil(clean.0.damageReport)
            var random = SeededBytes(seed: 1234)
            let path = try fixtures.variant(of: name, as: "\(name)-corrupt.mp3") { bytes in
                let start = bytes.count / 2
                bytes.replaceSubrange(start..<start + 6000, with: random.bytes(6000))
            }
            let decoder = try MP3Decoder(path: path)
            let pcm = try PCM.decodeAll(decoder)
            let report = try XCTUnwrap(decoder.damageReport, name)
            XCTAssertTrue(report.hasPrefix("Skipped"), report)
            // The damage sits in the middle of the file, so the reported time is about half the length.
            let middle = clean.1.count / clean.0.format.bytesPerFrame / clean.0.format.sampleRate / 2
            XCTAssertTrue((middle - 1...middle + 1).contains { report.contains(" 0:0\($0)") }, report)
            XCTAssertTrue(report.hasSuffix("."), report)
            // Audio after the damage is decoded too. How many frames around the overwritten bytes go
            // depends on where lame's frames and bit reservoir fall, which differs between lame builds,
            // so the bound is "most of what follows the damage": a decoder that stops there gets 0.5.
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            let lost = 6000.0 / Double(size)
            let got = Double(pcm.count) / Double(clean.1.count)
            XCTAssertGreaterThan(got, 0.5 + (0.5 - lost) / 2, "\(name): only \(got) of the audio decoded")
            XCTAssertLessThan(got, 1.0, name)
            // The start, before the damage, is untouched.
            let head = clean.1.count / 4
            XCTAssertEqual(pcm.prefix(head), clean.1.prefix(head), name)
        }
    }

    func testTruncatedAtManyPointsNeverCrashes() throws {
        let source = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try fixtures.path("vbr44"))))
        for cut in stride(from: 0, to: min(source.count, 6000), by: 397) + [source.count / 3, source.count - 1] {
            let path = try fixtures.write("cut-\(cut).mp3", Array(source.prefix(cut)))
            do {
                let (decoder, pcm) = try PCM.decodeFile(path)
                XCTAssertEqual(pcm.count % decoder.format.bytesPerFrame, 0)
            } catch {
                XCTAssertTrue(error is AudioError, "cut at \(cut): \(error)")
            }
        }
    }
}
