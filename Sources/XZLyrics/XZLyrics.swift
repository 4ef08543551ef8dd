// XZLyrics layer: the LRC data model. Parsing lives in LRCParser, decoding in LRCDecoding,
// renderings in LRCRendering, playback-time lookups in LyricTimeline and LyricSyncTracker.

/// A parsed LRC file. Times in `lines` already have `[offset:]` applied.
package struct LRCDocument: Sendable, Equatable {
    /// Tag keys lower-cased (`ar`, `ti`, `offset`, any other `[key:value]`); a repeated tag keeps its last value.
    package var tags: [String: String]
    /// The `[offset:]` value in milliseconds (positive = lyrics sooner); 0 when absent or not a number.
    package var offsetMs: Int
    /// Timed lines sorted by time; lines with equal times keep their file order.
    package var lines: [LyricLine]

    package init(tags: [String: String] = [:], offsetMs: Int = 0, lines: [LyricLine] = []) {
        self.tags = tags
        self.offsetMs = offsetMs
        self.lines = lines
    }

    /// True when the file has at least one timed line.
    package var isSynced: Bool { !lines.isEmpty }
}

package struct LyricLine: Sendable, Equatable {
    package var timeMs: Int
    /// The text without word tags, trimmed; empty text is a real line that clears the display.
    package var text: String
    /// Word timing from `<mm:ss.xx>` (A2) or inline `[mm:ss.xx]` tags; empty when the line has none.
    /// The words' texts joined give `text` exactly, so a word's place in the line is known.
    package var words: [LyricWord]

    package init(timeMs: Int, text: String, words: [LyricWord] = []) {
        self.timeMs = timeMs
        self.text = text
        self.words = words
    }

    /// Character offsets in `text` of word `index` without its surrounding spaces (for highlighting).
    package func wordCharacterRange(_ index: Int) -> Range<Int>? {
        guard words.indices.contains(index) else { return nil }
        var start = 0
        for word in words[..<index] { start += word.text.count }
        let word = words[index].text
        let leading = word.prefix { $0.isWhitespace }.count
        let core = LRCText.trimmed(word).count
        return (start + leading)..<(start + leading + core)
    }
}

package struct LyricWord: Sendable, Equatable {
    package var timeMs: Int
    package var text: String

    package init(timeMs: Int, text: String) {
        self.timeMs = timeMs
        self.text = text
    }
}
