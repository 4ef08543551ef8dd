import XZText

/// Time stamp formatting shared by the renderings.
package enum LRCFormat {
    /// `[mm:ss.xxx]` for `fractionDigits` 3, `[mm:ss.xx]` for 2, `[mm:ss.x]` for 1, rounding to the nearest
    /// unit (5999 ms with 2 digits gives `[00:06.00]`). Minutes grow past 99 as needed; negatives print as 0.
    package static func stamp(_ ms: Int, fractionDigits: Int = 3) -> String {
        let digits = min(max(fractionDigits, 1), 3)
        let unit = digits == 3 ? 1 : digits == 2 ? 10 : 100
        let perSecond = 1000 / unit
        let units = (min(max(0, ms), Int.max - unit) + unit / 2) / unit
        let minutes = units / (60 * perSecond)
        let seconds = units / perSecond % 60
        let fraction = units % perSecond
        return "[\(pad(minutes, 2)):\(pad(seconds, 2)).\(pad(fraction, digits))]"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

extension LRCDocument {
    /// `{"tags":{...},"lines":[{"time_ms":..,"text":..,"words":[{"time_ms":..,"text":..}]}]}` as
    /// JSONSerialization input; `words` only on lines with timed words.
    package func jsonObject() -> [String: Any] {
        ["tags": tags, "lines": lines.map { $0.jsonObject() }]
    }

    /// One `[mm:ss.xxx] text` line per lyric line, terminal-safe; a line with empty text is the stamp alone.
    package func plainText() -> String {
        lines.map { line in
            let text = TerminalText.sanitize(line.text)
            return text.isEmpty ? LRCFormat.stamp(line.timeMs) : LRCFormat.stamp(line.timeMs) + " " + text
        }.joined(separator: "\n")
    }
}

extension LyricLine {
    package func jsonObject() -> [String: Any] {
        var object: [String: Any] = ["time_ms": timeMs, "text": text]
        if !words.isEmpty {
            object["words"] = words.map { ["time_ms": $0.timeMs, "text": $0.text] as [String: Any] }
        }
        return object
    }
}

// The same JSON shape through Codable, as `lyrics --json` writes it with StreamingJSONEncoder.
extension LRCDocument: Encodable {
    private enum CodingKeys: String, CodingKey { case tags, lines }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tags, forKey: .tags)
        try container.encode(lines, forKey: .lines)
    }
}

extension LyricLine: Encodable {
    private enum CodingKeys: String, CodingKey { case timeMs = "time_ms", text, words }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timeMs, forKey: .timeMs)
        try container.encode(text, forKey: .text)
        if !words.isEmpty { try container.encode(words, forKey: .words) }
    }
}

extension LyricWord: Encodable {
    private enum CodingKeys: String, CodingKey { case timeMs = "time_ms", text }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timeMs, forKey: .timeMs)
        try container.encode(text, forKey: .text)
    }
}
