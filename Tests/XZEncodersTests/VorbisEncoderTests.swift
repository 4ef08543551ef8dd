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

    func testLateJoinerDecodesFromTheHeaderOn() throws {
        let folder = try TemporaryFolder("vorbis")
        let run = try EncodedTone.encode(try VorbisEncoder(settings: [:]), format: cd, seconds: 3)
        let joined = run.headers[9] + run.chunks[10...].flatMap { $0 }
        let samples = try EncodedTone.decode(joined, in: folder)
        XCTAssertGreaterThan(EncodedTone.seconds(of: samples), 1.5)
        XCTAssertEqual(EncodedTone.frequency(of: samples), EncodedTone.frequency, accuracy: 10)
    }

    func testNewSongChainsAStreamWithItsTitle() throws {
        let folder = try TemporaryFolder("vorbis")
        let tag = StreamTag(title: "Second Song", artist: "Singer", album: "Album")
        let run = try EncodedTone.encode(try VorbisEncoder(settings: [:]), format: cd, seconds: 3, tags: [10: tag])
        EncodedTone.assertTone(try EncodedTone.decode(run.all, in: folder), seconds: 3, tolerance: 0.025)
        let header = run.headers.last!
        XCTAssertNotEqual(header, run.headers[0], "the chained stream's header replaces the first")
        XCTAssertEqual(try EncodedTone.tags(of: run.chunks[..<5].flatMap { $0 }, in: folder)["title"], nil, "the first song had no tag")
        // The whole stream names the new song once, after the point the tag came.
        let before = run.chunks[..<10].reduce(0) { $0 + $1.count }
        XCTAssertEqual(EncodedTone.offsets(of: "Second Song", in: run.all).map { $0 > before }, [true])
        // A listener joining now sees the new song's tags.
        let tags = try EncodedTone.tags(of: header + run.chunks.last!, in: folder)
        XCTAssertEqual(tags["title"], "Second Song")
        XCTAssertEqual(tags["artist"], "Singer")
        XCTAssertEqual(tags["album"], "Album")
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
            XCTAssertEqual(error as? EncoderError, .failed("Vorbis cannot encode 44100 Hz, 2 channels at 1000 kbit/s"))
        }
    }
}
