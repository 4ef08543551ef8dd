import Foundation
import XCTest
import XZTestSupport

/// Every format through `play --output raw:` against its own reference decoder, gapless pairs,
/// ReplayGain in each mode, and broken files, on fixtures made here with sox and the formats' encoders.
final class FormatPlaybackTests: LibraryProcessTestCase {
    override func setUpWithError() throws {
        temp = try TemporaryFolder("formats")
        try FileManager.default.createDirectory(atPath: temp.path("config/xzmusic"), withIntermediateDirectories: true)
    }

    override var environment: [String: String] {
        var env = super.environment
        env["XZMUSIC_DEMO"] = ""
        return env
    }

    // MARK: Fixtures

    /// Three seconds of two tones and a little noise at 44.1 kHz stereo, 16-bit (`bits` 24 for 24-bit).
    private func source(_ name: String = "src.wav", seconds: Double = 3, bits: Int = 16, rate: Int = 44_100) throws -> String {
        let path = temp.path(name)
        try TestProcess.runChecked("sox", ["-n", "-r", "\(rate)", "-c", "2", "-b", "\(bits)", path, "synth", "\(seconds)",
                                           "sine", "440", "sine", "660", "gain", "-8"])
        return path
    }

    private func encode(_ wav: String, as suffix: String, name: String? = nil) throws -> String {
        let out = temp.path((name ?? URL(fileURLWithPath: wav).deletingPathExtension().lastPathComponent) + "." + suffix)
        switch suffix {
        case "flac": try TestProcess.runChecked("flac", ["-s", "-f", "-o", out, wav])
        case "ogg": try TestProcess.runChecked("oggenc", ["-Q", "-q", "5", "-o", out, wav])
        case "opus": try TestProcess.runChecked("opusenc", ["--quiet", wav, out])
        case "m4a": try TestProcess.runChecked("ffmpeg", ["-v", "quiet", "-y", "-i", wav, "-c:a", "aac", "-b:a", "192k", out])
        case "alac.m4a": try TestProcess.runChecked("ffmpeg", ["-v", "quiet", "-y", "-i", wav, "-c:a", "alac", out])
        case "mp3": try TestProcess.runChecked("lame", ["--quiet", "-V", "2", wav, out])
        case "wav": try FileManager.default.copyItem(atPath: wav, toPath: out)
        case "aiff": try TestProcess.runChecked("sox", [wav, out])
        default: throw TestFailure("no encoder for \(suffix)")
        }
        return out
    }

    /// What `xzmusic play FILES --output raw:` writes, as s16 samples.
    private func render(_ files: [String], options: [String] = []) throws -> [Int16] {
        let raw = temp.path("out-\(UUID().uuidString).raw")
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let result = try xzmusic(["play"] + files + ["--output", "raw:\(raw)"] + options)
        XCTAssertEqual(result.status, 0, result.stderr)
        return samples(try Data(contentsOf: URL(fileURLWithPath: raw)))
    }

