import XCTest
@testable import XZPlaybackEngine
import XZPlaybackValues

/// PlayerStateMachine one transition at a time; no I/O.
final class StateMachineTests: XCTestCase {
    private typealias Effect = PlayerStateMachine.Effect

    private let items = (0..<4).map { QueueItem(path: "/music/\($0).mp3", title: "Song \($0)") }

    /// The queue index a `.start` effect starts, with the generation it carries.
    private func started(_ effects: [Effect]) -> [Int] {
        effects.compactMap { if case .start(let start) = $0 { return start.index } else { return nil } }
    }

    private func playing(_ startAt: Int = 0, seed: UInt64 = 1) -> PlayerStateMachine {
        var machine = PlayerStateMachine(seed: seed)
        _ = machine.play(items, startingAt: startAt)
        return machine
    }

    func testStartsIdle() {
        let machine = PlayerStateMachine(seed: 1)
        XCTAssertEqual(machine.state, .idle)
        XCTAssertNil(machine.currentIndex)
        XCTAssertEqual(RepeatMode(repeats: machine.repeats, single: machine.single), .off)
        XCTAssertFalse(machine.shuffle)
    }

    func testPlayFromIdle() {
        var machine = PlayerStateMachine(seed: 1)
        let effects = machine.play(items)
        XCTAssertEqual(effects, [.start(.init(index: 0, item: items[0], generation: 1))])
        XCTAssertEqual(machine.state, .playing)
        XCTAssertEqual(machine.currentIndex, 0)
        XCTAssertEqual(machine.order, [0, 1, 2, 3])
    }

    func testPlayWhilePlayingEndsTheOldTrackFirst() {
        var machine = playing()
        let effects = machine.play(Array(items.prefix(2)), startingAt: 1)
        XCTAssertEqual(effects, [.end(.skipped), .start(.init(index: 1, item: items[1], generation: 2))])
        XCTAssertEqual(machine.queue.count, 2)
    }

    func testPlayEmptyStops() {
        var machine = playing()
        XCTAssertEqual(machine.play([]), [.end(.stopped), .release])
        XCTAssertEqual(machine.state, .idle)
    }

    func testTogglePause() {
        var machine = playing()
        XCTAssertEqual(machine.togglePause(), [.pause])
        XCTAssertEqual(machine.state, .paused)
        XCTAssertEqual(machine.togglePause(), [.resume])
        XCTAssertEqual(machine.state, .playing)
    }

    func testToggleWhenIdleDoesNothing() {
        var machine = PlayerStateMachine(seed: 1)
        XCTAssertEqual(machine.togglePause(), [])
        XCTAssertEqual(machine.state, .idle)
    }

    func testStopKeepsQueueAndToggleRestartsCurrent() {
        var machine = playing(2)
        XCTAssertEqual(machine.stop(), [.end(.stopped), .release])
        XCTAssertEqual(machine.state, .stopped)
        XCTAssertEqual(machine.currentIndex, 2)
        XCTAssertEqual(machine.stop(), [], "stopping twice does nothing")
        XCTAssertEqual(started(machine.togglePause()), [2])
        XCTAssertEqual(machine.state, .playing)
    }

    func testAddDoesNotStart() {
        var machine = PlayerStateMachine(seed: 1)
        XCTAssertEqual(machine.add(items), [])
        XCTAssertEqual(machine.state, .stopped)
        XCTAssertNil(machine.currentIndex)
        XCTAssertEqual(started(machine.togglePause()), [0])
    }

    func testTrackEndedAdvancesAndFinishes() {
        var machine = playing(2)
        XCTAssertEqual(started(machine.trackEnded(generation: 1)), [3])
        XCTAssertEqual(machine.trackEnded(generation: 2), [.queueFinished])
        XCTAssertEqual(machine.state, .stopped)
        XCTAssertNil(machine.currentIndex)
    }

    func testStaleTrackEndIsIgnored() {
        var machine = playing()
        _ = machine.next()  // generation 2
        XCTAssertEqual(machine.trackEnded(generation: 1), [])
        XCTAssertEqual(machine.currentIndex, 1)
    }

    func testNext() {
        var machine = playing()
        XCTAssertEqual(machine.next(), [.end(.skipped), .start(.init(index: 1, item: items[1], generation: 2))])
        var last = playing(3)
        XCTAssertEqual(last.next(), [.end(.skipped), .queueFinished])
        XCTAssertEqual(last.state, .stopped)
        XCTAssertEqual(last.next(), [.start(.init(index: 0, item: items[0], generation: 2))], "after the end, next starts over")
    }

    func testNextWhilePausedPlays() {
        var machine = playing()
        _ = machine.togglePause()
        XCTAssertEqual(started(machine.next()), [1])
        XCTAssertEqual(machine.state, .playing)
    }

    func testPreviousGoesBackAndRestartsTheFirst() {
        var machine = playing(2)
        XCTAssertEqual(machine.previous(), [.end(.skipped), .start(.init(index: 1, item: items[1], generation: 2))])
        XCTAssertEqual(started(machine.previous()), [0])
        XCTAssertEqual(started(machine.previous()), [0], "the first item restarts")
    }

    func testPreviousWrapsWithRepeatAll() {
        var machine = playing()
        machine.setRepeat(.all)
        XCTAssertEqual(started(machine.previous()), [3])
    }

    func testRepeatOne() {
        var machine = playing(1)
        machine.setRepeat(.one)
        XCTAssertEqual(started(machine.trackEnded(generation: 1)), [1])
        XCTAssertEqual(started(machine.trackEnded(generation: 2)), [1])
        XCTAssertEqual(started(machine.next()), [2], "a manual next still moves on")
    }

