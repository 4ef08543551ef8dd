import Foundation
import XCTest
@testable import XZAudio
import XZTestSupport

/// Files made with sox + lame at test time, checked against the mpg123 command line.
final class GeneratedFileTests: XCTestCase {
    private var fixtures: Fixtures!

    override func setUpWithError() throws {
        fixtures = try Fixtures.shared()
    }

    func testPCMEqualsMpg123ByteForByte() throws {
        // (fixture, rate, channels, seconds of source audio, has a LAME tag with gapless info)
        let cases: [(String, Int, Int, Int, Bool)] = [
            ("cbr44", 44100, 2, 4, true), ("vbr44", 44100, 2, 4, true), ("noheader44", 44100, 2, 4, false),
            ("mono22", 22050, 1, 3, true), ("stereo48", 48000, 2, 3, true), ("mpeg25_8k", 8000, 1, 3, true),
            ("cjk", 44100, 2, 4, true), ("picture", 44100, 2, 4, false),
        ]
        for (name, rate, channels, seconds, gapless) in cases {
            let path = try fixtures.path(name)
            let (decoder, pcm) = try PCM.decodeFile(path)
            XCTAssertEqual(decoder.format, AudioFormat(sampleRate: rate, channels: channels), name)
            PCM.assertSame(pcm, try Tool.mpg123PCM(path), name)
            let samples = pcm.count / decoder.format.bytesPerFrame
            XCTAssertEqual(decoder.lengthInSamples, samples, name)
            XCTAssertEqual(decoder.positionInSamples, samples, name)
            XCTAssertNil(decoder.damageReport, name)
            if gapless {
                // Encoder delay and padding trimmed: exactly the samples sox generated.
                XCTAssertEqual(samples, rate * seconds, name)
            } else {
                XCTAssertGreaterThan(samples, rate * seconds, name)
            }
        }
    }

    func testVBRProbeDurationWithin50msOfDecodedLength() throws {
        for name in ["vbr44", "stereo48", "mpeg25_8k", "cbr44", "noheader44", "picture", "mono22"] {
            let path = try fixtures.path(name)
            let info = try AudioDecoders.probe(path: path)
            let (decoder, pcm) = try PCM.decodeFile(path)
            let realMs = Double(pcm.count / decoder.format.bytesPerFrame) * 1000 / Double(decoder.format.sampleRate)
            XCTAssertEqual(Double(try XCTUnwrap(info.durationMs, name)), realMs, accuracy: 50, name)
            XCTAssertEqual(info.format, decoder.format, name)
        }
    }

    func testUTF16CJKTagsFromLame() throws {
        let tags = try AudioDecoders.probe(path: try fixtures.path("cjk")).tags
        var expected = TrackTags(title: "晴天", artist: "周杰伦", album: "叶惠美", track: 3, year: 2003, lyrics: nil)
        expected.date = "2003"
        XCTAssertEqual(tags, expected)
        XCTAssertEqual(try AudioTags.read(path: try fixtures.path("cjk")), tags)
    }

    func testLargeEmbeddedPictureIsSkipped() throws {
        let path = try fixtures.path("picture")
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        XCTAssertGreaterThan(size, 400_000)
        XCTAssertEqual(try AudioDecoders.probe(path: path).tags.title, "With cover")
    }

