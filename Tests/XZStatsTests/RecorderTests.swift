import GRDB
import XCTest
import XZCatalogue
@testable import XZStats

/// The recorder's writes: at begin, every 10 s of audio, at the count moment and at the end.
final class RecorderTests: XCTestCase {
    func testWritesAtBeginCheckpointsCountAndEnd() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "晴天", "周杰伦", 31_000)])
        let recorder = fixture.recorder
        let started = fixture.clock.now
        let id = try XCTUnwrap(try recorder.begin(song: try fixture.song("src:1")))
        var row = try fixture.row(id)
        XCTAssertEqual(row["song_key"], "src:1")
        XCTAssertEqual(row["title"], "晴天")
        XCTAssertEqual(row["singer"], "周杰伦")
        XCTAssertEqual(row["started_at"], UTCTime.string(started))
        XCTAssertEqual(row["duration_ms"], 31_000)
        XCTAssertEqual(row["played_ms"], 0)
        XCTAssertNil(row["end_reason"] as String?)

        func tick(_ ms: Int) throws {
            fixture.clock.advance(ms: 500)
            try recorder.handle(.position(ms: ms))
        }
        for ms in stride(from: 500, through: 9_500, by: 500) { try tick(ms) }
        XCTAssertEqual(try fixture.row(id)["played_ms"], 0, "no write before 10 s of audio")
        try tick(10_000)
        XCTAssertEqual(try fixture.row(id)["played_ms"], 10_000)
        for ms in stride(from: 10_500, through: 15_000, by: 500) { try tick(ms) }
        row = try fixture.row(id)
        XCTAssertEqual(row["played_ms"], 10_000)
        XCTAssertEqual(row["counted"], false)
        try tick(15_500)
        row = try fixture.row(id)
        XCTAssertEqual(row["counted"], true, "written the moment it counts")
        XCTAssertEqual(row["played_ms"], 15_500)
        XCTAssertEqual(row["counted_at"], UTCTime.string(UTCTime.truncated(fixture.clock.now)))
        XCTAssertEqual(try fixture.store.plays(songKey: "src:1"), 1, "counted while still playing")
        XCTAssertEqual(recorder.currentSessionId, id)

        try recorder.handle(.paused)
        try recorder.handle(.resumed)
        try tick(16_000)
        try recorder.end(reason: .completed, positionMs: 16_000)
        row = try fixture.row(id)
        XCTAssertEqual(row["end_reason"], "completed")
        XCTAssertEqual(row["played_ms"], 16_000)
        XCTAssertEqual(row["position_ms"], 16_000)
        XCTAssertNil(recorder.currentSessionId)
        XCTAssertEqual(recorder.currentTracker?.isEnded, true)
        // Inputs after the end change nothing.
        try recorder.handle(.position(ms: 30_000))
        XCTAssertEqual(try fixture.row(id)["played_ms"], 16_000)
    }

    func testRepeatOneRecordsEachPass() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "Loop", "Singer", 40_000)])
        let song = try fixture.song("src:1")
        for _ in 0..<3 { try fixture.play(song, playedMs: 40_000) }
        XCTAssertEqual(try fixture.store.plays(songKey: "src:1"), 3)
        XCTAssertEqual(try fixture.store.history(limit: 10).map(\.endReason), [.completed, .completed, .completed])
    }

    func testBeginClosesASessionLeftOpenAsStopped() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "A", "Singer", 200_000), ("2", "B", "Singer", 200_000)])
        let first = try XCTUnwrap(try fixture.recorder.begin(song: try fixture.song("src:1")))
        for ms in stride(from: 1000, through: 7000, by: 1000) { try fixture.recorder.handle(.position(ms: ms)) }
        let second = try fixture.recorder.begin(song: try fixture.song("src:2"))
        XCTAssertNotEqual(first, second)
        let row = try fixture.row(first)
        XCTAssertEqual(row["end_reason"], "stopped")
        XCTAssertEqual(row["played_ms"], 7_000)
        XCTAssertEqual(row["skip"], false)
        XCTAssertEqual(fixture.recorder.currentSessionId, second)
    }

    func testInputsWithoutASessionAreIgnored() throws {
        let fixture = try StatsFixture()
        try fixture.recorder.handle(.position(ms: 5000))
        try fixture.recorder.end(reason: .completed, positionMs: 5000)
        XCTAssertEqual(try fixture.store.history(limit: 5), [])
    }

    func testSongsOutsideTheCatalogueCanBeRecordedByKey() throws {
        let fixture = try StatsFixture()
        try fixture.recorder.begin(songKey: "file:/music/x.mp3", title: "X", singer: "Y", durationMs: nil)
        for ms in stride(from: 1000, through: 240_000, by: 1000) { try fixture.recorder.handle(.position(ms: ms)) }
        try fixture.recorder.end(reason: .quit, positionMs: 240_000)
        let session = try XCTUnwrap(try fixture.store.history(limit: 1).first)
        XCTAssertEqual(session.counted, true, "an unknown length counts after 4 minutes")
        XCTAssertNil(session.songId)
        XCTAssertEqual(session.endReason, .quit)
    }
}
