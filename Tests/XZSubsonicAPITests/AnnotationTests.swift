import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZStats
import XZTestSupport
@testable import XZSubsonicAPI

/// star/unstar, setRating and scrobble: each user's own, the owner's shared with the terminal and MPD.
final class AnnotationTests: XCTestCase {
    private var fixture: AnnotationLibrary!

    override func setUpWithError() throws {
        fixture = try AnnotationLibrary()
    }

    override func tearDown() {
        fixture = nil
    }

    /// A user's stars of songs, albums and artists are theirs alone.
    func testStarsAreEachUsersOwn() throws {
        let one = try fixture.song(titled: "One")
        let albumID = try fixture.albumID(one)
        XCTAssertTrue(try fixture.answersEmpty("star", [("id", fixture.id("One")), ("albumId", "al-\(albumID)"),
                                                        ("artistId", "ar-\(one.singerId)")], as: fixture.guest))
        let guest = StatsStore(database: fixture.database, user: fixture.guest.id)
        XCTAssertTrue(try guest.isLiked(songKey: one.songKey))
        XCTAssertFalse(try StatsStore(database: fixture.database).isLiked(songKey: one.songKey), "not the owner's like")
        XCTAssertFalse(try StatsStore(database: fixture.database, user: fixture.third.id).isLiked(songKey: one.songKey))
        let guestMarks = UserAnnotations(database: fixture.database, user: fixture.guest.id)
        XCTAssertEqual(try guestMarks.starred(.album).map(\.id), [albumID])
        XCTAssertEqual(try guestMarks.starred(.artist).map(\.id), [one.singerId])
        XCTAssertEqual(try UserAnnotations(database: fixture.database, user: fixture.owner.id).starred(.album).count, 0)
        XCTAssertEqual(try UserAnnotations(database: fixture.database, user: fixture.third.id).starred(.artist).count, 0)

        XCTAssertTrue(try fixture.answersEmpty("unstar", [("id", fixture.id("One")), ("id", "al-\(albumID)")], as: fixture.guest))
        XCTAssertFalse(try guest.isLiked(songKey: one.songKey))
        XCTAssertEqual(try guestMarks.starred(.album).count, 0)
        XCTAssertEqual(try guestMarks.starred(.artist).map(\.id), [one.singerId], "only what was named is unstarred")
    }

    /// The owner's star of a song is the terminal's like and MPD's `like` sticker, both ways.
    func testOwnersStarIsTheTerminalsLikeAndMPDsSticker() throws {
        let one = try fixture.song(titled: "One"), two = try fixture.song(titled: "Two")
        try fixture.reply("star", [("id", fixture.id("One"))], as: fixture.owner)
        XCTAssertTrue(try StatsStore(database: fixture.database).isLiked(songKey: one.songKey))
        XCTAssertEqual(try StickerStore(database: fixture.database).value(songKey: one.songKey, name: StickerStore.like), "1")
        XCTAssertEqual(fixture.mpd("sticker get song \"Band/Album/01.mp3\" like"), "sticker: like=1\nOK\n")

        // A like set by an MPD client is the owner's star, seen by the API.
        XCTAssertEqual(fixture.mpd("sticker set song \"Band/Album/02.mp3\" like 1"), "OK\n")
        XCTAssertNotNil(try StatsStore(database: fixture.database, user: fixture.owner.id).likedAt(songKeys: [two.songKey])[two.songKey])
        XCTAssertNil(try StatsStore(database: fixture.database, user: fixture.guest.id).likedAt(songKeys: [two.songKey])[two.songKey])

        try fixture.reply("unstar", [("id", fixture.id("One"))], as: fixture.owner)
        XCTAssertFalse(try StatsStore(database: fixture.database).isLiked(songKey: one.songKey))
        XCTAssertTrue(fixture.mpd("sticker get song \"Band/Album/01.mp3\" like").hasPrefix("ACK"), "no sticker once unstarred")
        // Another user's star is no MPD sticker.
        try fixture.reply("star", [("id", fixture.id("One"))], as: fixture.guest)
        XCTAssertTrue(fixture.mpd("sticker get song \"Band/Album/01.mp3\" like").hasPrefix("ACK"))
    }

