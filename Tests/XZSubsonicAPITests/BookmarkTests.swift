import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZTestSupport
@testable import XZSubsonicAPI

/// Bookmarks: one place per user and song, each user's own.
final class BookmarkTests: XCTestCase {
    private var fixture: AnnotationLibrary!

    override func setUpWithError() throws {
        fixture = try AnnotationLibrary()
    }

    override func tearDown() {
        fixture = nil
    }

    private func bookmarks(_ user: LibraryUser) throws -> [SubsonicBookmark] {
        try fixture.answer("getBookmarks", as: user, key: "bookmarks", of: SubsonicBookmarks.self).bookmark
    }

    func testBookmarksArePerUserAndSong() throws {
        let one = try fixture.id("One"), two = try fixture.id("Two")
        try fixture.reply("createBookmark", [("id", one), ("position", "12000"), ("comment", "chorus\n")], as: fixture.guest)
        try fixture.reply("createBookmark", [("id", two), ("position", "3000")], as: fixture.guest)
        try fixture.reply("createBookmark", [("id", one), ("position", "500")], as: fixture.third)
        // A second bookmark of the same song moves the first.
        try fixture.reply("createBookmark", [("id", one), ("position", "15000"), ("comment", "bridge")], as: fixture.guest)

        let guest = try bookmarks(fixture.guest)
        XCTAssertEqual(guest.map(\.entry.id), [one, two])
        XCTAssertEqual(guest.map(\.position), [15000, 3000])
        XCTAssertEqual(guest.first?.comment, "bridge")
        XCTAssertEqual(guest.first?.username, "guest")
        XCTAssertEqual(try bookmarks(fixture.third).map(\.position), [500])
        XCTAssertEqual(try bookmarks(fixture.owner).count, 0)

        try fixture.reply("deleteBookmark", [("id", one)], as: fixture.guest)
        XCTAssertEqual(try bookmarks(fixture.guest).map(\.entry.id), [two])
        XCTAssertEqual(try bookmarks(fixture.third).map(\.entry.id), [one], "another user's bookmark stays")
        XCTAssertEqual(fixture.errorCode("deleteBookmark", [("id", one)], as: fixture.guest), 70)
    }

    func testBadBookmarksAreRefused() throws {
        let one = try fixture.id("One")
        XCTAssertEqual(fixture.errorCode("createBookmark", [("id", one)], as: fixture.guest), 10)
        XCTAssertEqual(fixture.errorCode("createBookmark", [("position", "1")], as: fixture.guest), 10)
        XCTAssertEqual(fixture.errorCode("createBookmark", [("id", one), ("position", "-5")], as: fixture.guest), 0)
        XCTAssertEqual(fixture.errorCode("createBookmark", [("id", one), ("position", "18446744073709551616")], as: fixture.guest), 0)
        XCTAssertEqual(fixture.errorCode("createBookmark", [("id", "so-77777"), ("position", "1")], as: fixture.guest), 70)
        XCTAssertEqual(fixture.errorCode("createBookmark", [("id", "al-1"), ("position", "1")], as: fixture.guest), 70)
        XCTAssertEqual(fixture.errorCode("createBookmark", [("id", one), ("position", "1"), ("comment", "a\0b")], as: fixture.guest), 0)
        XCTAssertEqual(try bookmarks(fixture.guest).count, 0)
    }
}
