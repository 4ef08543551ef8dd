/// Counts the places a decoder skipped damaged data, for `damageReport`.
struct DamageLog {
    private(set) var places = 0
    private(set) var firstSample: Int?
    /// The stream ended before the length its header gave.
    var cutShort: (at: Int, of: Int)?

    mutating func note(atSample sample: Int) {
        if places == 0 { firstSample = sample }
        places += 1
    }

    func report(rate: Int) -> String? {
        var parts: [String] = []
        if places > 0 {
            let at = firstSample.map { clock($0, rate: rate) } ?? "?"
            parts.append(places == 1 ? "Skipped damaged data at \(at); decoding carried on after it."
                         : "Skipped damaged data in \(places) places, the first at \(at); decoding carried on after each.")
        }
        if let cut = cutShort {
            parts.append("The file ends at \(clock(cut.at, rate: rate)) of the \(clock(cut.of, rate: rate)) its header gives: it is cut short.")
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}

/// "m:ss" of a sample position, for messages.
func clock(_ sample: Int, rate: Int) -> String {
    let seconds = rate > 0 ? sample / rate : 0
    return "\(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60)"
}
