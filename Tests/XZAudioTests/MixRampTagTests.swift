import Foundation
import XCTest
import XZAudio
import XZTestSupport

/// MixRamp's tags as MPD reads them: ID3v2 `TXXX:MIXRAMP_START`/`MIXRAMP_END` and Vorbis comments.
final class MixRampTagTests: XCTestCase {
    func testMixRampTagsOfMP3AndFLAC() throws {
        let folder = try TemporaryFolder("mixramp-tags")
        let start = "-20.00 0.50;-15.00 1.00", end = "-20.00 3.00;-15.00 2.00"
        func txxx(_ name: String, _ value: String) -> (String, [UInt8]) {
            ID3Builder.text("TXXX", .utf8, Array(name.utf8) + [0] + Array(value.utf8))
        }
        let mp3 = try ID3Builder.makeTaggedMP3(at: folder.path("ramp.mp3"),
                                               frames: [txxx("MIXRAMP_START", start), txxx("MIXRAMP_END", end)])
        let mp3Ramp = try XCTUnwrap(AudioTags.mixRamp(path: mp3))
        XCTAssertEqual(mp3Ramp.start, start)
        XCTAssertEqual(mp3Ramp.end, end)

        let flac = folder.path("ramp.flac")
        try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", flac, "synth", "1", "sine", "440"])
        XCTAssertNil(AudioTags.mixRamp(path: flac), "no tags: nil")
        try TestProcess.runChecked("metaflac", ["--set-tag=MIXRAMP_END=" + end, flac])
        let flacRamp = try XCTUnwrap(AudioTags.mixRamp(path: flac))
        XCTAssertNil(flacRamp.start)
        XCTAssertEqual(flacRamp.end, end)
    }
}
