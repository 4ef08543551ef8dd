import Foundation
import XCTest
import XZCatalogue
@testable import XZStats

/// The `stats` data: totals, top lists, most skipped, plays per local day, --since, and its JSON.
final class SummaryTests: XCTestCase {
    private var fixture: StatsFixture!
    private let now = utc("2026-11-21T12:00:00Z") // 20:00 in Shanghai
    private var shanghai: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Asia/Shanghai") ?? .gmt
        return calendar
    }

    override func setUpWithError() throws {
        fixture = try StatsFixture()
        try fixture.importFeed([("1", "晴天", "周杰伦", 269_000), ("2", "十年", "陳奕迅", 205_000), ("3", "Jóga", "Björk", 305_000)])
        let plays: [(String, String, Int?, PlayEndReason)] = [ // start (UTC), song, ms heard (nil: all), end
            ("2026-11-20T17:30:00Z", "1", nil, .completed), // 01:30 on the 21st in Shanghai
            ("2026-11-21T01:00:00Z", "1", nil, .completed),
            ("2026-11-19T03:00:00Z", "2", nil, .completed),
            ("2026-11-10T03:00:00Z", "3", nil, .completed),
            ("2026-10-01T03:00:00Z", "2", nil, .completed), // outside the 14 days
            ("2026-11-21T02:00:00Z", "2", 6_000, .skipped),
            ("2026-11-21T03:00:00Z", "3", 2_000, .stopped),
        ]
        for (start, id, heard, reason) in plays {
            fixture.clock.now = utc(start)
            let song = try fixture.song("src:\(id)")
            try fixture.play(song, playedMs: heard ?? song.durationMs ?? 0, reason: reason)
        }
        try fixture.store.like(songKey: "src:1", at: utc("2026-11-21T04:00:00Z"))
    }

    func testEverything() throws {
        let s = try fixture.store.summary(since: nil, now: now, calendar: shanghai)
        XCTAssertEqual(s.plays, 5)
        XCTAssertEqual(s.listenedMs, 269_000 * 2 + 205_000 * 2 + 305_000 + 6_000 + 2_000)
        XCTAssertEqual(s.songs, 3)
        XCTAssertEqual(s.singers, 3)
        XCTAssertEqual(s.topSongs.map(\.title), ["晴天", "十年", "Jóga"], "a tie goes to the more recently played")
        XCTAssertEqual(s.topSongs.map(\.plays), [2, 2, 1])
        XCTAssertEqual(s.topSongs.map(\.id), [1, 2, 3])
        XCTAssertEqual(s.topSingers, [TopSinger(name: "周杰伦", plays: 2), TopSinger(name: "陳奕迅", plays: 2),
                                      TopSinger(name: "Björk", plays: 1)])
        XCTAssertEqual(s.mostSkipped, [SkippedSong(id: 2, songKey: "src:2", title: "十年", singer: "陳奕迅", skips: 1)])
        XCTAssertEqual(s.skips, 1)
        XCTAssertEqual(s.liked, 1)
        XCTAssertEqual(s.perDay.count, 14)
        XCTAssertEqual(s.perDay.first?.date, "2026-11-08")
        XCTAssertEqual(s.perDay.last?.date, "2026-11-21")
        XCTAssertEqual(s.perDay.filter { $0.plays > 0 }, [
            DayPlays(date: "2026-11-10", plays: 1), DayPlays(date: "2026-11-19", plays: 1), DayPlays(date: "2026-11-21", plays: 2),
        ], "days are local: 17:30 UTC on the 20th is the 21st in Shanghai")
    }

    func testSince() throws {
        let week = try StatsStore.parseSince("7d", now: now, calendar: shanghai)
        XCTAssertEqual(week, utc("2026-11-14T12:00:00Z"))
        let s = try fixture.store.summary(since: week, now: now, calendar: shanghai)
        XCTAssertEqual(s.plays, 3)
        XCTAssertEqual(s.listenedMs, 269_000 * 2 + 205_000 + 6_000 + 2_000)
        XCTAssertEqual(s.topSongs.map(\.plays), [2, 1])
        XCTAssertEqual(s.perDay.map(\.plays).reduce(0, +), 4, "the chart always covers 14 days")

        let today = try StatsStore.parseSince("2026-11-21", now: now, calendar: shanghai)
        XCTAssertEqual(today, utc("2026-11-20T16:00:00Z"), "midnight in Shanghai")
        let t = try fixture.store.summary(since: today, now: now, calendar: shanghai)
        XCTAssertEqual([t.plays, t.songs, t.singers, t.skips], [2, 1, 1, 1])
        XCTAssertEqual(try fixture.store.summary(since: try StatsStore.parseSince("30d", now: now), now: now).plays, 4)
        XCTAssertEqual(try fixture.store.summary(since: utc("2027-01-01T00:00:00Z"), now: now).plays, 0)
    }

    func testParseSinceRejectsAnythingElse() {
        for text in ["", "7", "d", "0d", "-3d", "7w", "2026-13-01", "2026-02-30", "2026/11/01", "26-11-01", "yesterday"] {
            XCTAssertThrowsError(try StatsStore.parseSince(text, now: now, calendar: shanghai), text) { error in
                XCTAssertTrue("\(error)".hasPrefix("--since takes a number of days"), "\(error)")
            }
        }
        XCTAssertEqual(try StatsStore.parseSince(" 30d ", now: now), utc("2026-10-22T12:00:00Z"))
    }

    func testJSONShape() throws {
        let since = try StatsStore.parseSince("2026-11-21", now: now, calendar: shanghai)
        let s = try fixture.store.summary(since: since, now: now, calendar: shanghai)
        // Keys sorted, as JSONEncoder writes them in no fixed order; `stats --json` keeps the record's
        // order and prints an unknown value as null.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func json<T: Encodable>(_ value: T) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }
        let days = (8...20).map { #"{"date":"2026-11-\#(String(format: "%02d", $0))","plays":\#($0 == 10 || $0 == 19 ? 1 : 0)}"# }
            + [#"{"date":"2026-11-21","plays":2}"#]
        XCTAssertEqual(try json(s), #"{"liked":1,"listened_ms":546000,"per_day":["# + days.joined(separator: ",") + "],"
            + #""plays":2,"singers":1,"songs":1,"stations":[],"top_singers":[{"name":"周杰伦","plays":2}],"#
            + #""top_songs":[{"id":1,"plays":2,"singer":"周杰伦","title":"晴天"}]}"#)
        let removed = TopSong(id: nil, songKey: "file:/x.mp3", title: "X", singer: "Y", plays: 3)
        XCTAssertEqual(try json(removed), #"{"plays":3,"singer":"Y","title":"X"}"#)
    }

    func testDaysFollowTheTimeZoneAcrossADaylightSavingChange() throws {
        var newYork = Calendar(identifier: .gregorian)
        newYork.timeZone = TimeZone(identifier: "America/New_York") ?? .gmt
        fixture.clock.now = utc("2026-11-01T04:30:00Z") // 00:30 EDT on 1 November; clocks go back at 02:00
        try fixture.play(try fixture.song("src:1"), playedMs: 269_000)
        fixture.clock.now = utc("2026-11-02T04:30:00Z") // 23:30 EST on 1 November
        try fixture.play(try fixture.song("src:1"), playedMs: 269_000)
        let s = try fixture.store.summary(now: utc("2026-11-03T15:00:00Z"), calendar: newYork)
        XCTAssertEqual(s.perDay.map(\.date), (21...31).map { "2026-10-\($0)" } + ["2026-11-01", "2026-11-02", "2026-11-03"])
        XCTAssertEqual(s.perDay.first { $0.date == "2026-11-01" }?.plays, 2)
    }
}
