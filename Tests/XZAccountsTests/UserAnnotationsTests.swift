import Foundation
import GRDB
import XCTest
import XZCatalogue
import XZStats
import XZSystem
import XZTestSupport
@testable import XZAccounts

/// Each user's stars, ratings, saved play queue and bookmarks, over a real library database.
final class UserAnnotationsTests: XCTestCase {
    private var folder: TemporaryFolder!
    private var database: LibraryDatabase!
    private let ana = UserID(1), ben = UserID(2)

    override func setUpWithError() throws {
        folder = try TemporaryFolder("user-data")
        database = try LibraryFolder(url: folder.url).open(seedingDemoFrom: nil)
        let url = folder.url.appendingPathComponent("feed.jsonl")
        let lines = try [("1", "晴天", "周杰伦", "叶惠美"), ("2", "以父之名", "周杰伦", "叶惠美"), ("3", "十年", "陳奕迅", "黑白灰")].map { id, title, singer, album in
            String(decoding: try JSONSerialization.data(withJSONObject: ["source_id": id, "title": title, "singer": singer, "album": album,
                                                                         "duration_ms": 200_000], options: [.sortedKeys]), as: UTF8.self)
        }
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        _ = try database.importFeed(at: url)
    }

    override func tearDown() {
        database = nil
        folder = nil
    }

    private func song(_ key: String) throws -> Song { try XCTUnwrap(try database.song(key: "src:\(key)")) }

    private func albumID(_ song: Song) throws -> Int64 {
        try XCTUnwrap(try database.pool.read { db in try Int64.fetchOne(db, sql: "SELECT album_id FROM song WHERE id = ?", arguments: [song.id]) })
    }

