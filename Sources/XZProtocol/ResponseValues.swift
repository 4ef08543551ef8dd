import Foundation

/// Seconds and dates as MPD writes them, written in place: a listing writes several per song.
extension MPDResponse {
    /// Seconds with three decimals, as MPD writes `elapsed` and `duration`.
    package static func seconds(_ ms: Int) -> String {
        text { $0.appendSeconds(ms) }
    }

    /// `key: S.mmm`, the seconds written in place.
    package mutating func add(_ key: String, milliseconds ms: Int) {
        add(key) { $0.appendSeconds(ms) }
    }

    private mutating func appendSeconds(_ ms: Int) {
        let ms = max(0, ms)
        appendNumber(ms / 1000)
        append(ascii: ".")
        appendNumber(ms % 1000, digits: 3)
    }

    /// `2024-05-01T12:00:00Z`, as MPD writes `Last-Modified`.
    package static func timestamp(_ date: Date) -> String {
        text { $0.appendTimestamp(date) }
    }

    /// What `write` appends to a response, as a string.
    private static func text(_ write: (inout MPDResponse) -> Void) -> String {
        var response = MPDResponse()
        write(&response)
        return String(decoding: response.bytes, as: UTF8.self)
    }

    /// `key: 2024-05-01T12:00:00Z`, written in place: a listing writes one per song.
    package mutating func add(_ key: String, timestamp date: Date) {
        add(key) { $0.appendTimestamp(date) }
    }

    private mutating func appendTimestamp(_ date: Date) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // Years outside 1000...9999 are written with the digits they have, as MPD does.
        let year = Int(parts.tm_year) + 1900
        if (1000...9999).contains(year) { appendNumber(year, digits: 4) } else { appendNumber(year) }
        append(ascii: "-")
        appendNumber(Int(parts.tm_mon) + 1, digits: 2)
        append(ascii: "-")
        appendNumber(Int(parts.tm_mday), digits: 2)
        append(ascii: "T")
        appendNumber(Int(parts.tm_hour), digits: 2)
        append(ascii: ":")
        appendNumber(Int(parts.tm_min), digits: 2)
        append(ascii: ":")
        appendNumber(Int(parts.tm_sec), digits: 2)
        append(ascii: "Z")
    }
}
