import Foundation
import XCTest
@testable import XZAudio
import XZTestSupport

/// WAV and AIFF read without FFmpeg: every sample format sox and ffmpeg write, bit-exact against their own
/// decodes; hostile headers refused in one line; and a host that scans and plays them never maps FFmpeg.
final class PCMFileDecoderTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("pcm-file-decoder")
    }

    override func tearDown() {
        folder = nil  // removes the files
    }

    // MARK: Sample formats

    func testEverySampleFormatIsExactAgainstSoxAndFFmpeg() throws {
        // 3 channels make sox write WAVE_FORMAT_EXTENSIBLE; an odd frame count ends on no block boundary.
        let cases: [(name: String, channels: Int, sox: [String], expected: Output)] = [
            ("u8.wav", 2, ["-b", "8", "-e", "unsigned-integer"], .s16(16)),
            ("s16.wav", 2, ["-b", "16"], .s16(16)),
            ("s24.wav", 2, ["-b", "24"], .s32(24)),
            ("s32.wav", 2, ["-b", "32", "-e", "signed-integer"], .s32(32)),
            ("f32.wav", 2, ["-b", "32", "-e", "floating-point"], .float),
            ("f64.wav", 2, ["-b", "64", "-e", "floating-point"], .float),
            ("s16-3ch.wav", 3, ["-b", "16"], .s16(16)),
            ("s24-3ch.wav", 3, ["-b", "24"], .s32(24)),
            ("f32-3ch.wav", 3, ["-b", "32", "-e", "floating-point"], .float),
            ("s8.aiff", 2, ["-b", "8"], .s16(16)),
            ("s16.aiff", 1, ["-b", "16"], .s16(16)),
            ("s24.aiff", 2, ["-b", "24"], .s32(24)),
            ("s32.aiff", 2, ["-b", "32"], .s32(32)),
            ("f32.aifc", 2, ["-b", "32", "-e", "floating-point"], .float),
            ("f64.aifc", 2, ["-b", "64", "-e", "floating-point"], .float),
        ]
        let frames = 44_101
        var extensible = 0
        for test in cases {
            let path = folder.path(test.name)
            // A tone of its own in each channel, so a channel out of place shows.
            let tones = ["440", "660", "1000"].prefix(test.channels).flatMap { ["sine", $0] }
            try TestProcess.runChecked("sox", ["-R", "-r", "44100", "-c", "\(test.channels)", "-n"] + test.sox
                                       + [path, "synth", "\(frames)s"] + tones + ["vol", "0.9"])
            if test.name.hasSuffix(".wav"), try Self.waveFormatTag(path) == 0xFFFE { extensible += 1 }
            try assertExact(path, channels: test.channels, frames: frames, expected: test.expected)
        }
        XCTAssertGreaterThanOrEqual(extensible, 3, "sox's multichannel and deep WAVs are WAVE_FORMAT_EXTENSIBLE")

        // What ffmpeg writes: little-endian AIFC ('sowt'), big-endian 24-bit AIFF, 64-bit float WAV.
        let source = folder.path("s16.wav")
        for (name, codec, expected) in [("sowt.aifc", "pcm_s16le", Output.s16(16)),
                                        ("ffmpeg24.aiff", "pcm_s24be", .s32(24)),
                                        ("ffmpeg-f64.wav", "pcm_f64le", .float),
                                        ("ffmpeg-s32.wav", "pcm_s32le", .s32(32))] {
            let path = folder.path(name)
            try TestProcess.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", source, "-c:a", codec, path])
            try assertExact(path, channels: 2, frames: frames, expected: expected)
        }
    }

    func testSeekIsSampleExact() throws {
        let path = folder.path("seek.wav")
        try TestProcess.runChecked("sox", ["-R", "-r", "48000", "-c", "2", "-n", "-b", "24", path,
                                           "synth", "240011s", "sine", "440", "sine", "660", "vol", "0.5"])
        let straight = try PCM.decodeAll(try AudioDecoders.open(path: path))
        let decoder = try AudioDecoders.open(path: path)
        XCTAssertTrue(decoder is PCMFileDecoder)
        for target in [200_000, 1, 1023, 150_000, 0, 240_011 - 3000, 240_010] {
            try decoder.seek(toSample: target)
            XCTAssertEqual(decoder.positionInSamples, target)
            let got = try PCM.read(decoder, samples: 3000)
            PCM.assertSame(got, straight.subdata(in: target * 8..<min(straight.count, (target + 3000) * 8)), "at \(target)")
        }
        try decoder.seek(toSample: Int.max)
        XCTAssertEqual(decoder.positionInSamples, 240_011)
        XCTAssertEqual(try PCM.read(decoder, samples: 10).count, 0)
        XCTAssertThrowsError(try decoder.seek(toSample: -1))
    }

    /// A WAV holding another codec is FFmpeg's, as before.
    func testOtherCodecsInTheseContainersGoToFFmpeg() throws {
        let source = folder.path("source.wav")
        try TestProcess.runChecked("sox", ["-r", "8000", "-c", "1", "-n", "-b", "16", source, "synth", "0.5", "sine", "440"])
        for (name, codec) in [("adpcm.wav", "adpcm_ms"), ("mulaw.wav", "pcm_mulaw")] {
            let path = folder.path(name)
            try TestProcess.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", source, "-c:a", codec, path])
            XCTAssertEqual(try AudioDecoders.pluginName(forFile: path), "ffmpeg", name)
            XCTAssertTrue(try AudioDecoders.open(path: path) is FFmpegDecoder, name)
            XCTAssertEqual(try AudioDecoders.probe(path: path).format.sampleRate, 8000, name)
        }
    }

    // MARK: Hostile headers

    func testHostileHeadersAreRefusedInOneLine() throws {
        let pcm = [UInt8](repeating: 0x11, count: 4000)
        func wave(tag: UInt16 = 1, channels: UInt16 = 2, rate: UInt32 = 44100, align: UInt16 = 4, bits: UInt16 = 16,
                  fmtSize: UInt32 = 16, dataSize: UInt32? = nil, before: [UInt8] = []) -> [UInt8] {
            var fmt = le16(tag) + le16(channels) + le32(rate) + le32(rate &* UInt32(align)) + le16(align) + le16(bits)
            fmt += [UInt8](repeating: 0, count: max(0, Int(min(fmtSize, 64)) - 16))
            let body = Array("WAVE".utf8) + before + Array("fmt ".utf8) + le32(fmtSize) + fmt
                + Array("data".utf8) + le32(dataSize ?? UInt32(pcm.count)) + pcm
            return Array("RIFF".utf8) + le32(UInt32(body.count)) + body
        }
        func aiff(channels: UInt16 = 2, rate: [UInt8] = [0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0], bits: UInt16 = 16) -> [UInt8] {
            let comm = Array("COMM".utf8) + be32(18) + be16(channels) + be32(1000) + be16(bits) + rate
            let ssnd = Array("SSND".utf8) + be32(UInt32(8 + pcm.count)) + be32(0) + be32(0) + pcm
            let body = Array("AIFF".utf8) + comm + ssnd
            return Array("FORM".utf8) + be32(UInt32(body.count)) + body
        }
        let junk = (0..<2000).flatMap { _ in Array("JUNK".utf8) + le32(0) }
        let hostile: [(String, [UInt8], AudioError)] = [
            ("truncated.wav", Array(wave().prefix(14)), .damaged),
            ("truncated-fmt.wav", Array(wave().prefix(30)), .damaged),
            ("fmt-of-4GB.wav", wave(fmtSize: 0xFFFF_FFF0), .damaged),
            ("huge-junk.wav", wave(before: Array("JUNK".utf8) + le32(0xFFFF_FF00)), .damaged),
            ("endless-chunks.wav", wave(before: junk), .damaged),
            ("zero-channels.wav", wave(channels: 0, align: 0), .damaged),
            ("many-channels.wav", wave(channels: 200, align: 400), .unsupportedFormat),
            ("zero-rate.wav", wave(rate: 0), .unsupportedFormat),
            ("absurd-rate.wav", wave(rate: 0xFFFF_FFFF), .unsupportedFormat),
            ("zero-bits.wav", wave(align: 0, bits: 0), .unsupportedFormat),
            ("48-bits.wav", wave(align: 12, bits: 48), .unsupportedFormat),
            ("wrong-align.wav", wave(align: 7), .damaged),
            ("cut-extensible.wav", wave(tag: 0xFFFE), .damaged),
            ("zero-channels.aiff", aiff(channels: 0), .damaged),
            ("absurd-rate.aiff", aiff(rate: [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]), .unsupportedFormat),
            ("negative-rate.aiff", aiff(rate: [0xC0, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0]), .unsupportedFormat),
            ("tiny-rate.aiff", aiff(rate: [0x3F, 0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0]), .unsupportedFormat),
            ("zero-bits.aiff", aiff(bits: 0), .unsupportedFormat),
        ]
        for (name, bytes, kind) in hostile {
            let path = folder.path(name)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(try AudioDecoders.pluginName(forFile: path), "pcm", name)
            for attempt in [{ _ = try AudioDecoders.open(path: path) }, { _ = try AudioDecoders.probe(path: path) }] {
                XCTAssertThrowsError(try attempt(), name) { error in
                    XCTAssertTrue(kind ~= error, "\(name): \(error)")
                    let line = "\(error)"
                    XCTAssertTrue(line.hasPrefix(path + ": ") && !line.contains("\n"), line)
                }
            }
        }
        // The sane ones these were made from play.
        for (name, bytes) in [("sane.wav", wave()), ("sane.aiff", aiff())] {
            let path = folder.path(name)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let decoder = try AudioDecoders.open(path: path)
            XCTAssertEqual(decoder.format, AudioFormat(sampleRate: 44100, channels: 2), name)
            XCTAssertEqual(try PCM.decodeAll(decoder).count, 4000, name)
        }
    }

    /// A data chunk that says more than the file holds plays what is there and says it is cut short.
    func testACutShortFilePlaysWhatItHolds() throws {
        let path = folder.path("whole.wav")
        try TestProcess.runChecked("sox", ["-R", "-r", "44100", "-c", "2", "-n", "-b", "16", path, "synth", "44100s", "sine", "440"])
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = folder.path("cut.wav")
        try whole.prefix(whole.count / 2 + 1).write(to: URL(fileURLWithPath: cut))
        let decoder = try AudioDecoders.open(path: cut)
        let pcm = try PCM.decodeAll(decoder)
        XCTAssertEqual(pcm.count % 4, 0)
        PCM.assertSame(pcm, try PCM.decodeAll(try AudioDecoders.open(path: path)).prefix(pcm.count), "cut WAV")
        XCTAssertEqual(decoder.lengthInSamples, pcm.count / 4)
        XCTAssertTrue(decoder.damageReport?.contains("cut short") == true, decoder.damageReport ?? "no report")
        XCTAssertEqual(try AudioDecoders.probe(path: cut).durationMs, pcm.count / 4 * 1000 / 44100)
    }

    // MARK: No FFmpeg

    /// A host on the null output scanning a folder of WAV and AIFF files and playing them maps none of FFmpeg's
    /// libraries, nor libao's plug-ins; an M4A scanned after them maps FFmpeg (so the look at the mappings
    /// sees FFmpeg when it is there).
    func testAHostPlayingWAVAndAIFFNeverMapsFFmpeg() throws {
        let music = folder.path("music")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        try TestProcess.runChecked("sox", ["-r", "44100", "-c", "2", "-n", "-b", "16", music + "/a.wav", "synth", "3", "sine", "440"])
        try TestProcess.runChecked("sox", ["-r", "48000", "-c", "2", "-n", "-b", "24", music + "/b.aiff", "synth", "3", "sine", "660"])
        let config = folder.path("config/xzmusic")
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try "music_directory = \(music)\n".write(toFile: config + "/config", atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["XZMUSIC_HOME"] = folder.path("library")
        environment["XZMUSIC_DEMO"] = ""
        environment["XDG_RUNTIME_DIR"] = folder.path("run")
        environment["XDG_CONFIG_HOME"] = folder.path("config")
        let binary = TestPaths.products.appendingPathComponent("xzmusic").path
        let host = try RunningProcess(binary, ["serve", "--port", "0", "--output", "null"], environment: environment)
        defer {
            host.signal(SIGTERM)
            _ = host.finish()
        }
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        let line = try XCTUnwrap(host.stdout.split(separator: "\n").first { $0.contains("hosting") })
        let port = try XCTUnwrap(line.split(separator: ":").last.map(String.init))
        func mpc(_ arguments: String...) throws -> String { try TestProcess.runChecked("mpc", ["-p", port] + arguments).stdout }
        func maps() throws -> String {
            // Read to its end by cat: Foundation reads a /proc file only as far as its first chunk.
            let maps = try TestProcess.runChecked("cat", ["/proc/\(host.process.processIdentifier)/maps"]).stdout
            XCTAssertTrue(maps.contains("[stack]"), "the whole of the host's mappings")
            return maps
        }
        func ffmpegMapped() throws -> Bool {
            let maps = try maps()
            return maps.contains("/libavformat.so") || maps.contains("/libavcodec.so")
        }
        XCTAssertTrue(try eventually(timeout: 20) { try mpc("listall").split(separator: "\n").count == 2 })
        for song in ["a.wav", "b.aiff"] {
            _ = try mpc("clear")
            _ = try mpc("add", song)
            _ = try mpc("play")
            XCTAssertTrue(try eventually(timeout: 10) {
                let status = try mpc("status")
                return status.contains("[playing]") && !status.contains("0:00/")
            }, song)
        }
        XCTAssertFalse(try ffmpegMapped(), "FFmpeg mapped after scanning and playing WAV and AIFF")
        // The null output discards audio without libao, whose plug-ins would bring in PulseAudio and X11.
        XCTAssertFalse(try maps().contains("/ao/plugins-4/"), "libao's plug-ins mapped for the null output")

        try TestProcess.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-i", music + "/a.wav", "-c:a", "aac", music + "/c.m4a"])
        _ = try mpc("update", "--wait")
        XCTAssertTrue(try eventually(timeout: 20) { try mpc("listall").split(separator: "\n").count == 3 })
        // Loading FFmpeg's 90 libraries may still be under way on the scan's thread.
        XCTAssertTrue(try eventually(timeout: 10) { try ffmpegMapped() }, "an M4A is FFmpeg's")
    }

    // MARK: Helpers

    /// Decodes `path` through the registry and compares it with sox's (integers) or ffmpeg's (float) decode.
    private func assertExact(_ path: String, channels: Int, frames: Int, expected: Output,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try AudioDecoders.pluginName(forFile: path), "pcm", path, file: file, line: line)
        let decoder = try AudioDecoders.open(path: path)
        let format: AudioFormat
        let reference: Data
        switch expected {
        case .s16(let bits):
            format = AudioFormat(sampleRate: 44100, channels: channels, sample: .s16, bits: bits)
            reference = try TestProcess.runChecked("sox", ["-D", path, "-t", "raw", "-e", "signed", "-b", "16", "-"]).stdoutData
        case .s32(let bits):
            format = AudioFormat(sampleRate: 44100, channels: channels, sample: .s32, bits: bits)
            reference = try TestProcess.runChecked("sox", ["-D", path, "-t", "raw", "-e", "signed", "-b", "32", "-"]).stdoutData
        case .float:
            format = AudioFormat(sampleRate: 44100, channels: channels, sample: .float32)
            reference = try TestProcess.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "f32le",
                                                              "-c:a", "pcm_f32le", "-"]).stdoutData
        }
        XCTAssertEqual(decoder.format, format, path, file: file, line: line)
        XCTAssertEqual(decoder.lengthInSamples, frames, path, file: file, line: line)
        XCTAssertEqual(reference.count, frames * format.bytesPerFrame, path, file: file, line: line)
        PCM.assertSame(try PCM.decodeAll(decoder), reference, path, file: file, line: line)
        XCTAssertNil(decoder.damageReport, path, file: file, line: line)
        let probed = try AudioDecoders.probe(path: path)
        XCTAssertEqual(probed.format, format, path, file: file, line: line)
        XCTAssertEqual(probed.durationMs, frames * 1000 / 44100, path, file: file, line: line)
    }

    /// The format tag of a WAV's fmt chunk (0xFFFE: WAVE_FORMAT_EXTENSIBLE), found by walking its chunks.
    private static func waveFormatTag(_ path: String) throws -> UInt16? {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var offset = 12
        while offset + 10 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            if Array(bytes[offset..<offset + 4]) == Array("fmt ".utf8) {
                return UInt16(bytes[offset + 8]) | UInt16(bytes[offset + 9]) << 8
            }
            offset += 8 + size + size % 2
        }
        return nil
    }
}

/// The output layout a test expects, with the bits MPD's `Format:` names.
private enum Output { case s16(Int), s32(Int), float }

private func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
private func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
private func be16(_ value: UInt16) -> [UInt8] { le16(value).reversed() }
private func be32(_ value: UInt32) -> [UInt8] { le32(value).reversed() }
