import XCTest
@testable import XZPlaybackEngine
import XZPlaybackValues

/// The MPD side of the queue: ids, versions, moves, consume and single, one transition at a time.
final class QueueEditingTests: XCTestCase {
    private typealias Effect = PlayerStateMachine.Effect

    private let items = (0..<5).map { QueueItem(path: "/music/\($0).mp3", title: "Song \($0)") }

    private func titles(_ machine: PlayerStateMachine) -> [String] { machine.queue.map(\.title) }

    private func startedTitle(_ effects: [Effect]) -> String? {
        effects.lazy.compactMap { if case .start(let start) = $0 { return start.item.title } else { return nil } }.first
    }

    func testIdsStayWithEntriesAndVersionsMarkWhatMoved() {
        var machine = PlayerStateMachine(seed: 1)
        let ids = machine.insert(items, at: nil)
        XCTAssertEqual(Set(ids).count, 5)
        let before = machine.version
        XCTAssertTrue(machine.move(range: 0..<2, to: 3))
        XCTAssertEqual(titles(machine), ["Song 2", "Song 3", "Song 4", "Song 0", "Song 1"])
        XCTAssertEqual(machine.entries.map(\.id), [ids[2], ids[3], ids[4], ids[0], ids[1]])
        XCTAssertGreaterThan(machine.version, before)
        XCTAssertTrue(machine.entries.allSatisfy { $0.version > before }, "every entry changed place")
        let afterMove = machine.version
        XCTAssertTrue(machine.swap(0, 4))
        XCTAssertEqual(machine.entries.filter { $0.version > afterMove }.map(\.item.title), ["Song 1", "Song 2"])
        XCTAssertFalse(machine.move(range: 3..<6, to: 0), "a range past the end")
        XCTAssertFalse(machine.swap(0, 9))
        let inserted = machine.insert([QueueItem(path: "/x.mp3", title: "New")], at: 1)
        XCTAssertEqual(machine.index(ofId: inserted[0]), 1)
        XCTAssertEqual(titles(machine)[1], "New")
    }

    func testRemovingARangeWithTheCurrentSongMovesPastIt() {
        var machine = PlayerStateMachine(seed: 1)
        _ = machine.play(items, startingAt: 1)
        let effects = machine.remove(range: 1..<3)
        XCTAssertEqual(effects?.first, .end(.skipped))
        XCTAssertEqual(effects.flatMap(startedTitle), "Song 3")
        XCTAssertEqual(titles(machine), ["Song 0", "Song 3", "Song 4"])
        XCTAssertEqual(machine.currentIndex, 1)
        XCTAssertNil(machine.remove(range: 2..<9))
    }

    func testConsumeRemovesWhatPlayed() {
        var machine = PlayerStateMachine(seed: 1)
        _ = machine.play(items)
        machine.setConsume(true)
        let ended = machine.trackEnded(generation: machine.generation)
        XCTAssertEqual(startedTitle(ended), "Song 1")
        XCTAssertEqual(titles(machine), ["Song 1", "Song 2", "Song 3", "Song 4"])
        let skipped = machine.next()
        XCTAssertEqual(startedTitle(skipped), "Song 2")
        XCTAssertEqual(titles(machine).first, "Song 2", "a skipped song is consumed too")
        _ = machine.playItem(at: 2)
        XCTAssertEqual(titles(machine), ["Song 2", "Song 3", "Song 4"], "choosing another song consumes nothing")
        XCTAssertEqual(machine.current?.title, "Song 4")
    }

    func testSinglePausesAtTheNextSongAndOneshotOnlyOnce() {
        var machine = PlayerStateMachine(seed: 1)
        _ = machine.play(items)
        machine.setSingle(.oneshot)
        let ended = machine.trackEnded(generation: machine.generation)
        XCTAssertEqual(startedTitle(ended), "Song 1")
        XCTAssertEqual(ended.last, .pause)
        XCTAssertEqual(machine.state, .paused)
        XCTAssertEqual(machine.currentIndex, 1, "paused at the start of the next song, as MPD")
        XCTAssertEqual(machine.single, .off, "oneshot is spent")
        _ = machine.togglePause()
        XCTAssertEqual(startedTitle(machine.trackEnded(generation: machine.generation)), "Song 2")
        machine.setSingle(.on)
        machine.setRepeats(true)
        XCTAssertEqual(RepeatMode(repeats: machine.repeats, single: machine.single), .one)
        XCTAssertEqual(startedTitle(machine.trackEnded(generation: machine.generation)), "Song 2", "single + repeat replays")
        machine.setRepeats(false)
        _ = machine.playItem(at: 4)
        XCTAssertEqual(machine.trackEnded(generation: machine.generation), [.queueFinished], "single after the last song")
        XCTAssertEqual(machine.state, .stopped)
        XCTAssertNil(machine.currentIndex)
    }

    func testARangeIsSetOnAnEntryThatIsNotPlaying() {
        var machine = PlayerStateMachine(seed: 1)
        _ = machine.play(items)
        let part = PlayRange(startMs: 500, endMs: 1500)
        XCTAssertEqual(machine.setRange(part, id: machine.entries[0].id), .playing)
        XCTAssertNil(machine.entries[0].item.range)
        let version = machine.version
        XCTAssertEqual(machine.setRange(part, id: machine.entries[1].id), .set)
        XCTAssertEqual(machine.entries[1].item.range, part)
        XCTAssertGreaterThan(machine.version, version)
        XCTAssertEqual(machine.entries[1].version, machine.version, "plchanges lists the edited entry")
        XCTAssertEqual(machine.setRange(PlayRange(startMs: 0, endMs: nil), id: machine.entries[1].id), .set)
        XCTAssertNil(machine.entries[1].item.range, "the whole song is no part")
        XCTAssertEqual(machine.setRange(part, id: 999), .noSuchEntry)
    }

    func testPriorityPlaysSoonerInRandomMode() {
        var machine = PlayerStateMachine(seed: 3)
        _ = machine.play(items)
        machine.setShuffle(true)
        XCTAssertTrue(machine.setPriority(200, at: [4]))
        XCTAssertEqual(machine.entries[4].priority, 200)
        XCTAssertEqual(machine.nextIndex, 4)
        XCTAssertFalse(machine.setPriority(1, at: [7]))
    }

    func testShuffleQueueKeepsEveryEntry() {
        var machine = PlayerStateMachine(seed: 5)
        _ = machine.insert(items, at: nil)
        let ids = machine.entries.map(\.id)
        XCTAssertTrue(machine.shuffleQueue(range: 0..<5))
        XCTAssertEqual(Set(machine.entries.map(\.id)), Set(ids))
        XCTAssertEqual(machine.order, [0, 1, 2, 3, 4], "without random mode the queue order is the play order")
    }
}