    private func samples(_ data: Data) -> [Int16] {
        data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    private func reference(_ tool: String, _ arguments: [String], output: String) throws -> [Int16] {
        try TestProcess.runChecked(tool, arguments)
        defer { try? FileManager.default.removeItem(atPath: output) }
        return samples(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// PSNR in dB of `ours` against `theirs` over their common length.
    private func psnr(_ ours: [Int16], _ theirs: [Int16]) -> Double {
        let n = min(ours.count, theirs.count)
        var sum = 0.0
        for i in 0..<n {
            let d = Double(ours[i]) - Double(theirs[i])
            sum += d * d
        }
        guard sum > 0 else { return .infinity }
        return 10 * log10(32767.0 * 32767.0 / (sum / Double(n)))
    }

    private func maxDifference(_ a: [Int16], _ b: [Int16]) -> Int {
        zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    // MARK: Against the reference decoders

    func testFLACIsBitExactWithFlacDecoder() throws {
        let flac = try encode(try source(), as: "flac")
        let ours = try render([flac])
        let ref = temp.path("ref.raw")
        let theirs = try reference("flac", ["-d", "-s", "-f", "--force-raw-format", "--endian=little", "--sign=signed",
                                            "-o", ref, flac], output: ref)
        XCTAssertEqual(ours.count, 3 * 44_100 * 2)
        XCTAssertEqual(ours, theirs)
    }

    func testTwentyFourBitFLACIsRoundedOnceTo16Bits() throws {
        let flac = try encode(try source("src24.wav", bits: 24), as: "flac")
        let ours = try render([flac])
        let ref = temp.path("ref24.raw")
        try TestProcess.runChecked("flac", ["-d", "-s", "-f", "--force-raw-format", "--endian=little", "--sign=signed",
                                            "-o", ref, flac])
        defer { try? FileManager.default.removeItem(atPath: ref) }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ref)))
        var expected: [Int16] = []
        for i in stride(from: 0, to: bytes.count - 2, by: 3) {
            let value = Int32(bitPattern: UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 24) >> 8
            expected.append(Int16(clamping: Int((Double(value) / 256).rounded(.toNearestOrEven))))
        }
        XCTAssertEqual(ours.count, expected.count)
        XCTAssertLessThanOrEqual(maxDifference(ours, expected), 1)
    }

    func testVorbisIsWithinTwoLSBOfOggdec() throws {
        let ogg = try encode(try source(), as: "ogg")
        let ours = try render([ogg])
        let ref = temp.path("ref.raw")
        let theirs = try reference("oggdec", ["-Q", "-R", "-b", "16", "-e", "0", "-s", "1", "-o", ref, ogg], output: ref)
        XCTAssertEqual(ours.count, theirs.count)
        XCTAssertEqual(ours.count, 3 * 44_100 * 2, "granule positions give the source's exact length")
        XCTAssertLessThanOrEqual(maxDifference(ours, theirs), 2)
    }

    func testOpusMatchesOpusdecAt48kHz() throws {
        let opus = try encode(try source(), as: "opus")
        let ours = try render([opus])
        let ref = temp.path("ref.raw")
        let theirs = try reference("opusdec", ["--quiet", "--rate", "48000", "--no-dither", opus, ref], output: ref)
        XCTAssertEqual(ours.count, 3 * 48_000 * 2, "pre-skip and end trim give the source's length at 48 kHz")
        XCTAssertEqual(ours.count, theirs.count)
        XCTAssertGreaterThanOrEqual(psnr(ours, theirs), 80)
    }

    func testAACHonoursTheEditListAndMatchesFFmpeg() throws {
        let m4a = try encode(try source(), as: "m4a")
        let ours = try render([m4a])
        let ref = temp.path("ref.raw")
        let theirs = try reference("ffmpeg", ["-v", "quiet", "-y", "-i", m4a, "-f", "s16le", "-acodec", "pcm_s16le", ref],
                                   output: ref)
        XCTAssertEqual(ours.count, 3 * 44_100 * 2, "priming and padding trimmed: the source's exact length")
        XCTAssertGreaterThan(theirs.count, ours.count, "ffmpeg's CLI keeps the end padding")
        XCTAssertGreaterThanOrEqual(psnr(ours, theirs), 60)
    }

    func testLosslessContainersAreExact() throws {
        let wav = try source()
        let expected = samples(try TestProcess.runChecked("sox", [wav, "-t", "raw", "-"]).stdoutData)
        for suffix in ["alac.m4a", "wav", "aiff"] {
            let file = try encode(wav, as: suffix, name: "lossless")
            XCTAssertEqual(try render([file]), expected, suffix)
        }
    }

    /// A file is decoded by what it holds, not by its name: an Opus file named .mp3 is never fed to
    /// libmpg123 (which would find false frame syncs in the Ogg pages and play noise).
    func testContentChoosesTheDecoderWhateverTheName() throws {
        let opus = try encode(try source(), as: "opus")
        let misnamed = temp.path("really-opus.mp3")
        try FileManager.default.copyItem(atPath: opus, toPath: misnamed)
        let ref = temp.path("ref.raw")
        let theirs = try reference("opusdec", ["--quiet", "--rate", "48000", "--no-dither", opus, ref], output: ref)
        XCTAssertGreaterThanOrEqual(psnr(try render([misnamed]), theirs), 80)
    }

    // MARK: Gapless

    /// One continuous tone cut in two at a sample, each half encoded alone, played back to back: the whole
    /// tone's frame count, and no step at the join.
    func testGaplessPairsJoinSampleExactly() throws {
        let tone = temp.path("tone.wav")
        try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", tone, "synth", "4", "sine", "330", "gain", "-6"])
        let first = temp.path("first.wav")
        let second = temp.path("second.wav")
        let cut = 77_777
        try TestProcess.runChecked("sox", [tone, first, "trim", "0", "\(cut)s"])
        try TestProcess.runChecked("sox", [tone, second, "trim", "\(cut)s"])
        let whole = samples(try TestProcess.runChecked("sox", [tone, "-t", "raw", "-"]).stdoutData)
        // Worst step allowed around the join, against the tone's own neighbouring samples.
        let lossyLimit = 2_000
        for suffix in ["flac", "wav", "alac.m4a", "ogg", "opus", "m4a", "mp3"] {
            let a = try encode(first, as: suffix, name: "first-part")
            let b = try encode(second, as: suffix, name: "second-part")
            let ours = try render([a, b])
            let rate = suffix == "opus" ? 48_000 : 44_100
            if suffix == "opus" {
                // opusenc resamples each half to 48 kHz on its own, rounding each length: the join holds
                // exactly what opusdec gives for the two halves.
                var halves = 0
                for part in [a, b] {
                    let ref = temp.path("half.raw")
                    halves += try reference("opusdec", ["--quiet", "--rate", "48000", "--no-dither", part, ref], output: ref).count
                }
                XCTAssertEqual(ours.count, halves, "opus: the two halves' frame counts")
                XCTAssertLessThanOrEqual(abs(ours.count - 4 * rate * 2), 2 * 2, "opus: the whole tone's length")
            } else {
                XCTAssertEqual(ours.count, 4 * rate * 2, "\(suffix): the whole tone's frame count")
            }
            if rate == 44_100 {
                let window = (cut - 32) * 2 ..< (cut + 32) * 2
                let worst = maxDifference(Array(ours[window]), Array(whole[window]))
                if ["flac", "wav", "alac.m4a"].contains(suffix) {
                    XCTAssertEqual(worst, 0, "\(suffix): lossless join")
                } else {
                    XCTAssertLessThan(worst, lossyLimit, "\(suffix): no step at the join")
                }
            }
        }
    }

    // MARK: ReplayGain

    private func taggedFLAC(_ name: String, tags: [String]) throws -> String {
        let flac = try encode(try source(name + ".wav"), as: "flac", name: name)
        if !tags.isEmpty { try TestProcess.runChecked("metaflac", tags.map { "--set-tag=\($0)" } + [flac]) }
        return flac
    }

    private func assertScaled(_ ours: [Int16], _ plain: [Int16], by factor: Double, _ message: String,
                              file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(ours.count, plain.count, message, file: file, line: line)
        let worst = zip(ours, plain).map { abs(Double($0) - (Double($1) * factor).rounded()) }.max() ?? 0
        XCTAssertLessThanOrEqual(worst, 1, message, file: file, line: line)
    }

    func testReplayGainModesApplyTheTagsGains() throws {
        let flac = try taggedFLAC("gained", tags: ["REPLAYGAIN_TRACK_GAIN=-6.00 dB", "REPLAYGAIN_TRACK_PEAK=0.5",
                                                   "REPLAYGAIN_ALBUM_GAIN=-12.00 dB", "REPLAYGAIN_ALBUM_PEAK=0.6"])
        let plain = try render([flac])
        XCTAssertEqual(try render([flac], options: ["--replay-gain", "off"]), plain)
        assertScaled(try render([flac], options: ["--replay-gain", "track"]), plain, by: pow(10, -6.0 / 20), "track")
        assertScaled(try render([flac], options: ["--replay-gain", "album"]), plain, by: pow(10, -12.0 / 20), "album")
        // Not in random mode, auto is the album gain.
        assertScaled(try render([flac], options: ["--replay-gain", "auto"]), plain, by: pow(10, -12.0 / 20), "auto")
        // The preamp from the config adds to the tag's gain.
        try "replaygain_preamp = 3\n".write(toFile: temp.path("config/xzmusic/config"), atomically: true, encoding: .utf8)
        assertScaled(try render([flac], options: ["--replay-gain", "track"]), plain, by: pow(10, -3.0 / 20), "preamp")
    }

    func testReplayGainNeverPushesThePeakPastFullScale() throws {
        let flac = try taggedFLAC("loud", tags: ["REPLAYGAIN_TRACK_GAIN=+12.00 dB", "REPLAYGAIN_TRACK_PEAK=0.8"])
        let plain = try render([flac])
        assertScaled(try render([flac], options: ["--replay-gain", "track"]), plain, by: 1 / 0.8, "limited to the peak")
        try "replaygain_limit = no\n".write(toFile: temp.path("config/xzmusic/config"), atomically: true, encoding: .utf8)
        let unlimited = try render([flac], options: ["--replay-gain", "track"])
        XCTAssertGreaterThan(unlimited.map { abs(Int($0)) }.max() ?? 0, Int(Double(plain.map { abs(Int($0)) }.max() ?? 0) * 1.3))
    }

    func testSongsWithoutGainTakeTheMissingPreamp() throws {
        let flac = try taggedFLAC("untagged", tags: [])
        let plain = try render([flac])
        try "replaygain_missing_preamp = -6\n".write(toFile: temp.path("config/xzmusic/config"), atomically: true, encoding: .utf8)
        assertScaled(try render([flac], options: ["--replay-gain", "track"]), plain, by: pow(10, -6.0 / 20), "missing preamp")
        XCTAssertEqual(try render([flac], options: ["--replay-gain", "off"]), plain)
    }

    func testOpusR128GainIsMovedToReplayGainsReference() throws {
        let opus = try encode(try source(), as: "opus")
        let plain = try render([opus])
        let tagged = temp.path("r128.opus")
        // -3 dB in Q7.8 against -23 LUFS; ReplayGain's reference is 5 dB louder: +2 dB.
        try TestProcess.runChecked("ffmpeg", ["-v", "quiet", "-y", "-i", opus, "-c", "copy",
                                              "-metadata", "R128_TRACK_GAIN=-768", tagged])
        let ours = try render([tagged], options: ["--replay-gain", "track"])
        assertScaled(ours, plain, by: pow(10, 2.0 / 20), "R128 + 5 dB")
    }

    // MARK: Bad input

    func testBrokenFilesFailWithOneLineEachAndTheQueueGoesOn() throws {
        let wav = try source()
        let good = try encode(wav, as: "flac", name: "good")
        let flac = try encode(wav, as: "flac", name: "whole")
        let truncated = temp.path("truncated.flac")
        try Data(try Data(contentsOf: URL(fileURLWithPath: flac)).prefix(60)).write(to: URL(fileURLWithPath: truncated))
        let junk = temp.path("junk.ogg")
        try Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: URL(fileURLWithPath: junk))
        let empty = temp.path("empty.m4a")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let ogg = try encode(wav, as: "ogg", name: "header")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ogg)))
        // Inside the first page's identification header: the channel count and rate become zero.
        for i in 39..<44 { bytes[i] = 0 }
        let brokenHeader = temp.path("broken-header.ogg")
        try Data(bytes).write(to: URL(fileURLWithPath: brokenHeader))

        let bad = [truncated, junk, empty, brokenHeader]
        let raw = temp.path("out.raw")
        let result = try xzmusic(["play"] + bad + [good, "--output", "raw:\(raw)", "--json"])
        XCTAssertEqual(result.status, 1, "a failed track fails the run")
        let events = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let errors = events.filter { $0["event"] as? String == "error" }
        XCTAssertEqual(errors.count, bad.count, result.stdout)
        for (error, file) in zip(errors, bad) {
            let message = try XCTUnwrap(error["message"] as? String)
            XCTAssertFalse(message.contains("\n"))
            XCTAssertEqual(error["file"] as? String, file, message)
        }
        let completed = events.filter { $0["event"] as? String == "ended" && $0["reason"] as? String == "completed" }
        XCTAssertEqual(completed.count, 1, "the good file still plays")
        let ref = temp.path("ref.raw")
        let theirs = try reference("flac", ["-d", "-s", "-f", "--force-raw-format", "--endian=little", "--sign=signed",
                                            "-o", ref, good], output: ref)
        XCTAssertEqual(samples(try Data(contentsOf: URL(fileURLWithPath: raw))), theirs, "nothing of the broken files came out")
    }

    func testImportTakesEveryFormatAndReportsBrokenFilesByPath() throws {
        let folder = temp.path("music")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let wav = try source()
        for suffix in ["flac", "ogg", "opus", "m4a", "mp3", "wav"] {
            let file = try encode(wav, as: suffix, name: "song-\(suffix.replacingOccurrences(of: ".", with: "-"))")
            try FileManager.default.moveItem(atPath: file, toPath: folder + "/" + URL(fileURLWithPath: file).lastPathComponent)
        }
        try Data(repeating: 0x41, count: 5000).write(to: URL(fileURLWithPath: folder + "/junk.ogg"))
        try "not audio".write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
        let result = try xzmusic(["import", folder])
        XCTAssertTrue(result.stderr.contains(folder + "/junk.ogg") || result.stdout.contains(folder + "/junk.ogg"),
                      result.stdout + result.stderr)
        XCTAssertFalse((result.stdout + result.stderr).contains("notes.txt"), "files that are not audio are skipped quietly")
        let listing = try xzmusic(["search", "song", "--json"])
        XCTAssertEqual(listing.status, 0, listing.stderr)
        for suffix in ["flac", "ogg", "opus", "m4a", "mp3", "wav"] {
            XCTAssertTrue(listing.stdout.contains("song-\(suffix)"), "\(suffix) imported: \(listing.stdout)")
        }
        XCTAssertFalse(listing.stdout.contains("junk"))
    }
}
