import Foundation
import XCTest
import XZLyrics
import XZPlaybackEngine
import XZPlaybackValues
import XZTestSupport

/// `.lyric` events come at the exact sample where the audio crosses a line's time.
final class LyricEventTests: XCTestCase {
    private var fixtures: PlaybackFixtures!
    private var folder: TemporaryFolder!

    private let lrc = """
        [ti:Timing test]
        [00:00.00]Zero
        [00:01.23]One
        [00:02.50]Two
        [00:02.50]Two again
        [00:03.999]Three
        [00:05.007]Five
        """
    /// (time, text) of the lines above, in order.
    private let lines: [(Int, String)] = [(0, "Zero"), (1230, "One"), (2500, "Two"), (2500, "Two again"), (3999, "Three"), (5007, "Five")]

    override func setUpWithError() throws {
        fixtures = try PlaybackFixtures.shared()
        folder = try TemporaryFolder("playback-lyrics")
    }

    private func lyricFile() throws -> String {
        let path = folder.path("song.lrc")
        try Data(lrc.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func lyricEvents(_ events: [PlayerEvent]) -> [(index: Int, timeMs: Int, positionMs: Int, text: String)] {
        events.compactMap {
            if case .lyric(let index, let time, let position, let text) = $0 { return (index, time, position, text) }
            return nil
        }
    }

    func testOneEventPerLineAtTheExactSample() throws {
        let out = folder.path("lyrics.raw")
        let log = EventLog()
        let sizes = Locked<[Int]>([])
        let player = Player(output: RawFileOutput(path: out), onEvent: { event in
            log.append(event)
            if case .lyric = event {
                // Emitted on the audio thread right after the write that crossed the stamp.
                let size = (try? FileManager.default.attributesOfItem(atPath: out))?[.size] as? Int
                sizes.update { $0.append(size ?? -1) }
            }
        })
        player.play([item(try fixtures.path("long6"), lyrics: try lyricFile())])
        XCTAssertTrue(player.waitUntilFinished(timeout: 60))
        player.shutdown()

        let got = lyricEvents(log.events)
        XCTAssertEqual(got.map(\.index), Array(0..<lines.count))
        XCTAssertEqual(got.map(\.timeMs), lines.map(\.0))
        XCTAssertEqual(got.map(\.text), lines.map(\.1))
        for event in got {
            XCTAssertLessThanOrEqual(abs(event.positionMs - event.timeMs), 5, "line \(event.index)")
            XCTAssertEqual(event.positionMs, event.timeMs, "chunks are cut at the stamp")
        }
        let expected = lines.map { LyricTimeline.firstSample(atMs: $0.0, sampleRate: 44_100) * 4 }
        XCTAssertEqual(sizes.value, expected, "audio handed to the output at each event ends at the stamp's first sample")
        // The PCM itself is untouched by the chunk cutting.
        Reference.assertSame(try Data(contentsOf: URL(fileURLWithPath: out)), try Reference.mpg123(try fixtures.path("long6")), "with lyrics")
    }

    func testAdjustmentShiftsEvents() throws {
        let render = try Render.run([item(try fixtures.path("long6"), lyrics: try lyricFile(), adjustmentMs: 200)], in: folder)
        let got = lyricEvents(render.events)
        XCTAssertEqual(got.map(\.timeMs), lines.map { max(0, $0.0 - 200) })
        XCTAssertEqual(got.map(\.positionMs), got.map(\.timeMs))
    }

    func testSeekWhilePausedGivesTheLineAtTheNewPlaceOnResume() throws {
        let render = try Render.run([item(try fixtures.path("long6"), lyrics: try lyricFile())], in: folder) { player, log in
            player.pause()
            XCTAssertTrue(log.wait { $0.contains { if case .paused = $0 { return true } else { return false } } })
            player.seek(.absolute(ms: 3_000))
            XCTAssertTrue(log.wait { $0.contains(.seeked(ms: 3_000)) })
            player.resume()
        }
        let events = render.events
        guard let pausedAt = events.firstIndex(where: { if case .paused = $0 { return true } else { return false } }),
              let resumedAt = events.firstIndex(where: { if case .resumed = $0 { return true } else { return false } }) else {
            return XCTFail("no pause/resume in \(events)")
        }
        XCTAssertTrue(lyricEvents(Array(events[pausedAt..<resumedAt])).isEmpty, "no lyric while paused")
        let after = lyricEvents(Array(events[resumedAt...]))
        XCTAssertEqual(after.first?.index, 3, "the line showing at 3.000 s")
        XCTAssertEqual(after.first?.text, "Two again")
        XCTAssertEqual(after.first?.positionMs, 3_000)
        XCTAssertEqual(after.dropFirst().map(\.index), [4, 5])
        XCTAssertEqual(after.dropFirst().map(\.positionMs), [3999, 5007])
    }

    func testSeekWhilePlayingGivesTheLineAtOnce() throws {
        let log = EventLog()
        let player = Player(output: LibaoOutput(.null), onEvent: { log.append($0) })
        player.play([item(try fixtures.path("long6"), lyrics: try lyricFile())])
        XCTAssertTrue(log.wait { $0.contains(.position(ms: 250)) })
        player.seek(.absolute(ms: 4_100))
        XCTAssertTrue(log.wait { events in
            guard let seek = events.firstIndex(of: .seeked(ms: 4_100)) else { return false }
            return !self.lyricEvents(Array(events[seek...])).isEmpty
        })
        player.stop()
        XCTAssertTrue(player.waitUntilFinished(timeout: 10))
        player.shutdown()
        let events = log.events
        guard let seek = events.firstIndex(of: .seeked(ms: 4_100)) else { return XCTFail("no seek") }
        let first = lyricEvents(Array(events[seek...])).first
        XCTAssertEqual(first?.index, 4)
        XCTAssertEqual(first?.positionMs, 4_100)
        XCTAssertEqual(player.snapshot().state, .stopped)
    }

    func testSnapshotShowsTheCurrentLine() throws {
        let log = EventLog()
        let out = folder.path("snap.raw")
        let player = Player(output: RawFileOutput(path: out), onEvent: { log.append($0) })
        player.play([item(try fixtures.path("long6"), lyrics: try lyricFile())])
        player.pause()
        XCTAssertTrue(log.wait { $0.contains { if case .paused = $0 { return true } else { return false } } })
        player.seek(.absolute(ms: 1_500))
        player.resume()
        player.pause()
        XCTAssertTrue(log.wait { $0.filter { if case .paused = $0 { return true } else { return false } }.count == 2 || $0.contains(.queueFinished) })
        let snapshot = player.snapshot()
        // The thread may have rendered to the end before the second pause (no pacing): nothing to look at then.
        guard snapshot.state == .paused else { return }
        // Somewhere between 1.5 s and the end: the line must be the one for that position.
        let expected = lines.lastIndex { $0.0 <= snapshot.positionMs }
        XCTAssertEqual(snapshot.lyricLineIndex, expected)
        XCTAssertEqual(snapshot.lyricText, expected.map { lines[$0].1 })
        player.shutdown()
    }
}
