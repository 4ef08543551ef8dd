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
        // Whole milliseconds, to the nearest: 0.999 s is stored as 0.99899… and stays 999 ms.
        let milliseconds = Int64(Int(clamping: date.timeIntervalSince1970 * 1000, to: -62_167_219_200_000...253_402_300_799_999))
        let (seconds, part) = (milliseconds.floorDivided(by: 1000), milliseconds.floorModulo(1000))
        let stamp = UTCStamp.string(Date(timeIntervalSince1970: TimeInterval(seconds)))
        let digits = String(part)
        return String(stamp.dropLast()) + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.date < rhs.date }
}

private extension Int64 {
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return self % divisor < 0 ? quotient - 1 : quotient
    }

    func floorModulo(_ divisor: Int64) -> Int64 {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}