    /// Albums are kept by their artist and title, artists by name, songs by song_key: what outlives a rescan.
    func testStarsAndRatingsAreKeptByWhatOutlivesARescan() throws {
        let sunny = try song("1"), years = try song("3")
        let album = try albumID(sunny)
        let marks = UserAnnotations(database: database, user: ana)
        try marks.setStarred(true, albums: [album], artists: [years.singerId], at: Date(timeIntervalSince1970: 1_000))
        try marks.setRating(.song, id: sunny.id, rating: 5)
        try marks.setRating(.album, id: album, rating: 2)
        let rows = try database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT kind, item_key FROM user_star UNION ALL SELECT kind, item_key FROM user_rating ORDER BY 1, 2")
                .map { "\($0[0] as String) \($0[1] as String)" }
        }
        XCTAssertEqual(rows, ["album 周杰伦\u{1F}叶惠美", "album 周杰伦\u{1F}叶惠美", "artist 陳奕迅", "song src:1"])
        XCTAssertEqual(try marks.starred(.album).map(\.id), [album])
        XCTAssertEqual(try marks.starred(.album).first?.starredAt, Date(timeIntervalSince1970: 1_000))
        XCTAssertEqual(try marks.starredAt(.artist, ids: [years.singerId, sunny.singerId]).keys.sorted(), [years.singerId])
        XCTAssertEqual(try marks.ratings(.song, ids: [sunny.id, years.id]), [sunny.id: 5])
    }

    /// One user's marks are invisible to another; a change naming an unknown item changes nothing.
    func testMarksAreEachUsersAndChangesAreWhole() throws {
        let sunny = try song("1"), years = try song("3")
        let album = try albumID(sunny)
        try UserAnnotations(database: database, user: ana).setStarred(true, albums: [album])
        XCTAssertEqual(try UserAnnotations(database: database, user: ben).starred(.album).count, 0)
        XCTAssertEqual(try UserAnnotations(database: database, user: .owner).starredAt(.album, ids: [album]), [:])

        XCTAssertThrowsError(try UserAnnotations(database: database, user: ben).setStarred(true, albums: [album], artists: [424_242])) {
            XCTAssertEqual($0 as? UserDataError, .notFound)
        }
        XCTAssertEqual(try UserAnnotations(database: database, user: ben).starred(.album).count, 0, "the known album was not starred either")
        XCTAssertThrowsError(try UserAnnotations(database: database, user: ben).setRating(.song, id: years.id, rating: 6)) {
            XCTAssertEqual($0 as? UserDataError, .refused)
        }
        XCTAssertThrowsError(try UserAnnotations(database: database, user: ben).setRating(.album, id: 999, rating: 3)) {
            XCTAssertEqual($0 as? UserDataError, .notFound)
        }
        try UserAnnotations(database: database, user: ana).setStarred(false, albums: [album])
        XCTAssertEqual(try UserAnnotations(database: database, user: ana).starred(.album).count, 0)
    }

    /// A saved queue is replaced whole, capped, and lists a song a rescan removed without its catalogue id.
    func testPlayQueuesAreReplacedWholeAndCapped() throws {
        let sunny = try song("1"), name = try song("2"), years = try song("3")
        let queues = UserPlayQueues(database: database, user: ana)
        let saved = SavedPlayQueue(entries: [sunny, years, sunny].map { .init(songKey: $0.songKey) }, currentIndex: 2, positionMs: 42,
                                   changedAt: Date(timeIntervalSince1970: 2_000), changedBy: "Phone\u{0}\n")
        try queues.save(saved, maxLength: 3)
        var loaded = try XCTUnwrap(try queues.load())
        XCTAssertEqual(loaded.entries, [sunny, years, sunny].map { SavedPlayQueue.Entry(songKey: $0.songKey, songId: $0.id) })
        XCTAssertEqual(loaded.currentIndex, 2)
        XCTAssertEqual(loaded.positionMs, 42)
        XCTAssertEqual(loaded.changedAt, Date(timeIntervalSince1970: 2_000))
        XCTAssertEqual(loaded.changedBy, "Phone", "control characters removed")
        XCTAssertNil(try UserPlayQueues(database: database, user: ben).load())

        for bad in [SavedPlayQueue(entries: Array(repeating: .init(songKey: name.songKey), count: 4), currentIndex: 0, positionMs: 0, changedBy: ""),
                    SavedPlayQueue(entries: [.init(songKey: name.songKey)], currentIndex: 1, positionMs: 0, changedBy: ""),
                    SavedPlayQueue(entries: [.init(songKey: name.songKey)], currentIndex: 0, positionMs: -1, changedBy: "")] {
            XCTAssertThrowsError(try queues.save(bad, maxLength: 3)) { XCTAssertEqual($0 as? UserDataError, .refused) }
        }
        XCTAssertEqual(try queues.load(), loaded, "a refused save changes nothing")

        try database.pool.write { db in try db.execute(sql: "DELETE FROM song WHERE id = ?", arguments: [years.id]) }
        loaded = try XCTUnwrap(try queues.load())
        XCTAssertEqual(loaded.entries.map(\.songId), [sunny.id, nil, sunny.id])

        try queues.save(SavedPlayQueue(entries: [], currentIndex: nil, positionMs: 0, changedBy: ""), maxLength: 3)
        XCTAssertNil(try queues.load(), "an empty queue clears the saved one")
    }

    /// Bookmarks: one per user and song, moved by a second one, comments cleaned and capped.
    func testBookmarks() throws {
        let sunny = try song("1"), years = try song("3")
        let marks = UserBookmarks(database: database, user: ana)
        try marks.save(songId: sunny.id, positionMs: 1_000, comment: "a\u{1B}[2Jb", at: Date(timeIntervalSince1970: 10))
        try marks.save(songId: years.id, positionMs: 5, comment: String(repeating: "x", count: 5_000), at: Date(timeIntervalSince1970: 20))
        try marks.save(songId: sunny.id, positionMs: 2_000, comment: "again", at: Date(timeIntervalSince1970: 30))
        let all = try marks.all()
        XCTAssertEqual(all.map(\.songId), [sunny.id, years.id])
        XCTAssertEqual(all.map(\.positionMs), [2_000, 5])
        XCTAssertEqual(all[0].createdAt, Date(timeIntervalSince1970: 10), "moving a bookmark keeps when it was made")
        XCTAssertEqual(all[0].comment, "again")
        XCTAssertEqual(all[1].comment.count, UserBookmarks.maxComment)
        XCTAssertEqual(try marks.positions(songIds: [sunny.id, years.id]), [sunny.id: 2_000, years.id: 5])
        XCTAssertEqual(try UserBookmarks(database: database, user: ben).all().count, 0)
        XCTAssertThrowsError(try marks.save(songId: 99_999, positionMs: 1, comment: "")) { XCTAssertEqual($0 as? UserDataError, .notFound) }
        XCTAssertThrowsError(try marks.save(songId: sunny.id, positionMs: -1, comment: "")) { XCTAssertEqual($0 as? UserDataError, .refused) }
        XCTAssertTrue(try marks.delete(songId: sunny.id))
        XCTAssertFalse(try marks.delete(songId: sunny.id))
        XCTAssertEqual(try marks.all().map(\.songId), [years.id])
    }
}
