import XCTest
import XZCatalogue
import XZFolderScan
@testable import XZStats
import XZTestSupport

final class LikesTests: XCTestCase {
    func testLikeUnlikeAndNewestFirst() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "晴天", "周杰伦", 269_000), ("2", "十年", "陳奕迅", 205_000), ("3", "Jóga", "Björk", 305_000)])
        let store = fixture.store
        XCTAssertTrue(try store.like(songKey: "src:1", at: utc("2026-11-20T08:00:00Z")))
        XCTAssertTrue(try store.like(songKey: "src:3", at: utc("2026-11-21T08:00:00Z")))
        XCTAssertTrue(try store.like(songKey: "src:2", at: utc("2026-11-19T08:00:00Z")))
        XCTAssertFalse(try store.like(songKey: "src:1", at: utc("2026-11-22T08:00:00Z")), "already liked: keeps the first time")
        let liked = try store.liked()
        XCTAssertEqual(liked.map(\.title), ["Jóga", "晴天", "十年"])
        XCTAssertEqual(liked.map(\.likedAt), [utc("2026-11-21T08:00:00Z"), utc("2026-11-20T08:00:00Z"), utc("2026-11-19T08:00:00Z")])
        XCTAssertEqual(liked[1], LikedSong(songKey: "src:1", songId: try fixture.song("src:1").id, title: "晴天",
                                           singer: "周杰伦", likedAt: utc("2026-11-20T08:00:00Z")))
        XCTAssertTrue(try store.isLiked(songKey: "src:1"))

        XCTAssertTrue(try store.unlike(songKey: "src:1"))
        XCTAssertFalse(try store.unlike(songKey: "src:1"))
        XCTAssertFalse(try store.isLiked(songKey: "src:1"))
        XCTAssertEqual(try store.liked().map(\.songKey), ["src:3", "src:2"])
        XCTAssertEqual(try store.summary().liked, 2)
    }

    /// What `download --all-liked` queues: liked catalogue songs without a local file, newest like first.
    func testLikedSongsNotOfflineLeaveOutLocalSongs() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "Online", "Singer", 100_000), ("2", "Older", "Singer", 100_000)])
        let music = fixture.folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: music.appendingPathComponent("here.mp3").path, seconds: 1,
                                  tags: .init(title: "Here", artist: "Singer"))
        XCTAssertEqual(try fixture.database.importFolder(at: music).added, 1)
        let local = try XCTUnwrap(try fixture.database.localSongs().first)
        try fixture.store.like(songKey: "src:2", at: utc("2026-11-19T08:00:00Z"))
        try fixture.store.like(songKey: local.songKey, at: utc("2026-11-20T08:00:00Z"))
        try fixture.store.like(songKey: "src:1", at: utc("2026-11-21T08:00:00Z"))
        XCTAssertEqual(try fixture.store.likedSongsNotOffline().map(\.title), ["Online", "Older"])
    }

    func testLikedAtIsStoredInUTC() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "A", "B", 100_000)])
        try fixture.store.like(songKey: "src:1", at: utc("2026-11-21T23:30:00Z"))
        let stored = try fixture.database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT liked_at FROM song_like")
        }
        XCTAssertEqual(stored, "2026-11-21T23:30:00Z")
    }

    func testLikingAnUnknownSongFails() throws {
        let fixture = try StatsFixture()
        XCTAssertThrowsError(try fixture.store.like(songKey: "src:nope")) { error in
            XCTAssertEqual((error as? StatsError)?.description, "no song with key src:nope")
        }
    }
}
