import XCTest
import XZAudio
import XZEncoders
import XZTestSupport

final class VorbisEncoderTests: XCTestCase {
    private let cd = AudioFormat(sampleRate: 44_100, channels: 2, sample: .float32)

    func testToneDecodesAtItsFrequencyAndLengthByQualityOrBitrate() throws {
        let folder = try TemporaryFolder("vorbis")
        for settings in [[:], ["quality": "-1"], ["quality": "7.5"], ["bitrate": "128"]] {
            let run = try EncodedTone.encode(try VorbisEncoder(settings: settings), format: cd, seconds: 3)
            XCTAssertEqual(Array(run.all.prefix(4)), Array("OggS".utf8))
            EncodedTone.assertTone(try EncodedTone.decode(run.all, in: folder), seconds: 3, tolerance: 0.025)
        }
    }

    func testBadSettingsAreRefusedInOneLine() {
        EncodedTone.assertRefused({ (s) throws(EncoderError) in try VorbisEncoder(settings: s) }, [
            (["quality": "11"], "quality \"11\" is not a number in the range -1 to 10"),
            (["quality": "nan"], "quality \"nan\" is not a number in the range -1 to 10"),
            (["quality": "inf"], "quality \"inf\" is not a number in the range -1 to 10"),
            (["quality": "1e308"], "quality \"1e308\" is not a number in the range -1 to 10"),
            (["quality": "high"], "quality \"high\" is not a number in the range -1 to 10"),
            (["quality": "5", "bitrate": "128"], "quality and bitrate are both defined"),
            (["bitrate": "0"], "bitrate \"0\" should be a positive integer (kbit/s, at most 1000)"),
            (["bitrate": "-128"], "bitrate \"-128\" should be a positive integer (kbit/s, at most 1000)"),
            (["bitrate": "9223372036854775807"], "bitrate \"9223372036854775807\" should be a positive integer (kbit/s, at most 1000)"),
        ])
    }

    func testBitrateTheLibraryCannotReachFailsAtOpen() throws {
        let encoder = try VorbisEncoder(settings: ["bitrate": "1000"])
        XCTAssertThrowsError(try encoder.open(format: cd)) { error in
            XCTAssertEqual(error as? EncoderError, .failed)
            XCTAssertEqual((error as? EncoderError)?.message, "Vorbis cannot encode 44100 Hz, 2 channels at 1000 kbit/s")
        }
    }
}
