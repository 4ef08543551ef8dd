import Foundation
import XCTest
import XZCatalogue
import XZTestSupport
@testable import XZStats

/// Stickers over a real library database: stored ones, rating's range, and the statistics that read as
/// stickers (like settable, the counts read-only), all kept by song_key across a re-import.
final class StickerStoreTests: XCTestCase {
    func testSetGetListDeleteAndRating() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "晴天", "周杰伦", 269_000), ("2", "十年", "陳奕迅", 205_000)])
        let stickers = StickerStore(database: fixture.database)
        XCTAssertNil(try stickers.value(songKey: "src:1", name: "mood"))
        try stickers.set(songKey: "src:1", name: "mood", value: "sunny day", title: "", singer: "")
        try stickers.set(songKey: "src:1", name: "mood", value: "rain", title: "", singer: "")
        try stickers.set(songKey: "src:1", name: "a=b", value: "c", title: "", singer: "")
        XCTAssertEqual(try stickers.value(songKey: "src:1", name: "mood"), "rain", "set replaces")
        try stickers.set(songKey: "src:1", name: "rating", value: "08", title: "", singer: "")
        XCTAssertEqual(try stickers.value(songKey: "src:1", name: "rating"), "8")
        for bad in ["11", "-1", "4.5", "", "ten", "+3", "٣"] {
            XCTAssertThrowsError(try stickers.set(songKey: "src:1", name: "rating", value: bad, title: "", singer: ""), bad) {
                XCTAssertEqual($0 as? StatsError, .stickerRefused)
            }
        }
        XCTAssertEqual(try stickers.all(songKey: "src:1").map { "\($0.name)=\($0.value)" }, ["a=b=c", "mood=rain", "rating=8"])

        try stickers.delete(songKey: "src:1", name: "mood")
        XCTAssertThrowsError(try stickers.delete(songKey: "src:1", name: "mood")) {
            XCTAssertEqual($0 as? StatsError, .noSuchSticker)
        }
        try stickers.delete(songKey: "src:1", name: nil)
        XCTAssertEqual(try stickers.all(songKey: "src:1").count, 0)
        XCTAssertThrowsError(try stickers.delete(songKey: "src:2", name: nil), "nothing to delete") {
            XCTAssertEqual($0 as? StatsError, .noSuchSticker)
        }
    }

    func testStatisticsReadAsStickers() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "晴天", "周杰伦", 200_000), ("2", "十年", "陳奕迅", 200_000)])
        let stickers = StickerStore(database: fixture.database)
        let song = try fixture.song("src:1")
        let firstStart = fixture.clock.now
        try fixture.play(song, playedMs: 120_000)
        let secondStart = fixture.clock.now
        try fixture.play(song, playedMs: 110_000)
        try fixture.play(song, playedMs: 8_000, reason: .skipped)
        XCTAssertLessThan(firstStart, secondStart)

        XCTAssertEqual(try stickers.value(songKey: "src:1", name: "playcount"), "2")
        XCTAssertEqual(try stickers.value(songKey: "src:1", name: "skipcount"), "1")
        XCTAssertEqual(try stickers.value(songKey: "src:1", name: "lastplayed"),
                       String(Int(secondStart.timeIntervalSince1970)), "the latest counted play")
        XCTAssertNil(try stickers.value(songKey: "src:2", name: "playcount"))
        for name in ["playcount", "skipcount", "lastplayed"] {
            XCTAssertThrowsError(try stickers.set(songKey: "src:1", name: name, value: "99", title: "", singer: ""), name) {
                XCTAssertEqual($0 as? StatsError, .stickerRefused)
            }
            XCTAssertThrowsError(try stickers.delete(songKey: "src:1", name: name), name)
        }
        XCTAssertEqual(try stickers.value(songKey: "src:1", name: "playcount"), "2", "refused sets change nothing")

        // like is the stats store's like, both ways.
        XCTAssertNil(try stickers.value(songKey: "src:1", name: "like"))
        try fixture.store.like(songKey: "src:1")
        XCTAssertEqual(try stickers.value(songKey: "src:1", name: "like"), "1")
        try stickers.set(songKey: "src:1", name: "like", value: "0", title: "", singer: "")
        XCTAssertFalse(try fixture.store.isLiked(songKey: "src:1"))
        try stickers.set(songKey: "src:2", name: "like", value: "1", title: "", singer: "")
        XCTAssertEqual(try fixture.store.liked().map(\.title), ["十年"])
        XCTAssertThrowsError(try stickers.set(songKey: "src:2", name: "like", value: "yes", title: "", singer: ""))
        // A file no catalogue or history knows is liked under the name it was given.
        try stickers.set(songKey: "file:/music/x.mp3", name: "like", value: "1", title: "X", singer: "Y")
        XCTAssertTrue(try fixture.store.isLiked(songKey: "file:/music/x.mp3"))
        try stickers.delete(songKey: "src:2", name: "like")
        XCTAssertFalse(try fixture.store.isLiked(songKey: "src:2"))

        XCTAssertEqual(try stickers.all(songKey: "src:1").map(\.name), ["lastplayed", "playcount", "skipcount"])
    }

    func testFindComparesAsTextLikeMPD() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "A", "S", 100_000), ("2", "B", "S", 100_000), ("3", "C", "S", 100_000)])
        let stickers = StickerStore(database: fixture.database)
        try stickers.set(songKey: "src:1", name: "rating", value: "5", title: "", singer: "")
        try stickers.set(songKey: "src:2", name: "rating", value: "10", title: "", singer: "")
        try stickers.set(songKey: "file:/elsewhere/x.mp3", name: "rating", value: "7", title: "", singer: "")
        func keys(_ comparison: (StickerStore.Comparison, String)?) throws -> [String] {
            try stickers.find(name: "rating", comparison).map(\.songKey).sorted()
        }
        XCTAssertEqual(try keys(nil), ["file:/elsewhere/x.mp3", "src:1", "src:2"])
        XCTAssertEqual(try keys((.equal, "5")), ["src:1"])
        // MPD 0.23 compares sticker values as text: "10" < "6".
        XCTAssertEqual(try keys((.greater, "5")), ["file:/elsewhere/x.mp3"])
        XCTAssertEqual(try keys((.less, "6")), ["src:1", "src:2"])
        let file = try XCTUnwrap(try stickers.find(name: "rating", (.equal, "7")).first)
        XCTAssertEqual(file.path, "/elsewhere/x.mp3", "a file's key names its path")
        XCTAssertNil(try stickers.find(name: "rating", (.equal, "5")).first?.path, "a feed song without a file has none")
        XCTAssertEqual(try stickers.find(name: "nothing").count, 0)
    }

    func testStickersSurviveAReimport() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("a", "Old", "Singer", 100_000)])
        let stickers = StickerStore(database: fixture.database)
        try stickers.set(songKey: "src:a", name: "rating", value: "9", title: "", singer: "")
        try stickers.set(songKey: "src:a", name: "like", value: "1", title: "", singer: "")
        let before = try fixture.song("src:a")
        XCTAssertEqual(try fixture.importFeed([("a", "New", "Singer", 101_000)]).updated, 1)
        XCTAssertEqual(try fixture.song("src:a").title, "New")
        XCTAssertEqual(try fixture.song("src:a").id, before.id)
        XCTAssertEqual(try stickers.all(songKey: "src:a").map { "\($0.name)=\($0.value)" }, ["like=1", "rating=9"])
    }
}
