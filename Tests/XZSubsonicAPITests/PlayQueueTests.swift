import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZTestSupport
@testable import XZSubsonicAPI

/// Each user's saved play queue, by current song and by index (indexBasedQueue), capped as the host's queue.
final class PlayQueueTests: XCTestCase {
    private var fixture: AnnotationLibrary!

    override func setUpWithError() throws {
        fixture = try AnnotationLibrary()
    }

    override func tearDown() {
        fixture = nil
    }

    private func savedQueue(of user: LibraryUser) throws -> SubsonicPlayQueue {
        try fixture.answer("getPlayQueue", as: user, key: "playQueue", of: SubsonicPlayQueue.self)
    }

    func testQueueRoundTripsPerUser() throws {
        let one = try fixture.id("One"), two = try fixture.id("Two"), three = try fixture.id("Three")
        XCTAssertEqual(try savedQueue(of: fixture.guest).entry, nil, "nothing saved yet")
        XCTAssertEqual(try savedQueue(of: fixture.guest).username, "guest")
        try fixture.reply("savePlayQueue", [("id", one), ("id", two), ("id", one), ("id", three), ("current", two),
                                           ("position", "61234"), ("c", "Phone")], as: fixture.guest)
        let queue = try fixture.answer("getPlayQueue", as: fixture.guest, key: "playQueue", of: SubsonicPlayQueue.self)
        XCTAssertEqual(queue.entry?.map(\.id), [one, two, one, three])
        XCTAssertEqual(queue.entry?.map(\.title), ["One", "Two", "One", "Three"])
        XCTAssertEqual(queue.current, two)
        XCTAssertEqual(queue.position, 61234)
        XCTAssertEqual(queue.username, "guest")
        XCTAssertEqual(queue.changedBy, "Phone")
        XCTAssertEqual(try savedQueue(of: fixture.third).entry, nil, "another user's queue is not theirs")

        let byIndex = try fixture.answer("getPlayQueueByIndex", as: fixture.guest, key: "playQueueByIndex", of: SubsonicPlayQueueByIndex.self)
        XCTAssertEqual(byIndex.currentIndex, 1)
        XCTAssertEqual(byIndex.entry?.count, 4)

        // An empty save clears the queue.
        try fixture.reply("savePlayQueue", [], as: fixture.guest)
        XCTAssertEqual(try savedQueue(of: fixture.guest).entry, nil)
        XCTAssertNil(try savedQueue(of: fixture.guest).current)
    }

    /// The index keeps the current entry apart from an earlier copy of the same song.
    func testQueueByIndexKeepsTheCurrentOfRepeatedSongs() throws {
        let one = try fixture.id("One"), four = try fixture.id("Four")
        try fixture.reply("savePlayQueueByIndex", [("id", one), ("id", four), ("id", one), ("currentIndex", "2"), ("position", "5")],
                         as: fixture.third)
        let byIndex = try fixture.answer("getPlayQueueByIndex", as: fixture.third, key: "playQueueByIndex", of: SubsonicPlayQueueByIndex.self)
        XCTAssertEqual(byIndex.currentIndex, 2)
        XCTAssertEqual(byIndex.position, 5)
        XCTAssertEqual(byIndex.entry?.map(\.id), [one, four, one])
        let queue = try fixture.answer("getPlayQueue", as: fixture.third, key: "playQueue", of: SubsonicPlayQueue.self)
        XCTAssertEqual(queue.current, one)
    }

    /// Bad saves are refused whole: the saved queue stays as it was.
    func testBadSavesChangeNothing() throws {
        let one = try fixture.id("One"), two = try fixture.id("Two"), three = try fixture.id("Three"), four = try fixture.id("Four")
        try fixture.reply("savePlayQueue", [("id", one), ("current", one)], as: fixture.guest)
        fixture.host.maxQueueLength = 3
        XCTAssertEqual(fixture.errorCode("savePlayQueue", [("id", one), ("id", two), ("id", three), ("id", four), ("current", one)],
                                         as: fixture.guest), 0, "past max_playlist_length")
        XCTAssertEqual(fixture.errorCode("savePlayQueue", [("id", one), ("id", two), ("current", three)], as: fixture.guest), 0)
        XCTAssertEqual(fixture.errorCode("savePlayQueue", [("id", one), ("id", two)], as: fixture.guest), 10)
        XCTAssertEqual(fixture.errorCode("savePlayQueue", [("id", one), ("current", one), ("position", "-1")], as: fixture.guest), 0)
        XCTAssertEqual(fixture.errorCode("savePlayQueue", [("id", one), ("current", one), ("position", "99999999999999999999")],
                                         as: fixture.guest), 0)
        XCTAssertEqual(fixture.errorCode("savePlayQueue", [("id", "so-987654"), ("current", "so-987654")], as: fixture.guest), 70)
        XCTAssertEqual(fixture.errorCode("savePlayQueueByIndex", [("id", one), ("id", two), ("currentIndex", "2")], as: fixture.guest), 0)
        XCTAssertEqual(fixture.errorCode("savePlayQueueByIndex", [("id", one), ("currentIndex", "-1")], as: fixture.guest), 0)
        XCTAssertEqual(fixture.errorCode("savePlayQueueByIndex", [("id", one)], as: fixture.guest), 10)
        try fixture.reply("savePlayQueue", [("id", one), ("id", two), ("id", three), ("current", three)], as: fixture.third)

        let queue = try fixture.answer("getPlayQueue", as: fixture.guest, key: "playQueue", of: SubsonicPlayQueue.self)
        XCTAssertEqual(queue.entry?.map(\.id), [one])
        XCTAssertEqual(queue.current, one)
        XCTAssertEqual(queue.position, 0)
    }

    /// A song a rescan removed leaves the queue; the current one stays the one it was.
    func testRemovedSongsLeaveTheQueue() throws {
        let one = try fixture.id("One"), two = try fixture.id("Two"), three = try fixture.id("Three")
        try fixture.reply("savePlayQueue", [("id", one), ("id", two), ("id", three), ("current", three)], as: fixture.guest)
        try FileManager.default.removeItem(at: fixture.folder.url.appendingPathComponent("music/Band/Album/02.mp3"))
        _ = fixture.host.startUpdate(of: fixture.folder.url.appendingPathComponent("music"), rescan: false)
        fixture.host.updates.wait()
        let queue = try fixture.answer("getPlayQueue", as: fixture.guest, key: "playQueue", of: SubsonicPlayQueue.self)
        XCTAssertEqual(queue.entry?.map(\.id), [one, three])
        XCTAssertEqual(queue.current, three)
        let byIndex = try fixture.answer("getPlayQueueByIndex", as: fixture.guest, key: "playQueueByIndex", of: SubsonicPlayQueueByIndex.self)
        XCTAssertEqual(byIndex.currentIndex, 1)
    }
}
