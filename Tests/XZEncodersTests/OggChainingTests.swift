import XCTest
import XZAudio
import XZEncoders
import XZTestSupport

/// What the two Ogg encoders share: a listener joining late decodes from the header on, and a new song
/// chains a logical stream whose comments name it.
final class OggChainingTests: XCTestCase {
    private let cd = AudioFormat(sampleRate: 44_100, channels: 2, sample: .float32)
    private let encoders: [(name: String, make: () throws -> AudioEncoder)] = [
        ("opus", { try OpusEncoder(settings: [:]) }),
        ("vorbis", { try VorbisEncoder(settings: [:]) }),
    ]

    func testLateJoinerDecodesFromTheHeaderOn() throws {
        for (name, make) in encoders {
            let folder = try TemporaryFolder(name)
            let run = try EncodedTone.encode(try make(), format: cd, seconds: 3)
            // A listener joining after 1 s gets the header, then what follows.
            let joined = run.headers[9] + run.chunks[10...].flatMap { $0 }
            let samples = try EncodedTone.decode(joined, in: folder)
            XCTAssertGreaterThan(EncodedTone.seconds(of: samples), 1.5, name)
            XCTAssertEqual(EncodedTone.frequency(of: samples), EncodedTone.frequency, accuracy: 10, name)
        }
    }

    func testNewSongChainsAStreamWithItsTitle() throws {
        for (name, make) in encoders {
            let folder = try TemporaryFolder(name)
            let tag = StreamTag(title: "Second Song", artist: "Singer", album: "Album")
            let run = try EncodedTone.encode(try make(), format: cd, seconds: 3, tags: [10: tag])
            EncodedTone.assertTone(try EncodedTone.decode(run.all, in: folder), seconds: 3, tolerance: 0.025)
            let header = run.headers.last!
            XCTAssertNotEqual(header, run.headers[0], "\(name): the chained stream's header replaces the first")
            XCTAssertEqual(try EncodedTone.tags(of: run.chunks[..<5].flatMap { $0 }, in: folder)["title"], nil,
                           "\(name): the first song had no tag")
            // The whole stream names the new song once, after the point the tag came.
            let before = run.chunks[..<10].reduce(0) { $0 + $1.count }
            XCTAssertEqual(EncodedTone.offsets(of: "Second Song", in: run.all).map { $0 > before }, [true], name)
            // A listener joining now sees the new song's tags.
            let tags = try EncodedTone.tags(of: header + run.chunks.last!, in: folder)
            XCTAssertEqual(tags["title"], "Second Song", name)
            XCTAssertEqual(tags["artist"], "Singer", name)
            XCTAssertEqual(tags["album"], "Album", name)
        }
    }
}
