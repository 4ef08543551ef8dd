import Foundation
import XCTest
import XZPlaybackEngine
import XZPlaybackValues
import XZTestSupport

/// What each action reports as changed: noted by the state machine where it applies the action, and sent by
/// the player as `.changed` events in order with the others.
final class PlayerChangesTests: XCTestCase {
    private let items = (0..<4).map { QueueItem(path: "/music/\($0).mp3", title: "Song \($0)") }

    private func playing() -> PlayerStateMachine {
        var machine = PlayerStateMachine(seed: 1)
        _ = machine.play(items)
        _ = machine.takeChanges()
        return machine
    }

    // MARK: State machine

    func testInsertChangesTheQueueOnly() {
        var machine = PlayerStateMachine(seed: 1)
        _ = machine.insert(items, at: nil)
        // Idle to stopped: nothing plays either way.
        XCTAssertEqual(machine.takeChanges(), .queue)
        XCTAssertEqual(machine.takeChanges(), [], "taken once")
        _ = machine.insert([items[0]], at: 1)
        XCTAssertEqual(machine.takeChanges(), .queue)
        _ = machine.insert([], at: 0)
        XCTAssertEqual(machine.takeChanges(), [])
    }

    func testClear() {
        var machine = PlayerStateMachine(seed: 1)
        _ = machine.clear()
        XCTAssertEqual(machine.takeChanges(), [], "an empty queue stays empty")
        _ = machine.add(items)
        _ = machine.takeChanges()
        _ = machine.clear()
        XCTAssertEqual(machine.takeChanges(), .queue)

        var active = playing()
        _ = active.clear()
        XCTAssertEqual(active.takeChanges(), [.queue, .playback])
    }

    func testMoveChangesTheQueueNotTheSong() {
        var machine = playing()
        XCTAssertTrue(machine.move(range: 0..<1, to: 2))
        XCTAssertEqual(machine.currentIndex, 2)
        XCTAssertEqual(machine.takeChanges(), .queue)
        XCTAssertFalse(machine.move(range: 3..<5, to: 0))
        XCTAssertEqual(machine.takeChanges(), [])
    }

    func testVolumeChangesOnlyWhenItDiffers() {
        var machine = PlayerStateMachine(seed: 1)
        machine.setVolume(100)
        XCTAssertEqual(machine.takeChanges(), [], "already 100")
        machine.setVolume(40)
        XCTAssertEqual(machine.takeChanges(), .volume)
        machine.setVolume(40)
        XCTAssertEqual(machine.takeChanges(), [])
        machine.setVolume(140)
        XCTAssertEqual(machine.volume, 100)
        XCTAssertEqual(machine.takeChanges(), .volume)
        machine.setVolume(120)
        XCTAssertEqual(machine.takeChanges(), [], "clamped to the same 100")
    }

    func testOptions() {
        var machine = PlayerStateMachine(seed: 1)
        machine.setRepeats(true)
        XCTAssertEqual(machine.takeChanges(), .options)
        machine.setRepeats(true)
        XCTAssertEqual(machine.takeChanges(), [])
        machine.setRepeat(.one)
        XCTAssertEqual(machine.takeChanges(), .options)
        XCTAssertTrue(machine.repeats)
        XCTAssertEqual(machine.single, .on)
        machine.setRepeat(.one)
        XCTAssertEqual(machine.takeChanges(), [])
        machine.setConsume(true)
        machine.setShuffle(true)
        XCTAssertEqual(machine.takeChanges(), .options)
        machine.setReplayGain(ReplayGainSettings(mode: .track))
        XCTAssertEqual(machine.takeChanges(), .options)
        machine.setReplayGain(ReplayGainSettings(mode: .track, preampDB: 3))
        XCTAssertEqual(machine.takeChanges(), [], "only the mode is an MPD option")
    }

    func testPlayPauseStop() {
        var machine = PlayerStateMachine(seed: 1)
        _ = machine.play(items)
        XCTAssertEqual(machine.takeChanges(), [.queue, .playback])
        _ = machine.togglePause()
        XCTAssertEqual(machine.takeChanges(), .playback)
        _ = machine.togglePause()
        XCTAssertEqual(machine.takeChanges(), .playback)
        _ = machine.stop()
        XCTAssertEqual(machine.takeChanges(), .playback)
        _ = machine.stop()
        XCTAssertEqual(machine.takeChanges(), [], "already stopped")
        _ = machine.togglePause()
        XCTAssertEqual(machine.takeChanges(), .playback, "a stopped queue starts again")
    }

