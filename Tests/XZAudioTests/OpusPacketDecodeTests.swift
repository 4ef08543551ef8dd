import COpusFile
import Foundation
import XCTest
@testable import XZAudio
import XZTestSupport

/// A mono or stereo Opus stream's packets go straight to its one Opus decoder: the samples are libopusfile's own
/// decode's, bit for bit, from the start, after a seek (libopusfile's reset reaches that decoder), across
/// chained links, and for a surround stream, which keeps libopusfile's multistream decode.
final class OpusPacketDecodeTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("opus-packet-decode")
    }

    override func tearDown() {
        folder = nil  // removes the files
    }

    private func opus(_ name: String, channels: Int, tone: Int) throws -> String {
        let wav = folder.path(name + ".wav"), path = folder.path(name + ".opus")
        try TestProcess.runChecked("sox", ["-R", "-r", "48000", "-c", "\(channels)", "-n", "-b", "16", wav,
                                           "synth", "3", "sine", "\(tone)", "sine", "\(tone * 3 / 2)", "vol", "0.5"])
        try TestProcess.runChecked("opusenc", ["--quiet", wav, path])
        return path
    }

    /// What libopusfile alone decodes from `sample` on, as native-endian floats.
    private func libopusfileDecode(_ path: String, from sample: Int = 0) throws -> Data {
        var error: Int32 = 0
        let file = try XCTUnwrap(op_open_file(path, &error), "libopusfile error \(error)")
        defer { op_free(file) }
        if sample > 0 { XCTAssertEqual(op_pcm_seek(file, ogg_int64_t(sample)), 0) }
        var data = Data()
        var buffer = [Float](repeating: 0, count: 5760 * 8)
        while true {
            let got = buffer.withUnsafeMutableBufferPointer { op_read_float(file, $0.baseAddress, Int32($0.count), nil) }
            XCTAssertGreaterThanOrEqual(got, 0)
            guard got > 0 else { break }
            let channels = Int(op_channel_count(file, -1))
            buffer.withUnsafeBytes { data.append(contentsOf: $0.prefix(Int(got) * channels * 4)) }
        }
        return data
    }

    private func ours(_ path: String, from sample: Int = 0) throws -> Data {
        let decoder = try AudioDecoders.open(path: path)
        if sample > 0 { try decoder.seek(toSample: sample) }
        return try PCM.decodeAll(decoder, chunk: 4 * 1 << 16)
    }

    func testMonoAndStereoGiveLibopusfilesSamples() throws {
        for channels in [1, 2] {
            let path = try opus("tone-\(channels)", channels: channels, tone: 440)
            let expected = try libopusfileDecode(path)
            XCTAssertEqual(expected.count, 3 * 48000 * channels * 4, "\(channels) channels")
            XCTAssert(try ours(path) == expected, "\(channels) channels")
        }
    }

    func testSeekGivesLibopusfilesSamplesFromThere() throws {
        let path = try opus("tone-2", channels: 2, tone: 440)
        let whole = try ours(path)
        // Forward into the middle, then back near the start: each seek resets the decoder and pre-rolls.
        let decoder = try AudioDecoders.open(path: path)
        for sample in [100_000, 1_234] {
            try decoder.seek(toSample: sample)
            let got = try PCM.read(decoder, samples: 20_000)
            XCTAssertEqual(got, try libopusfileDecode(path, from: sample).prefix(got.count), "seek to \(sample)")
            XCTAssertEqual(got.count, 20_000 * 2 * 4)
        }
        XCTAssertEqual(whole, try libopusfileDecode(path))
    }

    func testChainedLinksGiveLibopusfilesSamples() throws {
        let first = try opus("first", channels: 2, tone: 440), second = try opus("second", channels: 2, tone: 550)
        let chained = folder.path("chained.opus")
        try (Data(contentsOf: URL(fileURLWithPath: first)) + Data(contentsOf: URL(fileURLWithPath: second)))
            .write(to: URL(fileURLWithPath: chained))
        let expected = try libopusfileDecode(chained)
        XCTAssertEqual(expected.count, 6 * 48000 * 2 * 4)
        XCTAssert(try ours(chained) == expected)
        XCTAssert(try ours(chained, from: 200_000) == (try libopusfileDecode(chained, from: 200_000)))
    }

    func testSurroundKeepsTheMultistreamDecode() throws {
        let path = try opus("surround", channels: 6, tone: 330)
        let expected = try libopusfileDecode(path)
        XCTAssertEqual(expected.count, 3 * 48000 * 6 * 4)
        XCTAssert(try ours(path) == expected)
    }
}
