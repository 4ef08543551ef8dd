import Foundation
import XCTest
@testable import XZAudio
import XZTestSupport

/// An MP3 whose Xing/Info header counts every byte of the file opens without a scan of its frames: the
/// header's length is the file's, and the frame index for far seeks is made at the first such seek. A file
/// the header does not describe (cut off, or with bytes after its frames) is scanned at open as before.
final class MP3HeaderLengthTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("mp3-header-length")
    }

    override func tearDown() {
        folder = nil  // removes the files
    }

    /// 30 s of tones through lame (VBR, an Info header, ID3v2 and ID3v1 tags).
    private func whole() throws -> String {
        let wav = folder.path("tone.wav")
        try TestProcess.runChecked("sox", ["-R", "-r", "44100", "-c", "2", "-n", "-b", "16", wav,
                                           "synth", "30", "sine", "440:880", "sine", "660", "vol", "0.5"])
        let mp3 = folder.path("tone.mp3")
        try TestProcess.runChecked("lame", ["--quiet", "-V", "4", "--tt", "Tone", "--ta", "Sox", "--add-id3v2", wav, mp3])
        return mp3
    }

    func testWholeFileLengthAndFarSeeksMatchAStraightDecode() throws {
        let path = try whole()
        let (decoder, pcm) = try PCM.decodeFile(path)
        PCM.assertSame(pcm, try Tool.mpg123PCM(path), "whole file")
        let frameBytes = decoder.format.bytesPerFrame
        XCTAssertEqual(decoder.lengthInSamples, pcm.count / frameBytes, "the header's length is the decoded one")

        // Far seeks (beyond what is decoded through) on a fresh decoder, forward then back.
        let seeking = try MP3Decoder(path: path)
        for target in [1_000_000, 500_000, 1_300_000] {
            try seeking.seek(toSample: target)
            XCTAssertEqual(seeking.positionInSamples, target)
            let got = try PCM.read(seeking, samples: 4_000)
            XCTAssertTrue(got == pcm.subdata(in: target * frameBytes..<(target + 4_000) * frameBytes), "at \(target)")
        }
    }

    /// Bytes after the last frame (before the ID3v1 tag) that the header does not count: the scan decides.
    func testBytesTheHeaderDoesNotCountAreScanned() throws {
        let path = try whole()
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let padded = folder.path("padded.mp3")
        bytes.insert(contentsOf: [UInt8](repeating: 0, count: 3_000), at: bytes.count - 128)
        try Data(bytes).write(to: URL(fileURLWithPath: padded))
        let (decoder, pcm) = try PCM.decodeFile(padded)
        XCTAssertEqual(decoder.lengthInSamples, pcm.count / decoder.format.bytesPerFrame)
        let (_, clean) = try PCM.decodeFile(path)
        XCTAssertTrue(pcm == clean, "the padding adds no audio")
    }
}