    func testSongEndingAndNextStarting() {
        var machine = PlayerStateMachine(seed: 1)
        _ = machine.play(Array(items.prefix(2)))
        _ = machine.takeChanges()
        _ = machine.trackEnded(generation: 1)
        XCTAssertEqual(machine.currentIndex, 1)
        XCTAssertEqual(machine.takeChanges(), .playback, "the next song")
        _ = machine.trackEnded(generation: 1)
        XCTAssertEqual(machine.takeChanges(), [], "a stale outcome changes nothing")
        _ = machine.trackEnded(generation: 2)
        XCTAssertEqual(machine.state, .stopped)
        XCTAssertEqual(machine.takeChanges(), .playback, "the queue ran out")
    }

    func testRepeatingOneSongStartsItAgain() {
        var machine = playing()
        machine.setRepeat(.one)
        _ = machine.takeChanges()
        _ = machine.trackEnded(generation: 1)
        XCTAssertEqual(machine.currentIndex, 0)
        XCTAssertEqual(machine.takeChanges(), .playback)
    }

    func testSingleOneshotTurnsItselfOff() {
        var machine = playing()
        machine.setSingle(.oneshot)
        _ = machine.takeChanges()
        _ = machine.trackEnded(generation: 1)
        XCTAssertEqual(machine.takeChanges(), [.playback, .options])
    }

    // MARK: Player events

    func testCommandsReportTheirChangesInOrder() throws {
        let log = EventLog()
        let player = Player(output: LibaoOutput(.null), onEvent: { log.append($0) })
        defer { player.shutdown() }
        player.insert(items, at: nil)
        player.setVolume(100)
        player.setVolume(40)
        player.setRepeats(true)
        player.setRepeats(true)
        player.move(range: 0..<1, to: 2)
        player.clearQueue()
        // The audio thread has passed on everything once it is idle with an empty mailbox.
        XCTAssertTrue(player.waitUntilFinished(timeout: 20))
        XCTAssertEqual(log.events, [.changed(.queue), .changed(.volume), .changed(.options), .changed(.queue),
                                    .changed(.queue)])
    }

    func testPlayPauseStopReportPlaybackBeforeTheirEvents() throws {
        let path = try PlaybackFixtures.shared().path("long6")
        let log = EventLog()
        let player = Player(output: LibaoOutput(.null), onEvent: { log.append($0) })
        defer { player.shutdown() }
        player.play([item(path)])
        XCTAssertTrue(log.wait { $0.contains { if case .started = $0 { return true } else { return false } } })
        player.pause()
        XCTAssertTrue(log.wait { $0.contains { if case .paused = $0 { return true } else { return false } } })
        player.resume()
        XCTAssertTrue(log.wait { $0.contains { if case .resumed = $0 { return true } else { return false } } })
        player.stop()
        XCTAssertTrue(player.waitUntilFinished(timeout: 20))
        let kinds = log.events.compactMap { event -> String? in
            switch event {
            case .changed(let changes): return changes == [.queue, .playback] ? "queue+playback" : changes == .playback ? "playback" : "\(changes)"
            case .started: return "started"
            case .paused: return "paused"
            case .resumed: return "resumed"
            case .ended(_, let reason, _): return "ended \(reason)"
            default: return nil
            }
        }
        XCTAssertEqual(kinds, ["queue+playback", "started", "playback", "paused", "playback", "resumed",
                               "playback", "ended stopped"])
    }

    func testSongEndingAndNextStartingReportPlayback() throws {
        let fixtures = try PlaybackFixtures.shared()
        let first = try fixtures.path("cbr44b"), second = try fixtures.path("mono22")
        let folder = try TemporaryFolder("playback-changes")
        let render = try Render.run([item(first), item(second)], in: folder)
        XCTAssertEqual(render.changes, [[.queue, .playback], .playback, .playback])
        let endedFirst = render.events.firstIndex {
            if case .ended(let item, .completed, _) = $0 { return item.path == first } else { return false }
        }
        let startedSecond = render.events.firstIndex {
            if case .started(let item, _) = $0 { return item.path == second } else { return false }
        }
        let endedSecond = render.events.firstIndex {
            if case .ended(let item, .completed, _) = $0 { return item.path == second } else { return false }
        }
        let (a, b, c) = (try XCTUnwrap(endedFirst), try XCTUnwrap(startedSecond), try XCTUnwrap(endedSecond))
        XCTAssertEqual(render.events[a + 1], .changed(.playback), "the next song, between the end and the start")
        XCTAssertLessThan(a + 1, b)
        XCTAssertEqual(render.events[c + 1], .changed(.playback), "the queue ran out")
        XCTAssertEqual(render.events.last, .queueFinished)
    }
}
