import XCTest
import XZAudio
import XZEncoders
import XZTestSupport

final class FlacEncoderTests: XCTestCase {
    func testToneDecodesAtItsFrequencyAndLengthFrom16And24Bits() throws {
        let folder = try TemporaryFolder("flac")
        for (source, layout) in [
            (AudioFormat(sampleRate: 44_100, channels: 2, sample: .s16), AudioFormat(sampleRate: 44_100, channels: 2, sample: .s16)),
            (AudioFormat(sampleRate: 96_000, channels: 1, sample: .float32), AudioFormat(sampleRate: 96_000, channels: 1, sample: .s32, bits: 24)),
        ] {
            let encoder = try FlacEncoder(settings: ["compression": "8"])
            XCTAssertEqual(try encoder.open(format: source), layout)
            encoder.close()
            let run = try EncodedTone.encode(encoder, format: source, seconds: 3)
            XCTAssertEqual(Array(run.all.prefix(4)), Array("fLaC".utf8))
            XCTAssertEqual(Array(run.all.prefix(run.headers[0].count)), run.headers[0])
            EncodedTone.assertTone(try EncodedTone.decode(run.all, in: folder), seconds: 3, tolerance: 0.001)
        }
    }

    func testLateJoinerDecodesFromTheHeaderOn() throws {
        let folder = try TemporaryFolder("flac")
        let run = try EncodedTone.encode(try FlacEncoder(settings: [:]), format: AudioFormat(sampleRate: 44_100, channels: 2),
                                         seconds: 3, tags: [5: StreamTag(title: "ignored")])
        let header = run.headers[9]
        XCTAssertEqual(Array(header.prefix(4)), Array("fLaC".utf8))
        XCTAssertTrue(run.headers.allSatisfy { $0 == header }, "FLAC ignores tags: one header")
        let samples = try EncodedTone.decode(header + run.chunks[10...].flatMap { $0 }, in: folder)
        XCTAssertEqual(EncodedTone.seconds(of: samples), 2, accuracy: 0.2)
        XCTAssertEqual(EncodedTone.frequency(of: samples), EncodedTone.frequency, accuracy: 10)
    }

    func testBadSettingsAreRefusedInOneLine() {
        EncodedTone.assertRefused({ (s) throws(EncoderError) in try FlacEncoder(settings: s) }, [
            (["compression": "9"], "compression \"9\" is not a number in the range 0 to 8"),
            (["compression": "-1"], "compression \"-1\" is not a number in the range 0 to 8"),
            (["compression": "18446744073709551616"], "compression \"18446744073709551616\" is not a number in the range 0 to 8"),
            (["compression": "best"], "compression \"best\" is not a number in the range 0 to 8"),
        ])
    }
}