    /// Frames lame does not write: Latin-1 frames holding GBK, genuine Latin-1, UTF-8, UTF-16 USLT, v2.4 TDRC.
    func testHandBuiltID3v2Tags() throws {
        let gbkTitle = try ID3Builder.encode("七里香", as: "GBK")
        let v23 = ID3Builder.tag(version: 3, frames: [
            ID3Builder.text("TIT2", .latin1, gbkTitle),
            ID3Builder.text("TPE1", .latin1, Array("Bj".utf8) + [0xF6] + Array("rk  ".utf8)),
            ID3Builder.text("TALB", .utf8, Array("叶惠美".utf8)),
            ID3Builder.text("TRCK", .latin1, Array("03/12".utf8)),
            ID3Builder.text("TYER", .latin1, Array("2004".utf8)),
            ID3Builder.lyrics("窗外的麻雀\r\n在电线杆上多嘴\r\n"),
        ])
        let path = try fixtures.variant(of: "cbr44", as: "hand-v23.mp3") { $0 = v23 + $0 }
        let tags = try AudioDecoders.probe(path: path).tags
        XCTAssertEqual(tags.title, "七里香")
        XCTAssertEqual(tags.artist, "Björk")
        XCTAssertEqual(tags.album, "叶惠美")
        XCTAssertEqual(tags.track, 3)
        XCTAssertEqual(tags.year, 2004)
        XCTAssertEqual(tags.lyrics, "窗外的麻雀\n在电线杆上多嘴")
        // The tag in front changes nothing in the audio.
        PCM.assertSame(try PCM.decodeFile(path).1, try Tool.mpg123PCM(try fixtures.path("cbr44")), "tagged copy")

        let v24 = ID3Builder.tag(version: 4, frames: [
            ID3Builder.text("TIT2", .utf16, ID3Builder.utf16("Title\u{1B}[31m with escape")),
            ID3Builder.text("TDRC", .utf8, Array("2008-05-01".utf8)),
            ID3Builder.text("TPE1", .utf8, Array("Artist A".utf8) + [0] + Array("Artist B".utf8)),
            // Windows-1252 curly apostrophe and dash in a Latin-1 frame, as many Windows taggers write.
            ID3Builder.text("TALB", .latin1, Array("Don".utf8) + [0x92] + Array("t Stop ".utf8) + [0x96] + Array(" Live".utf8)),
        ])
        let path24 = try fixtures.variant(of: "cbr44", as: "hand-v24.mp3") { $0 = v24 + $0 }
        let tags24 = try AudioDecoders.probe(path: path24).tags
        XCTAssertEqual(tags24.title, "Title[31m with escape", "terminal escapes are removed")
        XCTAssertEqual(tags24.year, 2008)
        XCTAssertEqual(tags24.date, "2008-05-01")
        // Every value of a v2.4 list, joined for display.
        XCTAssertEqual(tags24.artists, ["Artist A", "Artist B"])
        XCTAssertEqual(tags24.artist, "Artist A / Artist B")
        XCTAssertEqual(tags24.album, "Don\u{2019}t Stop \u{2013} Live")
    }

    func testID3v1FallbackWithGBKAndLatin1() throws {
        let v1 = ID3Builder.v1(title: try ID3Builder.encode("晴天", as: "GBK"),
                               artist: Array("Caf".utf8) + [0xE9] + Array(" Tacvba".utf8),
                               album: Array("   ".utf8), year: "1999", track: 7)
        let path = try fixtures.variant(of: "cbr44", as: "hand-v1.mp3") { $0 += v1 }
        let tags = try AudioDecoders.probe(path: path).tags
        var expected = TrackTags(title: "晴天", artist: "Café Tacvba", album: nil, track: 7, year: 1999, lyrics: nil)
        expected.date = "1999"  // the ID3v1 year is the date, as MPD reads it
        XCTAssertEqual(tags, expected)

        // ID3v2 wins; v1 only fills what v2 lacks.
        let v2 = ID3Builder.tag(version: 3, frames: [ID3Builder.text("TIT2", .latin1, Array("From v2".utf8))])
        let both = try fixtures.variant(of: "cbr44", as: "hand-v1v2.mp3") { $0 = v2 + $0 + v1 }
        let merged = try AudioDecoders.probe(path: both).tags
        XCTAssertEqual(merged.title, "From v2")
        XCTAssertEqual(merged.artist, "Café Tacvba")
        XCTAssertEqual(merged.track, 7)
    }

    // MARK: Seeking

