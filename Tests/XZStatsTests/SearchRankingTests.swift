import XCTest
import XZCatalogue
@testable import XZStats

/// Search breaks ties by counted plays, then likes; how well a song matches still comes first.
final class SearchRankingTests: XCTestCase {
    func testTiesGoToPlayedThenLikedSongs() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("a", "Love Alpha", "Band", 200_000), ("b", "Love Beta", "Band", 200_000),
                                ("c", "Love Gamma", "Band", 200_000), ("d", "Love", "Band", 200_000)])
        let titles = { try fixture.database.search("love").songs.map(\.title) }
        XCTAssertEqual(try titles(), ["Love", "Love Alpha", "Love Beta", "Love Gamma"], "no stats: by title")

        for _ in 0..<2 { try fixture.play(try fixture.song("src:c"), playedMs: 120_000) }
        try fixture.play(try fixture.song("src:b"), playedMs: 60_000, reason: .skipped) // not counted
        try fixture.store.like(songKey: "src:b")
        XCTAssertEqual(try titles(), ["Love", "Love Gamma", "Love Beta", "Love Alpha"],
                       "the exact title still leads; then 2 plays, then a like")

        for _ in 0..<2 { try fixture.play(try fixture.song("src:a"), playedMs: 120_000) }
        try fixture.store.like(songKey: "src:a")
        XCTAssertEqual(try titles(), ["Love", "Love Alpha", "Love Gamma", "Love Beta"], "equal plays: the liked one first")

        try fixture.store.unlike(songKey: "src:a")
        try fixture.store.unlike(songKey: "src:b")
        XCTAssertEqual(try titles(), ["Love", "Love Alpha", "Love Gamma", "Love Beta"], "equal plays, no likes: by title")
        try fixture.play(try fixture.song("src:d"), playedMs: 120_000)
        XCTAssertEqual(try titles().first, "Love")
    }

    func testCounterMatchesTheSessions() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("a", "A", "Band", 100_000)])
        for _ in 0..<3 { try fixture.play(try fixture.song("src:a"), playedMs: 60_000) }
        try fixture.play(try fixture.song("src:a"), playedMs: 10_000, reason: .stopped)
        try fixture.store.like(songKey: "src:a")
        let row = try fixture.database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT plays || ',' || liked FROM song_popularity WHERE song_key = 'src:a'")
        }
        XCTAssertEqual(row, "3,1")
        XCTAssertEqual(try fixture.store.plays(songKey: "src:a"), 3)
    }
}
