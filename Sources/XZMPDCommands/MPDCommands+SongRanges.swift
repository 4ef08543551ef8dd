import XZPlaybackValues
import XZProtocol

extension PlayRange {
    /// MPD's `Range:` value: seconds with milliseconds, the end left out when the part runs to the song's end.
    var mpdText: String {
        func seconds(_ ms: Int) -> String {
            let fraction = String(ms % 1000)
            return "\(ms / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
        }
        return seconds(startMs) + "-" + (endMs.map(seconds) ?? "")
    }

    /// `START:END` in seconds as MPD's rangeid reads it: either side may be empty (the song's start or
    /// end); nil when malformed, negative, or ending before it starts.
    init?(mpdText text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        func milliseconds(_ part: Substring) -> Int?? {
            if part.isEmpty { return .some(nil) }
            guard let seconds = Double(part), seconds.isFinite, seconds >= 0, seconds < 1e9 else { return nil }
            return .some(Int((seconds * 1000).rounded()))
        }
        guard let start = milliseconds(text[..<colon]), let end = milliseconds(text[text.index(after: colon)...]) else {
            return nil
        }
        let startMs = start ?? 0
        // An end of 0 is no end, as MPD's zero SongTime.
        let endMs = end == 0 ? nil : end
        if let endMs, endMs <= startMs { return nil }
        self.init(startMs: startMs, endMs: endMs)
    }
}

extension MPDCommands {
    static let songRangeCommands: [MPDCommand] = [
        // rangeid ID START:END: only that part of the queued song plays.
        MPDCommand("rangeid", 2...2, .changesState) { call throws(MPDError) in
            let id = try MPDArgument.unsigned(call.arguments[0])
            guard var range = PlayRange(mpdText: call.arguments[1]) else { throw MPDError.arg("Bad range") }
            let snapshot = call.turn.snapshot()
            let index = try queueIndex(id: call.arguments[0], snapshot)
            // As MPD: a start past the song's end is refused, an end at or past it is the song's end.
            if let length = snapshot.entries[index].item.durationMs {
                guard range.startMs <= length else { throw MPDError.arg("Invalid start offset") }
                if let end = range.endMs, end >= length { range.endMs = nil }
            }
            switch call.turn.setRange(range, id: id) {
            case .set: break
            case .noSuchEntry: throw MPDError.noExist("No such song")
            case .playing: throw MPDError.permission("Cannot edit the current song")
            }
        },
    ]
}
