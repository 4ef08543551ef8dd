import Foundation
import XCTest
import XZPlaybackEngine
import XZTestSupport

/// Rendering through the Player to `raw:` must give exactly what `mpg123 -s` gives.
final class RenderTests: XCTestCase {
    private var fixtures: PlaybackFixtures!
    private var folder: TemporaryFolder!

    override func setUpWithError() throws {
        fixtures = try PlaybackFixtures.shared()
        folder = try TemporaryFolder("playback-render")
    }

    func testEachKindRendersBitExact() throws {
        for name in ["cbr44", "vbr44", "mono22", "stereo48", "mpeg25_8k", "cjk", "picture"] {
            let path = try fixtures.path(name)
            let render = try Render.run([item(path)], in: folder)
            Reference.assertSame(render.pcm, try Reference.mpg123(path), name)
            XCTAssertEqual(render.failed, 0, name)
            XCTAssertTrue(render.errors.isEmpty, "\(name): \(render.errors)")
            // started, positions..., ended(completed), queueFinished
            guard case .started(let started, let durationMs)? = render.audioEvents.first else {
                return XCTFail("\(name): first event \(String(describing: render.audioEvents.first))")
            }
            XCTAssertEqual(started.path, path)
            XCTAssertNotNil(durationMs, name)
            XCTAssertEqual(render.lastReport, .queueFinished, name)
            // play: a new queue and a song; its end: playback stopped.
            XCTAssertEqual(render.changes, [[.queue, .playback], .playback], name)
            XCTAssertEqual(render.endings.map(\.reason), [.completed], name)
        }
    }

    func testPositionEventsEvery250MsAndExactDuration() throws {
        let path = try fixtures.path("cbr44")
        let render = try Render.run([item(path)], in: folder)
        let positions = render.events.compactMap { if case .position(let ms) = $0 { return ms } else { return nil } }
        let frames = render.pcm.count / 4
        let totalMs = frames * 1000 / 44_100
        XCTAssertEqual(positions, Array(stride(from: 250, through: totalMs, by: 250)))
        guard case .started(_, let durationMs)? = render.audioEvents.first,
              case .ended(_, .completed, let endMs)? = render.audioEvents.dropLast().last else {
            return XCTFail("events: \(render.events)")
        }
        XCTAssertEqual(durationMs, totalMs)
        XCTAssertEqual(endMs, totalMs)
    }

    func testGaplessTwoTracksAreTheConcatenation() throws {
        let first = try fixtures.path("vbr44"), second = try fixtures.path("cbr44b")
        let render = try Render.run([item(first), item(second)], in: folder)
        Reference.assertSame(render.pcm, try Reference.mpg123(first) + Reference.mpg123(second), "gapless pair")
        XCTAssertEqual(render.endings.map(\.reason), [.completed, .completed])
        let started = render.events.compactMap { if case .started(let item, _) = $0 { return item.path } else { return nil } }
        XCTAssertEqual(started, [first, second])
    }

    func testFormatChangeBetweenTracksKeepsEachTrackExact() throws {
        // raw: is written continuously; each part is at its track's own rate and channels.
        let first = try fixtures.path("mono22"), second = try fixtures.path("stereo48"), third = try fixtures.path("cbr44b")
        let render = try Render.run([item(first), item(second), item(third)], in: folder)
        let expected = try Reference.mpg123(first) + Reference.mpg123(second) + Reference.mpg123(third)
        Reference.assertSame(render.pcm, expected, "three formats")
    }

