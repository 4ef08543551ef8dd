import Foundation
import XCTest
@testable import XZStats

/// The terminal text, compared whole: columns aligned by display width, no colour needed.
final class StatsTextTests: XCTestCase {
    let songs = [
        TopSong(id: 1, songKey: "src:1", title: "晴天", singer: "周杰伦", plays: 12),
        TopSong(id: 2, songKey: "src:2", title: "Bohemian Rhapsody", singer: "Queen", plays: 9),
        TopSong(id: nil, songKey: "file:/x", title: "좋은 날", singer: "아이유", plays: 10),
        TopSong(id: 4, songKey: "src:4", title: "Jóga", singer: "Björk", plays: 1),
    ]

    func testTopSongsTableAlignsByDisplayWidth() {
        XCTAssertEqual(StatsText.topSongsTable(songs), [
            "#  Song               Singer  Plays",
            "1  晴天               周杰伦     12",
            "2  Bohemian Rhapsody  Queen       9",
            "3  좋은 날            아이유     10",
            "4  Jóga               Björk       1",
        ])
    }

    func testLongNamesAreCutWithAnEllipsis() {
        let long = [TopSong(id: 1, songKey: "k", title: String(repeating: "很长的歌名", count: 10),
                            singer: "A Singer With A Very Long Name Indeed", plays: 1234)]
        XCTAssertEqual(StatsText.topSongsTable(long), [
            "#  Song                              Singer                Plays",
            "1  很长的歌名很长的歌名很长的歌名…   A Singer With A Ver…   1234",
        ], "a wide character that does not fit leaves a blank column")
    }

    func testTopSingersTable() {
        XCTAssertEqual(StatsText.topSingersTable([TopSinger(name: "周杰伦", plays: 120), TopSinger(name: "Queen", plays: 7)]), [
            "#  Singer  Plays",
            "1  周杰伦    120",
            "2  Queen       7",
        ])
    }

    func testFourteenDayChart() {
        let counts = [0, 3, 0, 0, 12, 1, 0, 0, 5, 7, 0, 0, 24, 2]
        let days = counts.enumerated().map { DayPlays(date: String(format: "2026-11-%02d", 8 + $0.offset), plays: $0.element) }
        XCTAssertEqual(StatsText.perDayChart(days, barWidth: 12), [
            "11-08 Sun │              0",
            "11-09 Mon │█▌            3",
            "11-10 Tue │              0",
            "11-11 Wed │              0",
            "11-12 Thu │██████       12",
            "11-13 Fri │▌             1",
            "11-14 Sat │              0",
            "11-15 Sun │              0",
            "11-16 Mon │██▌           5",
            "11-17 Tue │███▌          7",
            "11-18 Wed │              0",
            "11-19 Thu │              0",
            "11-20 Fri │████████████ 24",
            "11-21 Sat │█             2",
        ])
    }

    func testHistoryInLocalTime() throws {
        let session = PlaySessionRecord(id: 1, songKey: "src:1", songId: 1, title: "晴天", singer: "周杰伦",
                                        startedAt: utc("2026-11-20T17:03:00Z"), playedMs: 192_000, positionMs: 192_000,
                                        durationMs: 269_000, endReason: .completed, counted: true, countedAt: nil, skip: false)
        var skipped = session
        skipped.title = "Jóga"; skipped.singer = "Björk"; skipped.startedAt = utc("2026-11-20T16:58:00Z")
        skipped.playedMs = 7_500; skipped.endReason = .skipped; skipped.counted = false; skipped.skip = true
        var open = session
        open.startedAt = utc("2026-11-21T01:00:00Z"); open.playedMs = 3_725_000; open.endReason = nil
        let tz = try XCTUnwrap(TimeZone(identifier: "Asia/Shanghai"))
        XCTAssertEqual(StatsText.history([open, session, skipped], timeZone: tz), [
            "Started           Song  Singer   Played  End         Play",
            "2026-11-21 09:00  晴天  周杰伦  1:02:05  unfinished  ✓",
            "2026-11-21 01:03  晴天  周杰伦     3:12  completed   ✓",
            "2026-11-21 00:58  Jóga  Björk      0:07  skipped",
        ])
        XCTAssertEqual(StatsText.history([]), ["No plays yet."])
    }