    /// One bad id refuses the whole star, nothing changed; folders and playlists are not starred.
    func testABadIdStarsNothing() throws {
        let one = try fixture.song(titled: "One")
        let albumID = try fixture.albumID(one)
        XCTAssertEqual(fixture.errorCode("star", [("albumId", "al-\(albumID)"), ("albumId", "al-999999")], as: fixture.guest), 70)
        XCTAssertEqual(fixture.errorCode("star", [("id", try fixture.id("One")), ("id", "so-999999")], as: fixture.guest), 70)
        XCTAssertEqual(fixture.errorCode("star", [("id", "fo-QmFuZA")], as: fixture.guest), 70)
        XCTAssertEqual(fixture.errorCode("star", [("albumId", "ar-\(one.singerId)")], as: fixture.guest), 70)
        XCTAssertEqual(fixture.errorCode("star", [("id", "../../etc/passwd")], as: fixture.guest), 70)
        XCTAssertEqual(fixture.errorCode("star", [], as: fixture.guest), 10)
        XCTAssertEqual(try UserAnnotations(database: fixture.database, user: fixture.guest.id).starred(.album).count, 0)
        XCTAssertFalse(try StatsStore(database: fixture.database, user: fixture.guest.id).isLiked(songKey: one.songKey))
    }

    /// Ratings of songs, albums and artists are each user's; 0 removes one; anything past 0...5 is refused.
    func testRatingsAreEachUsersOwn() throws {
        let one = try fixture.song(titled: "One")
        let albumID = try fixture.albumID(one)
        try fixture.reply("setRating", [("id", fixture.id("One")), ("rating", "4")], as: fixture.guest)
        try fixture.reply("setRating", [("id", "al-\(albumID)"), ("rating", "5")], as: fixture.guest)
        try fixture.reply("setRating", [("id", "ar-\(one.singerId)"), ("rating", "2")], as: fixture.guest)
        try fixture.reply("setRating", [("id", fixture.id("One")), ("rating", "1")], as: fixture.third)
        let guest = UserAnnotations(database: fixture.database, user: fixture.guest.id)
        XCTAssertEqual(try guest.ratings(.song, ids: [one.id]), [one.id: 4])
        XCTAssertEqual(try guest.ratings(.album, ids: [albumID]), [albumID: 5])
        XCTAssertEqual(try guest.ratings(.artist, ids: [one.singerId]), [one.singerId: 2])
        XCTAssertEqual(try UserAnnotations(database: fixture.database, user: fixture.third.id).ratings(.song, ids: [one.id]), [one.id: 1])
        XCTAssertEqual(try UserAnnotations(database: fixture.database, user: fixture.owner.id).ratings(.song, ids: [one.id]), [:])

        for bad in ["6", "-1", "4.5", "99999999999999999999", ""] {
            XCTAssertEqual(fixture.errorCode("setRating", [("id", try fixture.id("One")), ("rating", bad)], as: fixture.guest), 0, bad)
        }
        XCTAssertEqual(fixture.errorCode("setRating", [("id", try fixture.id("One"))], as: fixture.guest), 10)
        XCTAssertEqual(fixture.errorCode("setRating", [("id", "so-424242"), ("rating", "3")], as: fixture.guest), 70)
        XCTAssertEqual(try guest.ratings(.song, ids: [one.id]), [one.id: 4], "refusals change nothing")

        try fixture.reply("setRating", [("id", fixture.id("One")), ("rating", "0")], as: fixture.guest)
        XCTAssertEqual(try guest.ratings(.song, ids: [one.id]), [:])
    }

