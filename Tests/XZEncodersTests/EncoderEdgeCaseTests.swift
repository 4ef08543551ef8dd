import XCTest
import XZAudio
import XZEncoders
import XZTestSupport

/// What a stream output may do to any encoder: tags with no audio between, no audio at all, half a sample
/// frame, calls before `open` or after `close`, formats no library takes, a tag far too long.
final class EncoderEdgeCaseTests: XCTestCase {
    private func encoders() throws -> [AudioEncoder] {
        [try OpusEncoder(settings: [:]), try VorbisEncoder(settings: [:]), try LameEncoder(settings: ["bitrate": "128"]),
         try FlacEncoder(settings: [:])]
    }

    func testOddSequencesNeitherTrapNorLoseTheStream() throws {
        let folder = try TemporaryFolder("edges")
        let source = AudioFormat(sampleRate: 44_100, channels: 2, sample: .float32)
        for encoder in try encoders() {
            XCTAssertThrowsError(try [UInt8](repeating: 0, count: 8).withUnsafeBytes { try encoder.encode($0) },
                                 "\(encoder.kind): encode before open")
            XCTAssertNoThrow(try encoder.sendTag(StreamTag(title: "before open")))
            XCTAssertNoThrow(try encoder.flush())
            encoder.close()
            XCTAssertEqual(encoder.takeOutput(), [])

            // Opened and closed with nothing between; tags with no audio between; then audio.
            _ = try encoder.open(format: source)
            encoder.close()
            _ = encoder.takeOutput()
            let layout = try encoder.open(format: source)
            try encoder.sendTag(StreamTag(title: "one"))
            try encoder.sendTag(StreamTag(title: String(repeating: "long ", count: 200_000), artist: "", album: nil))
            // Half a sample frame, then an empty buffer: nothing to encode.
            try [UInt8](repeating: 0, count: layout.bytesPerFrame / 2).withUnsafeBytes { try encoder.encode($0) }
            try [UInt8]().withUnsafeBytes { try encoder.encode($0) }
            try EncodedTone.pcm(layout, frames: layout.sampleRate).withUnsafeBytes { try encoder.encode($0) }
            // Tags a sample frame apart, the last with no audio after it.
            for title in ["three", "four", "five"] {
                try encoder.sendTag(StreamTag(title: title))
                try EncodedTone.pcm(layout, frames: 1).withUnsafeBytes { try encoder.encode($0) }
            }
            try encoder.sendTag(StreamTag(title: "six"))
            try encoder.flush()
            encoder.close()
            encoder.close()
            let samples = try EncodedTone.decode(encoder.takeOutput(), in: folder)
            XCTAssertEqual(EncodedTone.frequency(of: samples), EncodedTone.frequency, accuracy: 10, "\(encoder.kind)")
            XCTAssertLessThan(encoder.streamHeader.count, 16_384, "\(encoder.kind): a long tag is cut in the header")
        }
    }

    func testFormatsALibraryCannotTakeAreRefusedOrChanged() throws {
        for encoder in try encoders() {
            for format in [AudioFormat(sampleRate: 0, channels: 2), AudioFormat(sampleRate: Int.max, channels: 2),
                           AudioFormat(sampleRate: -44_100, channels: 2)] {
                do {
                    let layout = try encoder.open(format: format)
                    XCTAssertTrue(layout.sampleRate > 0 && layout.sampleRate <= 192_000, "\(encoder.kind): \(layout)")
                    encoder.close()
                } catch {
                    XCTAssertFalse(error.description.contains("\n"))
                }
            }
            let many = try encoder.open(format: AudioFormat(sampleRate: 48_000, channels: 1_000, sample: .s32))
            XCTAssertTrue((1...8).contains(many.channels), "\(encoder.kind): \(many)")
            encoder.close()
        }
    }
}