    /// After seek(toSample: N) the PCM is the slice of a full decode starting at N: byte for byte for
    /// MPEG-1 and the CBR MPEG-2 file. In the low-bitrate MPEG-2.5 VBR file the bit reservoir reaches two
    /// frames back, and libmpg123's pre-roll then sometimes synthesises one frame fewer than a straight
    /// decode, which shifts its filter's rounding: there a sample may differ by 1 LSB (the position is
    /// still exact; neighbouring samples of the tone differ by thousands).
    func testSeekIsSampleExact() throws {
        let byteExact: Set<String> = ["vbr44", "cbr44", "mono22", "stereo48"]
        for name in ["vbr44", "cbr44", "mono22", "mpeg25_8k", "stereo48"] {
            let path = try fixtures.path(name)
            let (full, pcm) = try PCM.decodeFile(path)
            let bpf = full.format.bytesPerFrame
            let total = pcm.count / bpf
            let decoder = try MP3Decoder(path: path)
            var random = SeededBytes(seed: UInt64(total))
            let fixed = [0, 1, 575, 576, 1151, 1152, 1153, 1105, 4410, total / 3, total / 2 + 17, total - 1000, total - 1]
            let scattered = (0..<40).map { _ in Int(random.next() % UInt64(total)) }
            // Forwards, backwards and jumping around: short hops decode through, long ones reopen.
            let targets = fixed + fixed.reversed() + scattered
            for target in targets where target >= 0 && target < total {
                try decoder.seek(toSample: target)
                XCTAssertEqual(decoder.positionInSamples, target, "\(name) @\(target)")
                let count = min(3000, total - target)
                let got = try PCM.read(decoder, samples: count)
                let want = pcm.subdata(in: target * bpf..<(target + count) * bpf)
                if byteExact.contains(name) {
                    PCM.assertSame(got, want, "\(name) seek to \(target)")
                } else {
                    let diff = PCM.compare(PCM.int16s(got), PCM.int16s(want))
                    XCTAssertEqual(diff.count, count * full.format.channels, "\(name) seek to \(target)")
                    XCTAssertLessThanOrEqual(diff.maxDiff, 1, "\(name) seek to \(target)")
                }
                XCTAssertEqual(decoder.positionInSamples, target + count, "\(name) @\(target)")
            }
            // At or past the end: nothing more to read.
            try decoder.seek(toSample: total)
            XCTAssertEqual(try PCM.read(decoder, samples: 100).count, 0, name)
            try decoder.seek(toSample: total + 10_000)
            XCTAssertEqual(try PCM.read(decoder, samples: 100).count, 0, name)
            // Back to the start after hitting the end gives the whole track again.
            try decoder.seek(toSample: 0)
            PCM.assertSame(try PCM.decodeAll(decoder), pcm, "\(name) after rewind")
            XCTAssertThrowsError(try decoder.seek(toSample: -1)) { XCTAssertTrue($0 is AudioError) }
        }
    }

    // MARK: Reads

    func testOddBufferSizesYieldWholeSampleFrames() throws {
        let path = try fixtures.path("cbr44")
        let (_, pcm) = try PCM.decodeFile(path)
        let decoder = try MP3Decoder(path: path)
        var out = Data()
        var sizes = [4, 7, 1001, 4608, 13, 65536]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let size = sizes.removeFirst()
            sizes.append(size)
            let n = try buffer.withUnsafeMutableBytes {
                try decoder.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<size]))
            }
            if n == 0 { break }
            XCTAssertEqual(n % 4, 0)
            XCTAssertLessThanOrEqual(n, size)
            out.append(contentsOf: buffer[0..<n])
        }
        PCM.assertSame(out, pcm, "odd buffer sizes")
        // Less than one sample frame cannot make progress: an error, not a silent 0 (end of track).
        try decoder.seek(toSample: 0)
        var tiny = [UInt8](repeating: 0, count: 3)
        XCTAssertThrowsError(try tiny.withUnsafeMutableBytes { try decoder.read(into: $0) }) { XCTAssertTrue($0 is AudioError) }
        var empty: [UInt8] = []
        XCTAssertEqual(try empty.withUnsafeMutableBytes { try decoder.read(into: $0) }, 0)
    }
}