    func testRepeatAllWraps() {
        var machine = playing(3)
        machine.setRepeat(.all)
        XCTAssertEqual(started(machine.trackEnded(generation: 1)), [0])
        XCTAssertEqual(machine.state, .playing)
        XCTAssertEqual(started(machine.next()), [1])
    }

    func testRepeatOneDoesNotRetryAFailure() {
        var machine = playing(1)
        machine.setRepeat(.one)
        XCTAssertEqual(started(machine.trackFailed(generation: 1)), [2])
    }

    func testEveryItemFailingStopsEvenWithRepeatAll() {
        var machine = playing()
        machine.setRepeat(.all)
        for generation in 1...3 {
            XCTAssertEqual(started(machine.trackFailed(generation: generation)), [generation % 4])
        }
        XCTAssertEqual(machine.trackFailed(generation: 4), [.queueUnplayable])
        XCTAssertEqual(machine.state, .stopped)
    }

    func testAPassThatFailsOnlyAfterAPlayGoesOn() {
        var machine = playing()
        machine.setRepeat(.all)
        XCTAssertEqual(started(machine.trackFailed(generation: 1)), [1])
        XCTAssertEqual(started(machine.trackEnded(generation: 2)), [2])
        XCTAssertEqual(started(machine.trackFailed(generation: 3)), [3])
        XCTAssertEqual(started(machine.trackFailed(generation: 4)), [0], "one track played since the last pass began")
        XCTAssertEqual(started(machine.trackFailed(generation: 5)), [1])
        XCTAssertEqual(machine.trackFailed(generation: 6), [.queueUnplayable], "then a whole pass failed")
    }

    func testEveryItemFailingWithoutRepeatIsTheQueueRunningOut() {
        var machine = playing()
        for generation in 1...3 { _ = machine.trackFailed(generation: generation) }
        XCTAssertEqual(machine.trackFailed(generation: 4), [.queueFinished])
    }

    func testOutputFailureStopsTheQueue() {
        var machine = playing()
        machine.setRepeat(.all)
        XCTAssertEqual(machine.outputFailed(generation: 0), [], "stale")
        XCTAssertEqual(machine.outputFailed(generation: 1), [.queueFinished])
        XCTAssertEqual(machine.state, .stopped)
    }

    func testShuffleKeepsEveryItemOnce() {
        let many = (0..<20).map { QueueItem(path: "/m/\($0).mp3") }
        for seed in [1, 2, 3, 99] as [UInt64] {
            var machine = PlayerStateMachine(seed: seed)
            machine.setShuffle(true)
            var order = started(machine.play(many, startingAt: 5))
            XCTAssertEqual(order, [5], "the chosen item plays first")
            while true {
                let effects = machine.trackEnded(generation: machine.generation)
                if effects == [.queueFinished] { break }
                order += started(effects)
            }
            XCTAssertEqual(order.sorted(), Array(0..<20), "seed \(seed)")
            XCTAssertNotEqual(order, Array(5..<20) + Array(0..<5), "seed \(seed) shuffled")
        }
    }

    func testShuffleOnAndOff() {
        var machine = playing(2)
        machine.setShuffle(true)
        XCTAssertEqual(machine.order.first, 2, "current stays first")
        XCTAssertEqual(machine.order.sorted(), [0, 1, 2, 3])
        machine.setShuffle(false)
        XCTAssertEqual(machine.order, [0, 1, 2, 3])
        XCTAssertEqual(started(machine.next()), [3])
    }

    func testShuffledAddPlaysNewItemsOnce() {
        var machine = PlayerStateMachine(seed: 5)
        machine.setShuffle(true)
        var order = started(machine.play(items))
        order += started(machine.trackEnded(generation: machine.generation))
        _ = machine.add((4..<8).map { QueueItem(path: "/music/\($0).mp3") })
        while true {
            let effects = machine.trackEnded(generation: machine.generation)
            if effects == [.queueFinished] { break }
            order += started(effects)
        }
        XCTAssertEqual(order.sorted(), Array(0..<8))
    }

    func testRemoveBeforeCurrentShiftsIndex() {
        var machine = playing(2)
        XCTAssertEqual(machine.remove(at: 0), [])
        XCTAssertEqual(machine.currentIndex, 1)
        XCTAssertEqual(machine.current, items[2])
        XCTAssertNil(machine.remove(at: 9))
    }

    func testRemoveCurrentSkipsToTheNext() {
        var machine = playing(1)
        XCTAssertEqual(machine.remove(at: 1), [.end(.skipped), .start(.init(index: 1, item: items[2], generation: 2))])
        var last = playing(3)
        XCTAssertEqual(last.remove(at: 3), [.end(.skipped), .queueFinished])
        XCTAssertEqual(last.state, .stopped)
    }

    func testRemoveLastItemMakesIdle() {
        var machine = PlayerStateMachine(seed: 1)
        _ = machine.add([items[0]])
        XCTAssertEqual(machine.remove(at: 0), [])
        XCTAssertEqual(machine.state, .idle)
    }

    func testClear() {
        var machine = playing()
        XCTAssertEqual(machine.clear(), [.end(.stopped), .release])
        XCTAssertEqual(machine.state, .idle)
        XCTAssertTrue(machine.queue.isEmpty)
        XCTAssertEqual(machine.clear(), [])
    }

    func testPlayItemAt() {
        var machine = playing()
        XCTAssertEqual(started(machine.playItem(at: 3) ?? []), [3])
        XCTAssertNil(machine.playItem(at: 4))
    }
}
