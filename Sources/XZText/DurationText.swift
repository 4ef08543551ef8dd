/// How every view writes a length of time.
package enum DurationText {
    /// "4:29", or "1:02:03" past an hour; "-" when unknown (nil or negative).
    package static func clock(ms: Int?) -> String {
        guard let ms, ms >= 0 else { return "-" }
        let seconds = ms / 1000
        let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        return h > 0 ? "\(h):\(twoDigits(m)):\(twoDigits(s))" : "\(m):\(twoDigits(s))"
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
