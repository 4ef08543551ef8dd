import Foundation
import XCTest
@testable import XZAudio
import XZTestSupport

/// The FLAC, Vorbis and Opus decoders through the seam: the registry's choice by content, exact seeks,
/// growing sources, and damaged files.
final class FormatDecoderTests: XCTestCase {
    private var temp: TemporaryFolder!

    override func setUpWithError() throws {
        temp = try TemporaryFolder("format-decoders")
    }

    private func source(seconds: Double = 3, bits: Int = 16) throws -> String {
        let path = temp.path("src-\(bits).wav")
        try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-b", "\(bits)", path, "synth", "\(seconds)",
                                           "sine", "440", "sine", "587", "gain", "-8"])
        return path
    }

    private func encode(_ wav: String, _ suffix: String) throws -> String {
        let out = temp.path("song.\(suffix)")
        switch suffix {
        case "flac": try TestProcess.runChecked("flac", ["-s", "-f", "-o", out, wav])
        case "ogg": try TestProcess.runChecked("oggenc", ["-Q", "-q", "4", "-o", out, wav])
        case "opus": try TestProcess.runChecked("opusenc", ["--quiet", wav, out])
        default: throw TestFailure("no encoder for \(suffix)")
        }
        return out
    }

    private func readAll(_ decoder: AudioDecoder) throws -> [UInt8] {
        [UInt8](try PCM.decodeAll(decoder, chunk: 12_000))
    }


    func testRegistryChoosesByContent() throws {
        let wav = try source()
        for (suffix, plugin) in [("flac", "flac"), ("ogg", "vorbis"), ("opus", "opus")] {
            let file = try encode(wav, suffix)
            let misnamed = temp.path("misnamed-\(suffix).mp3")
            try FileManager.default.copyItem(atPath: file, toPath: misnamed)
            XCTAssertEqual(try AudioDecoders.pluginName(forFile: file), plugin)
            XCTAssertEqual(try AudioDecoders.pluginName(forFile: misnamed), plugin, "\(suffix) named .mp3")
        }
        let mp3 = temp.path("tone.mp3")
        try TestProcess.runChecked("lame", ["--quiet", wav, mp3])
        XCTAssertEqual(try AudioDecoders.pluginName(forFile: mp3), "mpg123")
    }

    func testAudioSuffixesAreEveryPluginsAndNothingElse() {
        for name in ["a/b.FLAC", "song.opus", "x.m4a", "/music/01 Intro.Mp3", "a.b.wav", "t.aiff"] {
            XCTAssertTrue(AudioDecoders.hasAudioSuffix(name), name)
        }
        for name in [".flac", "dir/.mp3", "notes.txt", "cover.jpg", "song.lrc", "a.flac/", "flac", "a.", "a.verylongsuffix"] {
            XCTAssertFalse(AudioDecoders.hasAudioSuffix(name), name)
        }
        XCTAssertEqual(AudioDecoders.suffixes.filter(AudioDecoders.hasAudioSuffix).count, 0, "bare suffixes are no names")
        XCTAssertTrue(AudioDecoders.suffixes.allSatisfy { AudioDecoders.hasAudioSuffix("x." + $0) })
    }

    func testFormatsLengthsAndLayouts() throws {
        let wav = try source()
        let flac = try AudioDecoders.open(path: try encode(wav, "flac"))
        XCTAssertEqual(flac.format, AudioFormat(sampleRate: 44_100, channels: 2, sample: .s16, bits: 16))
        XCTAssertEqual(flac.lengthInSamples, 3 * 44_100)
        let ogg = try AudioDecoders.open(path: try encode(wav, "ogg"))
        XCTAssertEqual(ogg.format.sample, .float32)
        XCTAssertEqual(ogg.format.mpdFormat, "44100:f:2")
        XCTAssertEqual(ogg.lengthInSamples, 3 * 44_100)
        let opus = try AudioDecoders.open(path: try encode(wav, "opus"))
        XCTAssertEqual(opus.format.sampleRate, 48_000)
        XCTAssertEqual(opus.lengthInSamples, 3 * 48_000)
        let deep = try AudioDecoders.open(path: try encode(try source(bits: 24), "flac"))
        XCTAssertEqual(deep.format.sample, .s32)
        XCTAssertEqual(deep.format.mpdFormat, "44100:24:2")
        XCTAssertEqual(try readAll(deep).count, 3 * 44_100 * 8)
    }

    /// A seek lands on the exact sample and gives what a straight decode gives there.
    func testSeeksAreSampleExact() throws {
        let wav = try source()
        for suffix in ["flac", "ogg", "opus"] {
            let file = try encode(wav, suffix)
            let whole = try readAll(try AudioDecoders.open(path: file))
            let decoder = try AudioDecoders.open(path: file)
            let frameBytes = decoder.format.bytesPerFrame
            for target in [100_000, 1_234, 0, 77_777, 120_000] {
                try decoder.seek(toSample: target)
                XCTAssertEqual(decoder.positionInSamples, target, suffix)
                let got = [UInt8](try PCM.read(decoder, samples: 4_000))
                let expected = Array(whole[(target * frameBytes)..<min(whole.count, (target + 4_000) * frameBytes)])
                if suffix == "flac" {
                    XCTAssertEqual(got, expected, "\(suffix) at \(target)")
                } else {
                    // Lossy decoders restart their state at a seek: the samples are near, not equal, and
                    // no shifted alignment fits better than the exact one.
                    XCTAssertEqual(got.count, expected.count, "\(suffix) at \(target)")
                    let a = Array(got.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }.dropFirst(2_000))
                    let b = expected.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
                    func worst(lag: Int) -> Float { zip(a, b.dropFirst(2_000 + lag * 2)).map { abs($0 - $1) }.max() ?? 0 }
                    XCTAssertLessThan(worst(lag: 0), 0.05, "\(suffix) at \(target)")
                    XCTAssertEqual((-2...2).min { worst(lag: $0) < worst(lag: $1) }, 0, "\(suffix) at \(target): exact place")
                }
            }
            try decoder.seek(toSample: 10_000_000)
            XCTAssertEqual([UInt8](try PCM.read(decoder, samples: 10)).count, 0, "\(suffix): past the end is the end")
        }
    }

    /// A growing download decodes the same bytes as the finished file, waiting for what has not arrived.
    func testGrowingSourceDecodesAsTheFile() throws {
        let wav = try source()
        for suffix in ["flac", "ogg", "opus"] {
            let file = try encode(wav, suffix)
            let expected = try readAll(try AudioDecoders.open(path: file))
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            let part = temp.path("growing.\(suffix).part")
            XCTAssertTrue(FileManager.default.createFile(atPath: part, contents: Data()))
            let growing = GrowingFile(path: part)
            growing.setTotal(Int64(bytes.count))
            let writer = Thread {
                let handle = FileHandle(forWritingAtPath: part)!
                var offset = 0
                while offset < bytes.count {
                    let n = min(4_096, bytes.count - offset)
                    handle.write(bytes.subdata(in: offset..<offset + n))
                    growing.didWrite(at: Int64(offset), count: n)
                    offset += n
                    usleep(200)
                }
                try? handle.close()
                growing.finish()
            }
            writer.start()
            let decoder = try AudioDecoders.open(.growing(growing, name: "http://example.test/song.\(suffix)", giveUp: { false }))
            XCTAssertEqual(try readAll(decoder), expected, suffix)
        }
    }

    func testDamagedFilesFailWithOneLineNamingTheFile() throws {
        let wav = try source()
        let flac = try encode(wav, "flac")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: flac))
        // Cut inside STREAMINFO: nothing to play.
        let header = temp.path("header.flac")
        try bytes.prefix(30).write(to: URL(fileURLWithPath: header))
        XCTAssertThrowsError(try AudioDecoders.open(path: header)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix(header + ":"), text)
            XCTAssertFalse(text.contains("\n"))
        }
        // Cut in the audio: what is there plays, and the damage is reported.
        let half = temp.path("half.flac")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: half))
        let decoder = try AudioDecoders.open(path: half)
        let pcm = try readAll(decoder)
        XCTAssertGreaterThan(pcm.count, 0)
        XCTAssertLessThan(pcm.count, 3 * 44_100 * 4)
        XCTAssertNotNil(decoder.damageReport)

        let junk = temp.path("junk.ogg")
        try Data((0..<9_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: junk))
        XCTAssertThrowsError(try AudioDecoders.open(path: junk)) { XCTAssertTrue("\($0)".hasPrefix(junk + ":")) }
        let empty = temp.path("empty.opus")
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        XCTAssertThrowsError(try AudioDecoders.open(path: empty)) { XCTAssertTrue("\($0)".contains("empty")) }
        // An Ogg Vorbis file whose identification header says 0 channels.
        var ogg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try encode(wav, "ogg"))))
        ogg[39] = 0
        let broken = temp.path("broken.ogg")
        try Data(ogg).write(to: URL(fileURLWithPath: broken))
        XCTAssertThrowsError(try AudioDecoders.open(path: broken)) { XCTAssertTrue("\($0)".hasPrefix(broken + ":"), "\($0)") }
    }
}
