import Foundation
import XCTest
@testable import XZAudio
import XZTestSupport

/// EBU R128 measurements of 1 kHz sines made at test time, in every sample layout a decoder hands out,
/// against FFmpeg's ebur128 filter on the same files.
final class LoudnessMeterTests: XCTestCase {
    private var temp: TemporaryFolder!

    override func setUpWithError() throws {
        temp = try TemporaryFolder("loudness")
    }

    override func tearDown() {
        temp = nil
    }

    /// A 10 s 1 kHz sine, `level` dBFS peak, as a WAV of `bits` bits.
    private func sine(_ name: String, level: Double, channels: Int = 2, rate: Int = 44100, bits: Int = 16) throws -> String {
        let wav = temp.path(name + ".wav")
        try TestProcess.runChecked("sox", ["-n", "-r", "\(rate)", "-b", "\(bits)", "-c", "\(channels)", wav,
                                           "synth", "10", "sine", "1000", "vol", "\(level)dB"])
        return wav
    }

    private func flac(_ wav: String) throws -> String {
        let path = wav.replacingOccurrences(of: ".wav", with: ".flac")
        try TestProcess.runChecked("flac", ["--silent", "-f", "-o", path, wav])
        return path
    }

    private func opus(_ wav: String) throws -> String {
        let path = wav.replacingOccurrences(of: ".wav", with: ".opus")
        try TestProcess.runChecked("opusenc", ["--quiet", "--bitrate", "128", wav, path])
        return path
    }

    private func mp3(_ wav: String) throws -> String {
        let path = wav.replacingOccurrences(of: ".wav", with: ".mp3")
        try TestProcess.runChecked("lame", ["--quiet", "-b", "192", wav, path])
        return path
    }

    /// What FFmpeg's ebur128 filter reports: integrated loudness (LUFS) and sample peak (dBFS), to 0.1.
    private func ffmpegLoudness(_ path: String, dualMono: Bool = false) throws -> (lufs: Double, peakDB: Double) {
        let filter = "ebur128=peak=sample" + (dualMono ? ":dualmono=true" : "")
        let output = try TestProcess.runChecked("ffmpeg", ["-hide_banner", "-nostats", "-i", path, "-af", filter,
                                                           "-f", "null", "-"]).stderr
        func last(_ label: String) throws -> Double {
            let line = output.split(separator: "\n").last { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }
            let number = line?.split(separator: " ").dropFirst().first.flatMap { Double($0) }
            guard let number else { throw TestFailure("no \(label) in ffmpeg's output for \(path)") }
            return number
        }
        return (try last("I:"), try last("Peak:"))
    }

