import Foundation
import XCTest
@testable import XZAudio
import XZTestSupport

/// M4A (AAC, ALAC), WAV and AIFF made at test time with sox and ffmpeg, decoded through FFmpegDecoder and
/// checked against those tools' own decodes.
final class FFmpegDecoderTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("ffmpeg-decoder")
    }

    override func tearDown() {
        folder = nil  // removes the files
    }

    // MARK: AAC

    func testAACMatchesFFmpegAndHonoursTheEditList() throws {
        // 9 s at 44.1 kHz: the edit list says 396,900 samples, ffmpeg's own decode gives 397,312.
        let wav = try tone("aac-source", rate: 44100, channels: 2, bits: 16, frames: 396_900)
        let m4a = try ffmpeg(wav, "aac.m4a", ["-c:a", "aac", "-b:a", "128k"])
        let decoder = try FFmpegDecoder(path: m4a)
        XCTAssertEqual(decoder.format, AudioFormat(sampleRate: 44100, channels: 2, sample: .float32))
        XCTAssertEqual(decoder.lengthInSamples, 396_900)
        let pcm = try PCM.decodeAll(decoder)
        XCTAssertEqual(pcm.count / decoder.format.bytesPerFrame, 396_900)
        XCTAssertEqual(decoder.positionInSamples, 396_900)
        XCTAssertNil(decoder.damageReport)
        let kbps = try XCTUnwrap(decoder.bitrateKbps)
        XCTAssertTrue((100...160).contains(kbps), "bitrate \(kbps) kbps")

        let reference = PCM.int16s(try ffmpegS16(m4a))
        XCTAssertGreaterThan(reference.count / 2, 396_900, "ffmpeg leaves the end padding in")
        let ours = Self.s16(fromFloat: pcm)
        let result = PCM.compare(ours, reference)
        XCTAssertEqual(result.count, 396_900 * 2)
        XCTAssertGreaterThanOrEqual(result.psnr, 60, "PSNR \(result.psnr) dB, max difference \(result.maxDiff)")
        print("AAC against ffmpeg -f s16le: PSNR \(String(format: "%.1f", result.psnr)) dB, max difference \(result.maxDiff) LSB over \(result.count) samples")
    }

    func testITunSMPBTrimsWhenThereIsNoEditList() throws {
        let wav = try tone("smpb-source", rate: 44100, channels: 2, bits: 16, frames: 396_900)
        let edited = try ffmpeg(wav, "edit-list.m4a", ["-c:a", "aac", "-b:a", "128k"])
        let plain = try ffmpeg(wav, "no-edit-list.m4a", ["-c:a", "aac", "-b:a", "128k", "-use_editlist", "0"])
        // Without an edit list ffmpeg's encoder delay (1024 samples) stays in; iTunSMPB is all that says so.
        let untrimmed = try FFmpegDecoder(path: plain)
        XCTAssertEqual(untrimmed.lengthInSamples, 396_900 + 1024)
        let tagged = try withITunSMPB(plain, "itunsmpb.m4a", priming: 1024, padding: 412, length: 396_900)
        let decoder = try FFmpegDecoder(path: tagged)
        XCTAssertEqual(decoder.lengthInSamples, 396_900)
        let pcm = try PCM.decodeAll(decoder)
        PCM.assertSame(pcm, try PCM.decodeAll(FFmpegDecoder(path: edited)), "iTunSMPB against the edit list")
    }

    func testGaplessPairDecodesToTheWholeTone() throws {
        // Split where neither part is a whole number of milliseconds: FFmpeg writes its edit lists in ms.
        let whole = try tone("whole", rate: 44100, channels: 2, bits: 16, frames: 396_900)
        let first = folder.path("first.wav"), second = folder.path("second.wav")
        try TestProcess.runChecked("sox", [whole, first, "trim", "0", "200017s"])
        try TestProcess.runChecked("sox", [whole, second, "trim", "200017s"])
        var joined = Data()
        var lengths: [Int] = []
        for (index, part) in [first, second].enumerated() {
            let m4a = try ffmpeg(part, "part\(index + 1).m4a", ["-c:a", "aac", "-b:a", "192k"])
            let decoder = try FFmpegDecoder(path: m4a)
            let pcm = try PCM.decodeAll(decoder)
            XCTAssertEqual(decoder.lengthInSamples, pcm.count / decoder.format.bytesPerFrame)
            lengths.append(pcm.count / decoder.format.bytesPerFrame)
            joined.append(pcm)
        }
        XCTAssertEqual(lengths, [200_017, 196_883])
        XCTAssertEqual(joined.count / 8, 396_900)
        // Joined back to back the parts line up with the tone they were cut from (no gap, no overlap).
        let source = PCM.int16s(try soxRaw(whole, bits: 16))
        let result = PCM.compare(Self.s16(fromFloat: joined), source)
        XCTAssertGreaterThanOrEqual(result.psnr, 40, "PSNR \(result.psnr) dB against the source tone")
        print("Gapless AAC pair against the source tone: PSNR \(String(format: "%.1f", result.psnr)) dB over \(result.count) samples")
    }

    // MARK: Lossless

    func testALACIsExactAgainstTheSource() throws {
        for (bits, rate, frames) in [(16, 44100, 132_301), (24, 48000, 120_007)] {
            let wav = try tone("alac\(bits)", rate: rate, channels: 2, bits: bits, frames: frames)
            let m4a = try ffmpeg(wav, "alac\(bits).m4a", ["-c:a", "alac"])
            let decoder = try FFmpegDecoder(path: m4a)
            let sample: SampleFormat = bits == 16 ? .s16 : .s32
            XCTAssertEqual(decoder.format, AudioFormat(sampleRate: rate, channels: 2, sample: sample, bits: bits))
            XCTAssertEqual(decoder.format.mpdFormat, "\(rate):\(bits):2")
            XCTAssertEqual(decoder.lengthInSamples, frames)
            let pcm = try PCM.decodeAll(decoder)
            PCM.assertSame(pcm, try soxRaw(wav, bits: bits == 16 ? 16 : 32), "ALAC \(bits)-bit")
            XCTAssertNil(decoder.damageReport)
        }
    }

    func testWAVAndAIFFAreExactAgainstSox() throws {
        for (suffix, bits) in [("wav", 16), ("wav", 24), ("aiff", 16), ("aiff", 24)] {
            let file = folder.path("pcm\(bits).\(suffix)")
            try TestProcess.runChecked("sox", ["-r", "44100", "-c", "2", "-n", "-b", "\(bits)", file,
                                               "synth", "88203s", "sine", "440", "sine", "660", "vol", "0.5"])
            let decoder = try FFmpegDecoder(path: file)
            XCTAssertEqual(decoder.format, AudioFormat(sampleRate: 44100, channels: 2, sample: bits == 16 ? .s16 : .s32, bits: bits), file)
            XCTAssertEqual(decoder.lengthInSamples, 88203, file)
            PCM.assertSame(try PCM.decodeAll(decoder), try soxRaw(file, bits: bits == 16 ? 16 : 32), file)
            XCTAssertNil(decoder.damageReport, file)
            XCTAssertEqual(decoder.bitrateKbps, 44100 * 2 * bits / 1000 + (44100 * 2 * bits % 1000 >= 500 ? 1 : 0), file)
        }
    }

    func testOtherContainers() throws {
        let wav = try tone("other-source", rate: 44100, channels: 2, bits: 16, frames: 66_150)
        let source = try soxRaw(wav, bits: 16)
        // Lossless: exactly the source.
        let lossless: [(String, [String])] = [
            ("caf", ["-c:a", "alac"]), ("w64", ["-c:a", "pcm_s16le"]), ("wv", ["-c:a", "wavpack"]),
            ("tta", ["-c:a", "tta"]), ("mka", ["-c:a", "flac"]), ("oga", ["-c:a", "flac"]),
            ("au", ["-c:a", "pcm_s16be"]),
        ]
        for (suffix, options) in lossless {
            let path = try ffmpeg(wav, "other.\(suffix)", options)
            XCTAssertEqual(try AudioDecoders.pluginName(forFile: path), "ffmpeg", suffix)
            let decoder = try AudioDecoders.open(path: path)
            XCTAssertEqual(decoder.format, AudioFormat(sampleRate: 44100, channels: 2), suffix)
            PCM.assertSame(try PCM.decodeAll(decoder), source, suffix)
            XCTAssertEqual(decoder.lengthInSamples, 66_150, suffix)
            XCTAssertNil(decoder.damageReport, suffix)
        }
        // Lossy: what ffmpeg itself decodes.
        for (suffix, options) in [("aac", ["-c:a", "aac"]), ("wma", ["-c:a", "wmav2"]), ("ac3", ["-c:a", "ac3"])] {
            let path = try ffmpeg(wav, "other.\(suffix)", options)
            XCTAssertEqual(try AudioDecoders.pluginName(forFile: path), "ffmpeg", suffix)
            let decoder = try AudioDecoders.open(path: path)
            XCTAssertEqual(decoder.format, AudioFormat(sampleRate: 44100, channels: 2, sample: .float32), suffix)
            let pcm = try PCM.decodeAll(decoder)
            let reference = PCM.int16s(try ffmpegS16(path))
            XCTAssertEqual(pcm.count / 8, reference.count / 2, suffix)
            XCTAssertEqual(decoder.lengthInSamples, pcm.count / 8, suffix)
            let result = PCM.compare(Self.s16(fromFloat: pcm), reference)
            XCTAssertGreaterThanOrEqual(result.psnr, 90, suffix)
        }
        // 8-bit and float WAV: 8-bit widened to 16, float passed through.
        let wav8 = folder.path("u8.wav"), float = folder.path("float.wav")
        try TestProcess.runChecked("sox", [wav, "-b", "8", "-e", "unsigned-integer", wav8])
        try TestProcess.runChecked("sox", [wav, "-b", "32", "-e", "floating-point", float])
        let decoder8 = try FFmpegDecoder(path: wav8)
        XCTAssertEqual(decoder8.format, AudioFormat(sampleRate: 44100, channels: 2, sample: .s16))
        PCM.assertSame(try PCM.decodeAll(decoder8), try soxRaw(wav8, bits: 16), "8-bit WAV")
        let floatDecoder = try FFmpegDecoder(path: float)
        XCTAssertEqual(floatDecoder.format, AudioFormat(sampleRate: 44100, channels: 2, sample: .float32))
        let floats = try TestProcess.runChecked("sox", [float, "-t", "raw", "-"]).stdoutData
        PCM.assertSame(try PCM.decodeAll(floatDecoder), floats, "float WAV")
    }

    // MARK: Seeking

    func testSeekIsSampleExact() throws {
        let wav = try tone("seek-source", rate: 44100, channels: 2, bits: 16, frames: 441_000)
        let wav24 = try tone("seek24", rate: 48000, channels: 2, bits: 24, frames: 240_011)
        // The AAC decoder's noise generator (for bands coded as noise, PNS) runs on from the start of the
        // file, so after a jump only those bands differ; without PNS a seek is exact.
        let files = [
            ("AAC", try ffmpeg(wav, "seek.m4a", ["-c:a", "aac", "-b:a", "128k", "-aac_pns", "0"])),
            ("AAC with noise substitution", try ffmpeg(wav, "seek-pns.m4a", ["-c:a", "aac", "-b:a", "128k"])),
            ("ALAC", try ffmpeg(wav24, "seek-alac.m4a", ["-c:a", "alac"])),
            ("WAV", wav),
            ("ADTS AAC", try ffmpeg(wav, "seek.aac", ["-c:a", "aac", "-b:a", "128k", "-aac_pns", "0"])),
            ("Ogg FLAC", try ffmpeg(wav24, "seek.oga", ["-c:a", "flac"])),
            ("Matroska FLAC", try ffmpeg(wav24, "seek.mka", ["-c:a", "flac"])),
            ("WavPack", try ffmpeg(wav, "seek.wv", ["-c:a", "wavpack"])),
        ]
        var worstNoisePSNR = 99.0
        for (name, path) in files {
            let straightDecoder = try FFmpegDecoder(path: path)
            let straight = try PCM.decodeAll(straightDecoder)
            let frameBytes = straightDecoder.format.bytesPerFrame
            let length = straight.count / frameBytes
            let decoder = try FFmpegDecoder(path: path)
            // Backwards, forwards, short hops, frame edges, near both ends.
            let targets = [200_000, 1, 1023, 1024, 4095, 150_000, 60_000, 60_100, 8192, 0, length - 3000, 100_003, length - 1]
            for target in targets {
                try decoder.seek(toSample: target)
                XCTAssertEqual(decoder.positionInSamples, target, "\(name) position after seeking to \(target)")
                let got = try PCM.read(decoder, samples: 3000)
                let end = min(straight.count, (target + 3000) * frameBytes)
                let expected = straight.subdata(in: target * frameBytes..<end)
                if name == "AAC with noise substitution" {
                    XCTAssertEqual(got.count, expected.count, "\(name) at \(target)")
                    let psnr = PCM.compare(Self.s16(fromFloat: got), Self.s16(fromFloat: expected)).psnr
                    XCTAssertGreaterThanOrEqual(psnr, 60, "\(name) at \(target)")
                    worstNoisePSNR = min(worstNoisePSNR, psnr)
                } else if straightDecoder.format.sample == .float32 {
                    XCTAssertEqual(got.count, expected.count, "\(name) at \(target)")
                    XCTAssertLessThanOrEqual(Self.maxDifference(got, expected), 1e-6, "\(name) at \(target)")
                } else {
                    PCM.assertSame(got, expected, "\(name) at \(target)")
                }
            }
            try decoder.seek(toSample: length + 10_000)
            XCTAssertEqual(decoder.positionInSamples, length, name)
            XCTAssertEqual(try PCM.read(decoder, samples: 100).count, 0, name)
            try decoder.seek(toSample: 0)
            PCM.assertSame(try PCM.decodeAll(decoder), straight, "\(name) decoded again after seeking to 0")
        }
        print("AAC with noise substitution after seeks: PSNR at least \(String(format: "%.1f", worstNoisePSNR)) dB against the straight decode")
    }

    // MARK: Growing files

    func testGrowingFileDecodesLikeThePlainFile() throws {
        let wav = try tone("growing-source", rate: 44100, channels: 2, bits: 16, frames: 132_300)
        let m4a = try ffmpeg(wav, "growing.m4a", ["-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart"])
        let expected = try PCM.decodeAll(FFmpegDecoder(path: m4a))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: m4a))
        let target = folder.path("arriving.m4a")
        _ = FileManager.default.createFile(atPath: target, contents: nil)
        let growing = GrowingFile(path: target)
        growing.setTotal(Int64(bytes.count))
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: target) else { return growing.fail("cannot write") }
            var offset = 0
            while offset < bytes.count {
                let chunk = bytes.subdata(in: offset..<min(bytes.count, offset + 4096))
                handle.write(chunk)
                growing.didWrite(at: Int64(offset), count: chunk.count)
                offset += chunk.count
                Thread.sleep(forTimeInterval: 0.001)
            }
            try? handle.close()
            growing.finish()
        }
        writer.start()
        let decoder = try FFmpegDecoder(.growing(growing, name: "https://example.com/arriving.m4a", giveUp: { false }))
        let pcm = try PCM.decodeAll(decoder)
        PCM.assertSame(pcm, expected, "growing file")
        XCTAssertNotNil(decoder.sourceOffset)
    }

    // MARK: Bad input

    func testEmptyAndJunkFilesGiveOneLineErrorsNamingTheFile() throws {
        let empty = folder.path("empty.m4a")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        var random = SeededBytes(seed: 42)
        let junk = folder.path("junk.m4a")
        try Data(random.bytes(20_000)).write(to: URL(fileURLWithPath: junk))
        for path in [empty, junk] {
            for open in [{ _ = try FFmpegDecoder(path: path) }, { _ = try AudioDecoders.open(path: path) }] {
                XCTAssertThrowsError(try open()) { error in
                    Self.assertOneLine(error, naming: path)
                }
            }
        }
    }

    func testTruncatedFiles() throws {
        let wav = try tone("truncated-source", rate: 44100, channels: 2, bits: 16, frames: 396_900)
        // ffmpeg puts the index (moov) after the audio: cut short, nothing says where the samples are.
        let indexLast = try ffmpeg(wav, "index-last.m4a", ["-c:a", "aac", "-b:a", "128k"])
        let cutIndex = try cut(indexLast, keeping: 0.6)
        XCTAssertThrowsError(try FFmpegDecoder(path: cutIndex)) {
            Self.assertOneLine($0, naming: cutIndex)
            XCTAssertTrue("\($0)".contains("cut short"), "\($0)")
        }
        XCTAssertThrowsError(try AudioDecoders.open(path: cutIndex)) { Self.assertOneLine($0, naming: cutIndex) }

        // With the index first, the audio before the cut decodes and the loss is reported.
        let indexFirst = try ffmpeg(wav, "index-first.m4a", ["-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart"])
        let cutAudio = try cut(indexFirst, keeping: 0.5)
        let decoder = try FFmpegDecoder(path: cutAudio)
        let length = try XCTUnwrap(decoder.lengthInSamples)
        XCTAssertTrue((150_000..<250_000).contains(length), "length \(length)")
        let pcm = try PCM.decodeAll(decoder)
        XCTAssertEqual(pcm.count / decoder.format.bytesPerFrame, length)
        let report = try XCTUnwrap(decoder.damageReport)
        XCTAssertTrue(report.contains("cut short"), report)
        XCTAssertFalse(report.contains("\n"))
        print("cut-short M4A: \(length) of 396900 samples; \(report)")
        // What is there is what the whole file gives there.
        let whole = try PCM.decodeAll(FFmpegDecoder(path: indexFirst))
        XCTAssertLessThanOrEqual(Self.maxDifference(pcm, whole.prefix(pcm.count)), 1e-6)

        // A WAV cut mid-way: the samples before the cut, exactly, and a damage report.
        let cutWAV = try cut(wav, keeping: 0.5)
        let wavDecoder = try FFmpegDecoder(path: cutWAV)
        let wavPCM = try PCM.decodeAll(wavDecoder)
        let source = try soxRaw(wav, bits: 16)
        XCTAssertGreaterThan(wavPCM.count, source.count / 3)
        PCM.assertSame(wavPCM, source.prefix(wavPCM.count), "cut WAV")
        XCTAssertNotNil(wavDecoder.damageReport)
        print("cut-short WAV: \(wavPCM.count / 4) samples; \(wavDecoder.damageReport ?? "")")
        XCTAssertEqual(wavDecoder.lengthInSamples, wavPCM.count / 4)
    }

    // MARK: Registry

    func testRegistryChoosesFFmpegByContent() throws {
        let wav = try tone("registry", rate: 44100, channels: 2, bits: 16, frames: 44100)
        let aiff = folder.path("registry.aiff")
        try TestProcess.runChecked("sox", [wav, aiff])
        let m4a = try ffmpeg(wav, "registry.m4a", ["-c:a", "aac"])
        // PCM in WAV and AIFF needs no FFmpeg.
        for (path, plugin) in [(wav, "pcm"), (aiff, "pcm"), (m4a, "ffmpeg")] {
            XCTAssertEqual(try AudioDecoders.pluginName(forFile: path), plugin, path)
        }
        // Named as something else: content decides.
        let misnamed = folder.path("really-a-wav.mp3")
        try FileManager.default.copyItem(atPath: wav, toPath: misnamed)
        XCTAssertEqual(try AudioDecoders.pluginName(forFile: misnamed), "pcm")
        let decoder = try AudioDecoders.open(path: misnamed)
        XCTAssertTrue(decoder is PCMFileDecoder)
        PCM.assertSame(try PCM.decodeAll(decoder), try soxRaw(wav, bits: 16), "misnamed WAV")
        XCTAssertTrue(AudioDecoders.hasAudioSuffix("x.m4a") && AudioDecoders.hasAudioSuffix("x.AIFF"))
    }

    func testClaimsLeaveOtherFormatsAlone() throws {
        let wav = try tone("others", rate: 44100, channels: 2, bits: 16, frames: 44100)
        var others: [String] = []
        let mp3 = folder.path("other.mp3")
        try TestProcess.runChecked("lame", ["--quiet", "-b", "128", wav, mp3])
        others.append(mp3)
        let flac = folder.path("other.flac")
        try TestProcess.runChecked("sox", [wav, flac])
        others.append(flac)
        others.append(try ffmpeg(wav, "other.ogg", ["-c:a", "libvorbis"]))
        others.append(try ffmpeg(wav, "other.opus", ["-c:a", "libopus"]))
        for path in others {
            XCTAssertFalse(FFmpegDecoder.claims(try Self.head(path)), path)
        }
        let oggFLAC = try ffmpeg(wav, "other.oga", ["-c:a", "flac", "-f", "ogg"])
        XCTAssertTrue(FFmpegDecoder.claims(try Self.head(oggFLAC)), "Ogg FLAC")
        var random = SeededBytes(seed: 9)
        for _ in 0..<50 {
            XCTAssertFalse(FFmpegDecoder.claims(ContentHead(bytes: random.bytes(4096), afterID3: nil)))
        }
        XCTAssertFalse(FFmpegDecoder.claims(ContentHead(bytes: Array(String(repeating: "plain text, ", count: 300).utf8), afterID3: nil)))
    }

    // MARK: Helpers

    /// A two-tone sine (440 Hz left, 660 Hz right) of exactly `frames` sample frames, as a WAV.
    private func tone(_ name: String, rate: Int, channels: Int, bits: Int, frames: Int) throws -> String {
        let path = folder.path(name + ".wav")
        // The rate on the null input, so the length in samples is at that rate; -R: the same dither every run.
        try TestProcess.runChecked("sox", ["-R", "-r", "\(rate)", "-c", "\(channels)", "-n", "-b", "\(bits)", path,
                                           "synth", "\(frames)s", "sine", "440", "sine", "660", "vol", "0.5"])
        return path
    }

    private func ffmpeg(_ input: String, _ output: String, _ options: [String]) throws -> String {
        let path = folder.path(output)
        try TestProcess.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", input] + options + [path])
        return path
    }

    /// ffmpeg's own decode as 16-bit PCM.
    private func ffmpegS16(_ path: String) throws -> Data {
        try TestProcess.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "s16le", "-acodec", "pcm_s16le", "-"]).stdoutData
    }

    /// sox's decode as raw signed native-endian PCM of `bits` (32 puts 24-bit samples in the high bits).
    private func soxRaw(_ path: String, bits: Int) throws -> Data {
        try TestProcess.runChecked("sox", ["-D", path, "-t", "raw", "-e", "signed", "-b", "\(bits)", "-"]).stdoutData
    }

    /// A copy of `path` with only the first `fraction` of its bytes.
    private func cut(_ path: String, keeping fraction: Double) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let name = "cut-" + URL(fileURLWithPath: path).lastPathComponent
        let copy = folder.path(name)
        try bytes.prefix(Int(Double(bytes.count) * fraction)).write(to: URL(fileURLWithPath: copy))
        return copy
    }

    /// A copy of an MP4 whose `moov` is its last box, with iTunes' gapless note added to `moov/udta/meta/ilst`.
    private func withITunSMPB(_ path: String, _ name: String, priming: Int, padding: Int, length: Int) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            ID3Builder.bigEndian(8 + payload.count) + Array(type.utf8) + payload
        }
        func hex(_ value: Int, _ digits: Int) -> String {
            let text = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        let value = " 00000000 \(hex(priming, 8)) \(hex(padding, 8)) \(hex(length, 16)) 00000000 00000000"
        let item = box("----", box("mean", [0, 0, 0, 0] + Array("com.apple.iTunes".utf8))
                       + box("name", [0, 0, 0, 0] + Array("iTunSMPB".utf8))
                       + box("data", [0, 0, 0, 1, 0, 0, 0, 0] + Array(value.utf8)))
        func size(at offset: Int) -> Int {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        func find(_ type: String, from start: Int, to end: Int) throws -> Int {
            var offset = start
            while offset + 8 <= end {
                if Array(bytes[offset + 4..<offset + 8]) == Array(type.utf8) { return offset }
                offset += size(at: offset)
            }
            throw TestFailure("no \(type) box in \(path)")
        }
        let moov = try find("moov", from: 0, to: bytes.count)
        guard moov + size(at: moov) == bytes.count else { throw TestFailure("moov is not the last box of \(path)") }
        let udta = try find("udta", from: moov + 8, to: moov + size(at: moov))
        let meta = try find("meta", from: udta + 8, to: udta + size(at: udta))
        let ilst = try find("ilst", from: meta + 12, to: meta + size(at: meta))
        let insertAt = ilst + size(at: ilst)
        for offset in [moov, udta, meta, ilst] {
            bytes.replaceSubrange(offset..<offset + 4, with: ID3Builder.bigEndian(size(at: offset) + item.count))
        }
        bytes.insert(contentsOf: item, at: insertAt)
        let copy = folder.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: copy))
        return copy
    }



    /// The first bytes of a file as the registry reads them.
    private static func head(_ path: String) throws -> ContentHead {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let bytes = [UInt8](data.prefix(4096))
        let afterID3 = ContentHead.id3v2End(bytes).map { [UInt8](data.dropFirst(Int($0)).prefix(ContentHead.size)) }
        return ContentHead(bytes: bytes, afterID3: afterID3)
    }

    private static func floats(_ data: Data) -> [Float] {
        data.withUnsafeBytes { raw in
            (0..<raw.count / 4).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) }
        }
    }

    /// Float PCM as 16-bit: rounded to nearest, clipped.
    private static func s16(fromFloat data: Data) -> [Int16] {
        floats(data).map { Int16(clamping: Int(($0 * 32768).rounded())) }
    }

    /// The largest difference between two float PCM buffers over their common length.
    private static func maxDifference(_ a: Data, _ b: Data) -> Float {
        zip(floats(a), floats(b)).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    private static func assertOneLine(_ error: Error, naming path: String, file: StaticString = #filePath, line: UInt = #line) {
        let text = "\(error)"
        XCTAssertTrue(error is AudioError, text, file: file, line: line)
        XCTAssertTrue(text.contains(path), text, file: file, line: line)
        XCTAssertFalse(text.contains("\n"), text, file: file, line: line)
    }
}
