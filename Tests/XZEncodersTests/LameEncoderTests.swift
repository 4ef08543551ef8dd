import XCTest
import XZAudio
import XZEncoders
import XZTestSupport

final class LameEncoderTests: XCTestCase {
    private let cd = AudioFormat(sampleRate: 44_100, channels: 2, sample: .s16)
    /// LAME's delay and padding with no info frame to trim them: up to two MP3 frames longer.
    private let twoFrames = 2 * 1_152.0 / 44_100

    func testToneDecodesAtItsFrequencyAndLengthByQualityOrBitrate() throws {
        let folder = try TemporaryFolder("lame")
        for settings in [["bitrate": "128"], ["quality": "2"], ["quality": "9.5"]] {
            let run = try EncodedTone.encode(try LameEncoder(settings: settings), format: cd, seconds: 3)
            XCTAssertEqual(run.all.first, 0xFF, "an MP3 frame's sync from the first byte")
            let samples = try EncodedTone.decode(run.all, in: folder)
            EncodedTone.assertTone(samples, seconds: 3 + twoFrames / 2, tolerance: twoFrames / 2 + 0.001)
        }
    }

    func testRatesMP3LacksBecomeOneOfItsFamily() throws {
        let encoder = try LameEncoder(settings: ["bitrate": "192"])
        XCTAssertEqual(try encoder.open(format: AudioFormat(sampleRate: 96_000, channels: 6, sample: .float32)),
                       AudioFormat(sampleRate: 48_000, channels: 2, sample: .s16))
        XCTAssertEqual(try encoder.open(format: AudioFormat(sampleRate: 88_200, channels: 1, sample: .s32)),
                       AudioFormat(sampleRate: 44_100, channels: 2, sample: .s16))
        XCTAssertEqual(try encoder.open(format: AudioFormat(sampleRate: 22_050, channels: 1)),
                       AudioFormat(sampleRate: 22_050, channels: 2, sample: .s16))
        encoder.close()
        XCTAssertTrue(encoder.streamHeader.isEmpty)
        XCTAssertFalse(encoder.carriesTags)
    }

    func testLateJoinerDecodesWithNoHeader() throws {
        let folder = try TemporaryFolder("lame")
        let run = try EncodedTone.encode(try LameEncoder(settings: ["bitrate": "128"]), format: cd, seconds: 3,
                                         tags: [5: StreamTag(title: "ignored")])
        XCTAssertTrue(run.headers.allSatisfy(\.isEmpty))
        let samples = try EncodedTone.decode(run.chunks[10...].flatMap { $0 }, in: folder)
        XCTAssertEqual(EncodedTone.seconds(of: samples), 2, accuracy: 0.2)
        XCTAssertEqual(EncodedTone.frequency(of: samples), EncodedTone.frequency, accuracy: 10)
    }

    func testBadSettingsAreRefusedInOneLine() {
        EncodedTone.assertRefused({ (s) throws(EncoderError) in try LameEncoder(settings: s) }, [
            ([:], "neither bitrate nor quality defined"),
            (["quality": "10"], "quality \"10\" is not a number in the range 0 to 9.999"),
            (["quality": "-1"], "quality \"-1\" is not a number in the range 0 to 9.999"),
            (["quality": "nan"], "quality \"nan\" is not a number in the range 0 to 9.999"),
            (["quality": "2", "bitrate": "128"], "quality and bitrate are both defined"),
            (["bitrate": "321"], "bitrate \"321\" should be a positive integer (kbit/s, at most 320)"),
            (["bitrate": "-1"], "bitrate \"-1\" should be a positive integer (kbit/s, at most 320)"),
            (["bitrate": "128 kbit"], "bitrate \"128 kbit\" should be a positive integer (kbit/s, at most 320)"),
            (["bitrate": "\u{1B}[2J"], "bitrate \"\\u{1B}[2J\" should be a positive integer (kbit/s, at most 320)"),
        ])
    }
}