    private func assertMatchesFFmpeg(_ path: String, format: SampleFormat, peakTolerance: Double,
                                     dualMono: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws -> LoudnessResult {
        let meter = try LoudnessMeter.measure(path: path)
        XCTAssertEqual(meter.format.sample, format, "decode path of \(path)", file: file, line: line)
        let result = try meter.result()
        let reference = try ffmpegLoudness(path, dualMono: dualMono)
        XCTAssertEqual(result.integratedLUFS, reference.lufs, accuracy: 0.06, path, file: file, line: line)
        XCTAssertEqual(20 * log10(result.samplePeak), reference.peakDB, accuracy: peakTolerance, path, file: file, line: line)
        XCTAssertEqual(result.gainDB, -18 - result.integratedLUFS, accuracy: 1e-9, file: file, line: line)
        return result
    }

    func testStereoSineAtMinus20dBFSIsMinus20LUFSInEveryLayout() throws {
        let wav16 = try sine("stereo16", level: -20)
        // (file, layout its decoder hands out, peak tolerance in dB, loudness tolerance: lame's encoding of a
        // pure sine comes out about 0.25 dB quieter, as FFmpeg measures it too)
        let cases: [(String, SampleFormat, Double, Double)] = [
            (try flac(wav16), .s16, 0.06, 0.05),
            (try flac(try sine("stereo24", level: -20, rate: 48000, bits: 24)), .s32, 0.06, 0.05),
            (try opus(wav16), .float32, 0.2, 0.1),
            (try mp3(wav16), .s16, 0.2, 0.35),
        ]
        for (path, format, peakTolerance, tolerance) in cases {
            let result = try assertMatchesFFmpeg(path, format: format, peakTolerance: peakTolerance)
            // EBU Tech 3341: a stereo 1 kHz sine at -20 dBFS measures -20 LUFS; ReplayGain 2.0 raises it 2 dB.
            XCTAssertEqual(result.integratedLUFS, -20, accuracy: tolerance, path)
            XCTAssertEqual(result.gainDB, 2, accuracy: tolerance, path)
            XCTAssertEqual(result.samplePeak, 0.1, accuracy: 0.003, path)
        }
    }

    func testMonoCountsAsBothSpeakers() throws {
        let path = try flac(try sine("mono", level: -14, channels: 1))
        let result = try assertMatchesFFmpeg(path, format: .s16, peakTolerance: 0.06, dualMono: true)
        XCTAssertEqual(result.integratedLUFS, -14, accuracy: 0.1)
        XCTAssertEqual(result.gainDB, -4, accuracy: 0.1)
    }

    func testAlbumLoudnessIsTheirsTogether() throws {
        // 6 dB apart: within the relative gate (10 LU), so both count.
        let loud = try flac(try sine("loud", level: -16))
        let quiet = try flac(try sine("quiet", level: -22))
        let meters = try [loud, quiet].map { try LoudnessMeter.measure(path: $0) }
        let tracks = try meters.map { try $0.result() }
        let album = try LoudnessMeter.album(meters)
        XCTAssertGreaterThan(album.gainDB, tracks[0].gainDB)
        XCTAssertLessThan(album.gainDB, tracks[1].gainDB)
        XCTAssertEqual(album.samplePeak, tracks[0].samplePeak)
        // The mean energy of both: 10 log10((10^-1.6 + 10^-2.2) / 2) = -18.04 LUFS.
        XCTAssertEqual(album.integratedLUFS, -18.04, accuracy: 0.05)
        // About one file holding both, as FFmpeg measures it (whose blocks across the join differ a little).
        let joined = temp.path("joined.wav")
        try TestProcess.runChecked("sox", [loud, quiet, joined])
        XCTAssertEqual(album.integratedLUFS, try ffmpegLoudness(joined).lufs, accuracy: 0.1)
        // The album's meters are still usable one by one afterwards.
        XCTAssertEqual(try meters[1].result(), tracks[1])
    }

    func testSilenceGetsABoundedGain() throws {
        let wav = temp.path("silence.wav")
        try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-b", "16", "-c", "2", wav, "trim", "0", "3"])
        let result = try LoudnessMeter.measure(path: try flac(wav)).result()
        XCTAssertEqual(result.integratedLUFS, -.infinity)
        XCTAssertEqual(result.gainDB, LoudnessResult.gainLimitDB)
        XCTAssertLessThan(result.samplePeak, 1e-4, "sox's dither at most")
    }

    func testBrokenFileIsOneLineNamingIt() throws {
        let path = temp.path("broken.flac")
        try Data("fLaC but nothing after the magic that a FLAC decoder could use".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try LoudnessMeter.measure(path: path)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix(path + ": "), text)
            XCTAssertFalse(text.contains("\n"), text)
        }
        let empty = temp.path("empty.flac")
        try Data().write(to: URL(fileURLWithPath: empty))
        XCTAssertThrowsError(try LoudnessMeter.measure(path: empty)) { XCTAssertTrue("\($0)".hasPrefix(empty + ": ")) }
    }

    func testProgressAndCancellation() throws {
        let path = try flac(try sine("progress", level: -20))
        var fractions: [Double] = []
        _ = try LoudnessMeter.measure(path: path, progress: { fractions.append($0) })
        XCTAssertGreaterThan(fractions.count, 2)
        XCTAssertEqual(fractions, fractions.sorted())
        XCTAssertEqual(fractions.last ?? 0, 1, accuracy: 1e-9)
        var reads = 0
        XCTAssertThrowsError(try LoudnessMeter.measure(path: path, isCancelled: {
            reads += 1
            return reads > 3
        })) { XCTAssertTrue($0 is CancellationError, "\($0)") }
        XCTAssertEqual(reads, 4)
    }
}