    func testASessionIsCountedOrSkippedNeverBoth() throws {
        let counted = PlaySessionRecord(id: 1, songKey: "src:1", songId: 1, title: "晴天", singer: "周杰伦",
                                        startedAt: utc("2026-11-20T17:03:00Z"), playedMs: 150_000, positionMs: 150_000,
                                        durationMs: 269_000, endReason: .skipped, counted: true, countedAt: nil, skip: false)
        var glance = counted
        glance.playedMs = 2_000; glance.counted = false
        var skipped = glance
        skipped.playedMs = 7_500; skipped.skip = true
        let tz = try XCTUnwrap(TimeZone(identifier: "UTC"))
        XCTAssertEqual(StatsText.history([counted, glance, skipped], timeZone: tz), [
            "Started           Song  Singer  Played  End       Play",
            "2026-11-20 17:03  晴天  周杰伦    2:30  moved on  ✓",
            "2026-11-20 17:03  晴天  周杰伦    0:02  moved on",
            "2026-11-20 17:03  晴天  周杰伦    0:07  skipped",
        ])
    }

    func testSummaryView() {
        let days = (8...21).map { DayPlays(date: "2026-11-\($0)", plays: $0 == 21 ? 2 : ($0 == 19 ? 1 : 0)) }
        let summary = StatsSummary(plays: 3, listenedMs: 11_100_000, songs: 2, singers: 1, topSongs: Array(songs.prefix(1)),
                                   topSingers: [TopSinger(name: "周杰伦", plays: 3)],
                                   mostSkipped: [SkippedSong(id: 2, songKey: "src:2", title: "十年", singer: "陳奕迅", skips: 4)],
                                   skips: 4, perDay: days, liked: 1)
        XCTAssertEqual(StatsText.summary(summary, sinceLabel: "7d"), [
            "3 plays · 3h 05m listened · 2 songs · 1 singer · 1 liked (since 7d)",
            "",
            "Top songs",
            "#  Song  Singer  Plays",
            "1  晴天  周杰伦     12",
            "",
            "Top singers",
            "#  Singer  Plays",
            "1  周杰伦      3",
            "",
            "Most skipped",
            "#  Song  Singer  Skips",
            "1  十年  陳奕迅      4",
            "",
            "Plays per day",
        ] + StatsText.perDayChart(days))
        let empty = StatsSummary(plays: 0, listenedMs: 0, songs: 0, singers: 0, topSongs: [], topSingers: [],
                                 mostSkipped: [], skips: 0, perDay: days.map { DayPlays(date: $0.date, plays: 0) }, liked: 0)
        XCTAssertEqual(StatsText.summary(empty), ["No plays yet."])
        XCTAssertEqual(StatsText.perDayChart(empty.perDay, barWidth: 3).first, "11-08 Sun │    0")
    }

    func testTextFromTagsCannotEscapeTheTable() {
        let hostile = [TopSong(id: 1, songKey: "k", title: "Evil\u{1B}[2J\u{202E}Title", singer: "Tab\tSinger", plays: 1)]
        XCTAssertEqual(StatsText.topSongsTable(hostile), [
            "#  Song          Singer      Plays",
            "1  Evil[2JTitle  Tab Singer      1",
        ])
    }

    func testDurations() {
        XCTAssertEqual(StatsText.listened(0), "0s")
        XCTAssertEqual(StatsText.listened(48_900), "48s")
        XCTAssertEqual(StatsText.listened(60_000), "1m")
        XCTAssertEqual(StatsText.listened(59 * 60_000), "59m")
        XCTAssertEqual(StatsText.listened(61 * 60_000), "1h 01m")
    }
}
