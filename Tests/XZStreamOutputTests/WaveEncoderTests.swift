import XCTest
import XZAudio
import XZEncoders

/// MPD's wave encoder: a header with open lengths, then the samples as they come.
final class WaveEncoderTests: XCTestCase {
    func testHeaderThenSamples() throws {
        let encoder = try makeEncoder(kind: .wave, settings: [:])
        XCTAssertEqual(encoder.mimeType, "audio/wav")
        XCTAssertFalse(encoder.carriesTags)
        let layout = try encoder.open(format: AudioFormat(sampleRate: 48_000, channels: 2, sample: .s32))
        XCTAssertEqual(layout, AudioFormat(sampleRate: 48_000, channels: 2, sample: .s16))
        let header = encoder.streamHeader
        XCTAssertEqual(header.count, 44)
        XCTAssertEqual(Array(header[0..<4]), Array("RIFF".utf8))
        XCTAssertEqual(Array(header[8..<16]), Array("WAVEfmt ".utf8))
        func le32(_ at: Int) -> UInt32 { header[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        XCTAssertEqual(le32(24), 48_000)
        XCTAssertEqual(le32(28), 48_000 * 4)
        XCTAssertEqual(le32(40), 0x0FFF_FFFF)
        XCTAssertEqual(encoder.takeOutput(), header)
        let samples: [Int16] = [1, -1, 300, -300]
        try samples.withUnsafeBytes { try encoder.encode($0) }
        XCTAssertEqual(encoder.takeOutput(), [1, 0, 0xFF, 0xFF, 0x2C, 0x01, 0xD4, 0xFE])
        XCTAssertEqual(encoder.takeOutput(), [])
        XCTAssertThrowsError(try encoder.open(format: AudioFormat(sampleRate: 44_100, channels: 0)))
    }
}
