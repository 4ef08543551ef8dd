import Foundation
import GRDB
import XCTest
import XZCatalogue
import XZTestSupport
@testable import XZStats

/// Each user's likes and plays are their own; the owner's are the ones the terminal, the player's
/// recorder, search popularity and MPD's stickers read.
final class PerUserStatsTests: XCTestCase {
    private let other = UserID(3)

    func testLikesAndPlaysOfAnotherUserStayTheirs() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "晴天", "周杰伦", 200_000), ("2", "十年", "陳奕迅", 180_000)])
        let owner = fixture.store
        let guest = StatsStore(database: fixture.database, user: other)
        try owner.like(songKey: "src:1", at: utc("2026-11-20T10:00:00Z"))
        try guest.like(songKey: "src:2", at: utc("2026-11-21T10:00:00Z"))
        XCTAssertTrue(try guest.like(songKey: "src:1", at: utc("2026-11-22T10:00:00Z")), "the owner's like is not the guest's")
        try fixture.play(try fixture.song("src:1"), playedMs: 120_000)
        try guest.recordPlay(songKey: "src:2", title: "十年", singer: "陳奕迅", durationMs: 180_000,
                             at: utc("2026-11-21T12:00:00Z"))

        XCTAssertEqual(try owner.liked().map(\.songKey), ["src:1"])
        XCTAssertEqual(try guest.liked().map(\.songKey), ["src:1", "src:2"])
        XCTAssertEqual(try owner.plays(songKey: "src:1"), 1)
        XCTAssertEqual(try guest.plays(songKey: "src:1"), 0)
        XCTAssertEqual(try guest.plays(songKey: "src:2"), 1)
        XCTAssertEqual(try owner.history(limit: 10).map(\.songKey), ["src:1"])
        XCTAssertEqual(try guest.history(limit: 10).map(\.songKey), ["src:2"])
        XCTAssertEqual(try owner.summary().plays, 1)
        XCTAssertEqual(try owner.summary().liked, 1)
        XCTAssertEqual(try guest.summary().topSongs.map(\.songKey), ["src:2"])
        XCTAssertEqual(try guest.summary().liked, 2)
        XCTAssertEqual(try guest.archive().likes.count, 2)
        XCTAssertEqual(try owner.archive().sessions.map(\.songKey), ["src:1"])

        XCTAssertTrue(try guest.unlike(songKey: "src:1"))
        XCTAssertTrue(try owner.isLiked(songKey: "src:1"), "the guest's unlike leaves the owner's like")
        XCTAssertFalse(try guest.isLiked(songKey: "src:1"))
    }

    func testStickersAndPopularityAreTheOwners() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "晴天", "周杰伦", 200_000)])
        let stickers = StickerStore(database: fixture.database)
        let guest = StatsStore(database: fixture.database, user: other)
        let version = { try fixture.database.pool.read { try Int.fetchOne($0, sql: "SELECT value FROM sticker_version") } }
        let before = try version()
        try guest.like(songKey: "src:1")
        try guest.recordPlay(songKey: "src:1", title: "晴天", singer: "周杰伦", durationMs: 200_000)
        XCTAssertNil(try stickers.value(songKey: "src:1", name: "like"))
        XCTAssertNil(try stickers.value(songKey: "src:1", name: "playcount"))
        XCTAssertNil(try stickers.value(songKey: "src:1", name: "lastplayed"))
        XCTAssertEqual(try version(), before, "MPD clients waiting on stickers are not woken by another user")
        let popularity = { try fixture.database.pool.read {
            try Row.fetchOne($0, sql: "SELECT plays, liked FROM song_popularity WHERE song_key = 'src:1'")
        } }
        XCTAssertEqual(try popularity().map { [$0[0], $0[1]] as [Int] } ?? [0, 0], [0, 0])

        try stickers.set(songKey: "src:1", name: "like", value: "1", title: "", singer: "")
        XCTAssertTrue(try fixture.store.isLiked(songKey: "src:1"), "an MPD like is the owner's")
        try fixture.play(try fixture.song("src:1"), playedMs: 120_000)
        XCTAssertEqual(try stickers.value(songKey: "src:1", name: "playcount"), "1")
        XCTAssertEqual(try popularity().map { [$0[0], $0[1]] as [Int] }, [1, 1])
        XCTAssertGreaterThan(try version() ?? 0, before ?? 0)
        XCTAssertEqual(try stickers.find(name: "like").map(\.songKey), ["src:1"])
    }

    func testRecordedPlaysAndBatchedReads() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "A", "S", 200_000), ("2", "B", "S", 200_000), ("3", "C", "T", 200_000)])
        let guest = StatsStore(database: fixture.database, user: other)
        let first = utc("2026-11-20T10:00:00Z"), second = utc("2026-11-21T10:00:00Z")
        try guest.recordPlay(songKey: "src:1", title: "A", singer: "S", durationMs: 200_000, at: first)
        try guest.recordPlay(songKey: "src:1", title: "A", singer: "S", durationMs: 200_000, at: second)
        try guest.recordPlay(songKey: "src:2", title: "B", singer: "S", durationMs: nil, at: first)
        try guest.like(songKey: "src:3", at: second)

        let history = try guest.history(limit: 10)
        XCTAssertEqual(history.map(\.songKey), ["src:1", "src:2", "src:1"], "newest first; at the same time, last recorded first")
        XCTAssertEqual(history.first?.startedAt, second)
        XCTAssertEqual(history.first?.endReason, .completed)
        XCTAssertTrue(history.allSatisfy(\.counted))
        XCTAssertEqual(history.first?.playedMs, 200_000)

        // Many keys, repeated and unknown, read across several statements.
        let keys = ["src:1", "src:2", "src:3", "src:1"] + (0..<1_200).map { "unknown:\($0)" }
        XCTAssertEqual(try guest.playCounts(songKeys: keys), ["src:1": 2, "src:2": 1])
        XCTAssertEqual(try guest.lastPlayed(songKeys: keys), ["src:1": second, "src:2": first])
        XCTAssertEqual(try guest.likedAt(songKeys: keys), ["src:3": second])
        XCTAssertEqual(try guest.playCounts(songKeys: []), [:])
        XCTAssertEqual(try fixture.store.playCounts(songKeys: keys), [:], "the owner played nothing")

        let top = try guest.mostPlayed(limit: 5)
        XCTAssertEqual(top.map(\.songKey), ["src:1", "src:2"])
        XCTAssertEqual(top.map(\.plays), [2, 1])
        XCTAssertEqual(top.first?.id, try fixture.song("src:1").id)
        XCTAssertEqual(try guest.mostPlayed(limit: 1).count, 1)
        XCTAssertEqual(try guest.mostPlayed(limit: -4).count, 0)
    }
}