    /// A submitted scrobble is a counted play of that user at the time given, once however often it is sent.
    func testScrobbleCountsAPlayAtItsTime() throws {
        let one = try fixture.song(titled: "One"), two = try fixture.song(titled: "Two")
        let time: Int64 = 1_700_000_000_000
        try fixture.reply("scrobble", [("id", fixture.id("One")), ("id", fixture.id("Two")),
                                      ("time", "\(time)"), ("time", "\(time + 60_000)")], as: fixture.guest)
        try fixture.reply("scrobble", [("id", fixture.id("One")), ("time", "\(time)"), ("submission", "true")], as: fixture.guest)
        let guest = StatsStore(database: fixture.database, user: fixture.guest.id)
        XCTAssertEqual(try guest.playCounts(songKeys: [one.songKey, two.songKey]), [one.songKey: 1, two.songKey: 1],
                       "the same play sent twice counts once")
        let history = try guest.history(limit: 10)
        XCTAssertEqual(history.map(\.songKey), [two.songKey, one.songKey])
        XCTAssertEqual(history.last?.startedAt, Date(timeIntervalSince1970: Double(time) / 1000))
        XCTAssertTrue(history.allSatisfy(\.counted))
        XCTAssertEqual(try StatsStore(database: fixture.database).plays(songKey: one.songKey), 0, "not the owner's play")
        XCTAssertEqual(try StatsStore(database: fixture.database, user: fixture.third.id).history(limit: 10).count, 0)

        // The owner's scrobble is the terminal's play and MPD's playcount.
        try fixture.reply("scrobble", [("id", fixture.id("Two"))], as: fixture.owner)
        XCTAssertEqual(try StatsStore(database: fixture.database).plays(songKey: two.songKey), 1)
        XCTAssertEqual(fixture.mpd("sticker get song \"Band/Album/02.mp3\" playcount"), "sticker: playcount=1\nOK\n")
    }

    /// Times outside their domain, and a time list that does not match the ids, count nothing.
    func testScrobbleRefusesTimesOutOfDomain() throws {
        let one = try fixture.song(titled: "One")
        let future = Int64(Date().timeIntervalSince1970 * 1000) + 7 * 24 * 3_600_000
        for bad in ["-1", "99999999999999999999", "\(future)", "253402300800000", "1e12", "12:00", ""] {
            XCTAssertEqual(fixture.errorCode("scrobble", [("id", try fixture.id("One")), ("time", bad)], as: fixture.guest), 0, bad)
        }
        XCTAssertEqual(fixture.errorCode("scrobble", [("id", try fixture.id("One")), ("id", try fixture.id("Two")), ("time", "1000")],
                                         as: fixture.guest), 0)
        XCTAssertEqual(fixture.errorCode("scrobble", [("id", try fixture.id("One")), ("submission", "maybe")], as: fixture.guest), 0)
        XCTAssertEqual(fixture.errorCode("scrobble", [("id", "al-1")], as: fixture.guest), 70)
        XCTAssertEqual(fixture.errorCode("scrobble", [], as: fixture.guest), 10)
        XCTAssertEqual(try StatsStore(database: fixture.database, user: fixture.guest.id).plays(songKey: one.songKey), 0)
    }

    /// `submission=false` says what a user's client plays now, for getNowPlaying, and counts no play.
    func testNowPlayingReportIsKeptAndCountsNothing() throws {
        let one = try fixture.song(titled: "One"), two = try fixture.song(titled: "Two")
        try fixture.reply("scrobble", [("id", fixture.id("One")), ("submission", "false"), ("c", "Phone")], as: fixture.guest)
        try fixture.reply("scrobble", [("id", fixture.id("Two")), ("submission", "false"), ("c", "Phone")], as: fixture.guest)
        try fixture.reply("scrobble", [("id", fixture.id("One")), ("submission", "false"), ("c", "Desk\u{7}top")], as: fixture.third)
        let reports = NowPlayingReports.of(fixture.library).current()
        XCTAssertEqual(reports.map(\.username), ["third", "guest"], "one report per client, newest first")
        XCTAssertEqual(reports.map(\.songId), [one.id, two.id])
        XCTAssertEqual(reports.map(\.client), ["Desktop", "Phone"], "control characters removed")
        XCTAssertEqual(try StatsStore(database: fixture.database, user: fixture.guest.id).playCounts(songKeys: [one.songKey, two.songKey]), [:])
        XCTAssertTrue(NowPlayingReports.of(fixture.library).current(now: Date().addingTimeInterval(NowPlayingReports.keptFor + 1)).isEmpty)
    }
}
