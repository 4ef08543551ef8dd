import XCTest
import XZAudio
import XZEncoders
import XZTestSupport

final class OpusEncoderTests: XCTestCase {
    private let cd = AudioFormat(sampleRate: 44_100, channels: 2, sample: .float32)

    func testToneDecodesAtItsFrequencyAndLength() throws {
        let folder = try TemporaryFolder("opus")
        let encoder = try OpusEncoder(settings: ["bitrate": "96000", "complexity": "5", "signal": "music"])
        XCTAssertEqual(try encoder.open(format: cd), cd, "libopusenc takes the source's rate itself")
        XCTAssertEqual(try encoder.open(format: AudioFormat(sampleRate: 384_000, channels: 2, sample: .s32)),
                       AudioFormat(sampleRate: 48_000, channels: 2, sample: .float32), "a rate beyond 192 kHz is asked for at 48 kHz")
        encoder.close()
        let run = try EncodedTone.encode(encoder, format: cd, seconds: 3)
        XCTAssertEqual(Array(run.all.prefix(4)), Array("OggS".utf8))
        EncodedTone.assertTone(try EncodedTone.decode(run.all, in: folder), seconds: 3, tolerance: 0.025)
    }

    func testAPageComesOutAtLeastEveryThreeTenthsOfASecond() throws {
        let encoder = try OpusEncoder(settings: [:])
        let run = try EncodedTone.encode(encoder, format: cd, seconds: 3)
        // After the header, no stretch of 0.3 s (3 chunks of 0.1 s) passes without a page.
        let empty = run.chunks.dropFirst().dropLast().map(\.isEmpty)
        for start in 0..<(empty.count - 2) {
            XCTAssertFalse(empty[start] && empty[start + 1] && empty[start + 2], "no page for 0.3 s at chunk \(start)")
        }
    }

    func testBadSettingsAreRefusedInOneLine() {
        EncodedTone.assertRefused({ (s) throws(EncoderError) in try OpusEncoder(settings: s) }, [
            (["bitrate": "499"], "bitrate \"499\" is not \"auto\", \"max\" or a number of bits per second from 500 to 512000"),
            (["bitrate": "99999999999999999999999"], "bitrate \"99999999999999999999999\" is not \"auto\", \"max\" or a number of bits per second from 500 to 512000"),
            (["bitrate": "-128000"], "bitrate \"-128000\" is not \"auto\", \"max\" or a number of bits per second from 500 to 512000"),
            (["bitrate": "128k"], "bitrate \"128k\" is not \"auto\", \"max\" or a number of bits per second from 500 to 512000"),
            (["complexity": "11"], "complexity \"11\" is not a number in the range 0 to 10"),
            (["complexity": "nan"], "complexity \"nan\" is not a number in the range 0 to 10"),
            (["complexity": "-1"], "complexity \"-1\" is not a number in the range 0 to 10"),
            (["signal": "speech"], "signal \"speech\" is not \"auto\", \"voice\" or \"music\""),
            (["vbr": "maybe"], "vbr \"maybe\" is not \"yes\", \"no\" or \"constrained\""),
            (["packet_loss": "101"], "packet_loss \"101\" is not a number in the range 0 to 100"),
        ])
        XCTAssertNoThrow(try OpusEncoder(settings: ["bitrate": "max", "complexity": "0", "signal": "voice", "vbr": "constrained"]))
    }
}
