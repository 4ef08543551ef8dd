import Foundation
import XCTest
import XZPlaybackEngine
import XZPlaybackValues
import XZTestSupport

/// A CUE sheet's tracks play their parts of the image to the sample: one after another they are the image.
final class CueTrackPlaybackTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("cue-playback")
    }

    private func track(_ number: Int, image: String) -> QueueItem {
        let bounds = CueFixtures.trackFrames[number - 1]
        var item = QueueItem(path: folder.path("image.cue/track000\(number)"), title: "Track \(number)")
        item.audioFile = image
        item.range = PlayRange(cdFrames: PlayRange.CDFrames(start: bounds.start, end: bounds.end))
        return item
    }

    func testConsecutiveTracksJoinBitExactAndEndWhereTheSheetSays() throws {
        try CueFixtures.makeRip(in: folder.url)
        let image = folder.path("image.flac")
        let whole = try CueFixtures.pcm(of: image)
        let bytesPerFrame = 4
        func samples(_ frames: Int) -> Int { frames * 44_100 / 75 }
        // Tracks 1 and 2: the image from its start to track 3's INDEX 01, no gap, no overlap.
        let render = try Render.run([track(1, image: image), track(2, image: image)], in: folder)
        XCTAssertEqual(render.failed, 0, "\(render.errors)")
        Reference.assertSame(render.pcm, whole.prefix(samples(558) * bytesPerFrame), "tracks 1 and 2")
        // Track 2 alone starts on the sample after track 1's last; track 3 runs to the image's end.
        let second = try Render.run([track(2, image: image)], in: folder)
        Reference.assertSame(second.pcm, whole[samples(310) * bytesPerFrame ..< samples(558) * bytesPerFrame], "track 2")
        let third = try Render.run([track(3, image: image)], in: folder)
        Reference.assertSame(third.pcm, whole.dropFirst(samples(558) * bytesPerFrame), "track 3")
        XCTAssertEqual(render.endings.map(\.reason), [.completed, .completed])
    }
}
