import Foundation

/// Stored times: UTC ISO 8601 to the second ("2026-11-21T18:03:00Z"), which sort as text. Swift's own ISO
/// 8601 style, not ISO8601DateFormatter: that one takes its time zone from ICU's data, some 3 MB of pages
/// read into every process that stamps a row.
public enum UTCStamp {
    public static func string(_ date: Date = Date()) -> String { date.formatted(style) }

    /// The date of a stamp; nil for text that is not one.
    public static func date(_ text: String) -> Date? { try? style.parse(text) }

    private static let style = Date.ISO8601FormatStyle(timeZone: .gmt)
}
