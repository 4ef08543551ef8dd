import Foundation
import XZSystem

/// A moment as the spec writes it: ISO 8601 in UTC with milliseconds ("2017-04-11T10:42:50.842Z").
package struct SubsonicDate: Encodable, Sendable, Hashable, Comparable {
    package var date: Date

    package init(_ date: Date) {
        self.date = date
    }

    /// A library stamp ("2026-01-02T03:04:05Z", `UTCStamp`); nil when it is not one.
    package init?(stamp: String) {
        guard let date = UTCStamp.date(stamp) else { return nil }
        self.date = date
    }

    package var text: String {
        let stamp = UTCStamp.string(date)
        let seconds = date.timeIntervalSince1970
        let milliseconds = Int(clamping: ((seconds - seconds.rounded(.down)) * 1000).rounded(.down), to: 0...999)
        let digits = String(milliseconds)
        return String(stamp.dropLast()) + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.date < rhs.date }
}
