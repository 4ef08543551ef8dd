import Foundation
import XZText

/// The terminal text of the stats views: plain lines aligned by display width (CJK takes two
/// columns), readable without colour. Nothing here prints or emits escape sequences.
package enum StatsText {
    /// The whole `stats` view.
    package static func summary(_ s: StatsSummary, sinceLabel: String? = nil) -> [String] {
        if s.plays == 0 && s.listenedMs == 0 {
            let none = sinceLabel.map { "No plays since \($0)." } ?? "No plays yet."
            return s.stations.isEmpty ? [none] : [none, "", "Radio stations"] + stationsTable(s.stations)
        }
        var lines = [headline(s, sinceLabel: sinceLabel)]
        if !s.topSongs.isEmpty { lines += ["", "Top songs"] + topSongsTable(s.topSongs) }
        if !s.topSingers.isEmpty { lines += ["", "Top singers"] + topSingersTable(s.topSingers) }
        if !s.mostSkipped.isEmpty { lines += ["", "Most skipped"] + skippedTable(s.mostSkipped) }
        if !s.stations.isEmpty { lines += ["", "Radio stations"] + stationsTable(s.stations) }
        lines += ["", "Plays per day"] + perDayChart(s.perDay)
        return lines
    }

    /// Stations by time heard: their own name (else their URL), the time and how many times tuned in.
    package static func stationsTable(_ stations: [StationListening]) -> [String] {
        table(header: ["#", "Station", "Listened", "Times"], rightAligned: [0, 2, 3], maxWidths: [3, 40, 10, 6],
              rows: stations.enumerated().map {
                  ["\($0.offset + 1)", $0.element.name.isEmpty ? $0.element.url : $0.element.name,
                   listened($0.element.listenedMs), "\($0.element.sessions)"]
              })
    }

    /// "42 plays · 3h 05m listened · 17 songs · 9 singers · 4 liked".
    package static func headline(_ s: StatsSummary, sinceLabel: String? = nil) -> String {
        let parts = [count(s.plays, "play"), listened(s.listenedMs) + " listened", count(s.songs, "song"),
                     count(s.singers, "singer"), "\(s.liked) liked"]
        return parts.joined(separator: " · ") + (sinceLabel.map { " (since \($0))" } ?? "")
    }

    package static func topSongsTable(_ songs: [TopSong]) -> [String] {
        table(header: ["#", "Song", "Singer", "Plays"], rightAligned: [0, 3], maxWidths: [3, 32, 20, 6],
              rows: songs.enumerated().map { ["\($0.offset + 1)", $0.element.title, $0.element.singer, "\($0.element.plays)"] })
    }

    package static func topSingersTable(_ singers: [TopSinger]) -> [String] {
        table(header: ["#", "Singer", "Plays"], rightAligned: [0, 2], maxWidths: [3, 32, 6],
              rows: singers.enumerated().map { ["\($0.offset + 1)", $0.element.name, "\($0.element.plays)"] })
    }

    package static func skippedTable(_ songs: [SkippedSong]) -> [String] {
        table(header: ["#", "Song", "Singer", "Skips"], rightAligned: [0, 3], maxWidths: [3, 32, 20, 6],
              rows: songs.enumerated().map { ["\($0.offset + 1)", $0.element.title, $0.element.singer, "\($0.element.skips)"] })
    }

    /// One line a day: "11-21 Sat │██████▌      13". Bars are in eighths of a column, scaled to the
    /// busiest day; a day with any play shows at least a sliver, a day with none only the axis.
    package static func perDayChart(_ days: [DayPlays], barWidth: Int = 30) -> [String] {
        let top = days.map(\.plays).max() ?? 0
        let numberWidth = String(top).count
        let eighths = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        return days.map { day in
            var units = top == 0 ? 0 : (day.plays * barWidth * 8 + top / 2) / top
            if day.plays > 0 { units = max(units, 1) }
            let bar = String(repeating: "█", count: units / 8) + eighths[units % 8]
            let padded = bar + String(repeating: " ", count: barWidth - DisplayWidth.of(bar))
            return "\(dayLabel(day.date)) │\(padded) " + leftPad(String(day.plays), to: numberWidth)
        }
    }

    /// The `history` view, newest first as given: local start time, song, singer, time heard, how it
    /// ended, and ✓ for a counted play (a session is counted or skipped, never both). A session with no end is playing now or was cut off by a crash.
    package static func history(_ sessions: [PlaySessionRecord], timeZone: TimeZone = .current) -> [String] {
        if sessions.isEmpty { return ["No plays yet."] }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return table(header: ["Started", "Song", "Singer", "Played", "End", "Play"], rightAligned: [3],
                     maxWidths: [16, 32, 20, 8, 11, 4],
                     rows: sessions.map { s in
                         [localTime(s.startedAt, calendar), s.title, s.singer, DurationText.clock(ms: s.playedMs),
                          ending(s), s.counted ? "✓" : ""]
                     })
    }

    /// The `liked` view, newest first as given.
    package static func liked(_ songs: [LikedSong], timeZone: TimeZone = .current) -> [String] {
        if songs.isEmpty { return ["No liked songs."] }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return table(header: ["Liked", "Song", "Singer"], rightAligned: [], maxWidths: [16, 40, 24],
                     rows: songs.map { [localTime($0.likedAt, calendar), $0.title, $0.singer] })
    }

    /// "48s" below a minute, "42m", "3h 05m".
    package static func listened(_ ms: Int) -> String {
        let seconds = max(0, ms) / 1000
        if seconds < 60 { return "\(seconds)s" }
        let minutes = seconds / 60
        return minutes >= 60 ? String(format: "%dh %02dm", minutes / 60, minutes % 60) : "\(minutes)m"
    }

    /// How a session ended, in one word that never contradicts the Play column: moving on after the play
    /// counted, or after a mere glance, is no skip.
    package static func ending(_ session: PlaySessionRecord) -> String {
        guard let reason = session.endReason else { return "unfinished" }
        if reason == .skipped, !session.skip { return "moved on" }
        return reason.rawValue
    }

    /// Columns two spaces apart, each as wide as its widest cell (up to its maximum, cut with "…");
    /// no trailing spaces.
    static func table(header: [String], rightAligned: Set<Int>, maxWidths: [Int], rows: [[String]]) -> [String] {
        let all = [header] + rows.map { $0.map(TerminalText.sanitize) }
        let widths = header.indices.map { column in
            min(maxWidths[column], all.map { DisplayWidth.of($0[column]) }.max() ?? 0)
        }
        return all.map { row in
            let cells = row.indices.map { DisplayWidth.fit(row[$0], to: widths[$0], alignRight: rightAligned.contains($0)) }
            return trimTrailing(cells.joined(separator: "  "))
        }
    }

    private static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    private static func leftPad(_ text: String, to width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    private static func trimTrailing(_ text: String) -> String {
        var text = text
        while text.last == " " { text.removeLast() }
        return text
    }

    /// "2026-11-21" → "11-21 Sat". The weekday of a date alone does not depend on the time zone.
    static func dayLabel(_ date: String) -> String {
        let parts = date.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return date }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC") ?? .gmt
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        guard let day = utc.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) else { return date }
        let weekday = utc.component(.weekday, from: day)
        return String(format: "%02d-%02d ", parts[1], parts[2]) + names[(weekday - 1) % 7]
    }

    private static func localTime(_ date: Date, _ calendar: Calendar) -> String {
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0)
    }
}
