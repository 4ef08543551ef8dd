import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Stored times: UTC ISO 8601 to the second ("2026-11-21T18:03:00Z"), which sort as text. Written and
/// read here with the C library's UTC calendar: Foundation's formatters (ISO8601DateFormatter and
/// Date.ISO8601FormatStyle alike) look up the local time zone through ICU, reading megabytes of ICU's
/// data into every process that stamps a row.
package enum UTCStamp {
    package static func string(_ date: Date = Date()) -> String {
        // Years 0...9999, the ones four digits write.
        var seconds = time_t(Int(clamping: date.timeIntervalSince1970.rounded(.down),
                                 to: -62_167_219_200...253_402_300_799))
        var fields = tm()
        gmtime_r(&seconds, &fields)
        func digits(_ value: Int32, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return digits(fields.tm_year + 1900, 4) + "-" + digits(fields.tm_mon + 1, 2) + "-" + digits(fields.tm_mday, 2)
            + "T" + digits(fields.tm_hour, 2) + ":" + digits(fields.tm_min, 2) + ":" + digits(fields.tm_sec, 2) + "Z"
    }

    /// The date of a stamp in exactly that form; nil for anything else, an impossible date included.
    package static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              bytes[19] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            var value: Int32 = 0
            for byte in bytes[range] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int32(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        var fields = tm()
        fields.tm_year = year - 1900
        fields.tm_mon = month - 1
        fields.tm_mday = day
        fields.tm_hour = hour
        fields.tm_min = minute
        fields.tm_sec = second
        let seconds = timegm(&fields)
        // timegm carries out-of-range fields over (February 30th into March): such a stamp is not one.
        guard fields.tm_year == year - 1900, fields.tm_mon == month - 1, fields.tm_mday == day,
              fields.tm_hour == hour, fields.tm_min == minute, fields.tm_sec == second else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