    func testSeekLandsOnTheRequestedSample() throws {
        let path = try fixtures.path("long6")
        let full = try Reference.mpg123(path)
        let target = 3_500 * 44_100 / 1000
        let render = try Render.run([item(path)], in: folder) { player, log in
            player.pause()
            XCTAssertTrue(log.wait { $0.contains { if case .paused = $0 { return true } else { return false } } })
            player.seek(.absolute(ms: 3_500))
            XCTAssertTrue(log.wait { $0.contains(.seeked(ms: 3_500)) })
            XCTAssertEqual(player.snapshot().positionMs, 3_500)
            player.resume()
        }
        // Whatever was written before the pause is a prefix of the full decode; after it, the slice from the target.
        let tail = full.count - target * 4
        let prefix = render.pcm.count - tail
        XCTAssertGreaterThanOrEqual(prefix, 0)
        XCTAssertEqual(prefix % 4, 0)
        guard prefix >= 0, prefix <= full.count else { return }
        Reference.assertSame(render.pcm.prefix(prefix), full.prefix(prefix), "before the seek")
        Reference.assertSame(render.pcm.suffix(from: prefix), full.suffix(from: target * 4), "after the seek")
    }

    func testSeekByPercentAndRelative() throws {
        let path = try fixtures.path("long6")
        let full = try Reference.mpg123(path)
        let frames = full.count / 4
        let render = try Render.run([item(path)], in: folder) { player, log in
            player.pause()
            XCTAssertTrue(log.wait { $0.contains { if case .paused = $0 { return true } else { return false } } })
            player.seek(.percent(50))
            player.seek(.relative(ms: -1_000))
            XCTAssertTrue(log.wait { $0.filter { if case .seeked = $0 { return true } else { return false } }.count == 2 })
            player.resume()
        }
        let seeks = render.events.compactMap { if case .seeked(let ms) = $0 { return ms } else { return nil } }
        let half = frames / 2
        let back = half - 44_100
        XCTAssertEqual(seeks, [half * 1000 / 44_100, back * 1000 / 44_100])
        Reference.assertSame(render.pcm.suffix(full.count - back * 4), full.suffix(from: back * 4), "after two seeks")
    }

    func testVolumeHalvesSamples() throws {
        let path = try fixtures.path("cbr44")
        let loud = Reference.int16s(try Render.run([item(path)], in: folder).pcm)
        let half = Reference.int16s(try Render.run([item(path)], volume: 50, in: folder).pcm)
        XCTAssertEqual(loud.count, half.count)
        XCTAssertGreaterThan(loud.map { abs(Int($0)) }.max() ?? 0, 1000, "the tone is audible")
        let worst = zip(loud, half).map { abs(Int($1) * 2 - Int($0)) }.max() ?? 0
        XCTAssertLessThanOrEqual(worst, 2, "50% is half of every sample, within rounding")
        let silent = Reference.int16s(try Render.run([item(path)], volume: 0, in: folder).pcm)
        XCTAssertTrue(silent.allSatisfy { $0 == 0 })
    }

    func testWavOutputHoldsTheSamePCM() throws {
        let path = try fixtures.path("cbr44")
        let wav = folder.path("out.wav")
        let log = EventLog()
        let player = Player(output: LibaoOutput(.file(driver: "wav", path: wav)), onEvent: { log.append($0) })
        // A second track in another format cannot go into the same WAV file: one error, then the third plays on.
        player.play([item(path), item(try fixtures.path("mono22")), item(try fixtures.path("cbr44b"))])
        XCTAssertTrue(player.waitUntilFinished(timeout: 60))
        player.shutdown()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: wav))
        XCTAssertEqual(String(decoding: bytes.prefix(4), as: UTF8.self), "RIFF")
        let pcm = try Reference.mpg123(path) + Reference.mpg123(try fixtures.path("cbr44b"))
        // The data chunk is at the end of the file, after libao's header.
        Reference.assertSame(bytes.suffix(pcm.count), pcm, "wav payload")
        let dataSize = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: bytes.count - pcm.count - 4, as: UInt32.self) }
        XCTAssertEqual(Int(UInt32(littleEndian: dataSize)), pcm.count, "header finished on close")
        let errors = log.events.compactMap { if case .error(let file, let message) = $0 { return (file, message) } else { return nil } }
        XCTAssertEqual(errors.map(\.0), [try fixtures.path("mono22")])
        XCTAssertTrue(errors.first?.1.contains("22050 Hz mono") ?? false, "\(errors)")
    }
}
