import Foundation
import XZCatalogue
import XZHostCore
import XZLyrics
import XZSystem

/// A song's lyrics as the API hands them out: the best the library has of the song (its LRC file or
/// embedded lyrics, as `SongLyrics` finds them, else what `lyrics fetch` kept; synced before plain), timed
/// with the song's own shift applied, and an LRC's translation lines as a layer of their own.
struct SongLyricsLayers: Equatable {
    struct Line: Equatable {
        /// Milliseconds from the song's start with every offset applied; nil for plain lyrics.
        var startMs: Int?
        var text: String
        /// The line's timed words (LRC's `<mm:ss.xx>` tags), each with its UTF-8 bytes in `text`; empty when
        /// the line has none.
        var words: [Word] = []

        init(startMs: Int?, text: String) {
            self.startMs = startMs
            self.text = text
        }

        /// A synced line with its words placed in its text.
        init(_ line: LyricLine) {
            startMs = line.timeMs
            text = SongLyricsLayers.clean(line.text)
            // The words' texts joined are the line's text; cleaning that changed it leaves the words unplaced.
            guard text == line.text else { return }
            var offset = 0
            for word in line.words {
                let bytes = word.text.utf8.count
                defer { offset += bytes }
                let leading = word.text.utf8.prefix { $0 == 0x20 || $0 == 0x09 }.count
                let core = word.text.trimmingCharacters(in: .whitespaces)
                guard !core.isEmpty else { continue }
                let start = offset + leading
                words.append(Word(startMs: word.timeMs, text: core, bytes: start...(start + core.utf8.count - 1)))
            }
        }
    }

    struct Word: Equatable {
        var startMs: Int
        var text: String
        /// Inclusive UTF-8 byte offsets of the word in its line's text.
        var bytes: ClosedRange<Int>
    }

    var synced: Bool
    var main: [Line]
    /// The translation: the second of two lines at one time stamp (how LRC files carry one); empty when none.
    var translation: [Line] = []
    /// The LRC's `[la:]`/`[lang:]` tag, else nil.
    var language: String?
    /// The LRC's `[ar:]` and `[ti:]`, else nil.
    var artist: String?
    var title: String?

    /// Plain text, one line a line, as `getLyrics` gives it.
    var plainText: String { main.map(\.text).joined(separator: "\n") }

    /// The song's lyrics, nil when it has none (or only an "instrumental" mark).
    static func read(for song: Song, database: LibraryDatabase) throws -> SongLyricsLayers? {
        let adjustment = try database.lyricsAdjustment(songKey: song.songKey)
        var plain: SongLyricsLayers?
        switch SongLyrics.locate(for: song) {
        case .file(let path):
            if let bytes = RegularFile.contents(atPath: path, limit: LRCParser.fileLimit) {
                let layers = Self(lrc: LRCParser.parse(bytes: bytes), text: LRCDecoding.decode(bytes), adjustmentMs: adjustment)
                if layers?.synced == true { return layers }
                plain = layers
            }
        case .embedded(let text):
            let layers = Self(lrc: LRCParser.parse(text), text: text, adjustmentMs: adjustment)
            if layers?.synced == true { return layers }
            plain = layers
        case nil:
            break
        }
        if let fetched = try database.fetchedLyrics(songKey: song.songKey) {
            switch fetched.kind {
            case .synced:
                if let layers = Self(lrc: LRCParser.parse(fetched.text), text: fetched.text, adjustmentMs: adjustment), layers.synced {
                    return layers
                }
            case .plain:
                if plain == nil { plain = Self(lrc: LRCDocument(), text: fetched.text, adjustmentMs: 0) }
            default:
                break
            }
        }
        return plain
    }

    /// Lyrics from an LRC document, or from `text` as plain lines when the document has no timed line.
    /// nil when there is nothing to show.
    init?(lrc document: LRCDocument, text: String, adjustmentMs: Int) {
        language = Self.tag(document, "la") ?? Self.tag(document, "lang")
        artist = Self.tag(document, "ar")
        title = Self.tag(document, "ti")
        if document.isSynced {
            synced = true
            // The document's times hold its [offset:]; the timeline adds the listener's shift.
            let lines = LyricTimeline(document, adjustmentMs: adjustmentMs).lines
            (main, translation) = Self.layers(lines)
        } else {
            synced = false
            main = Self.plainLines(text).map { Line(startMs: nil, text: $0) }
            guard main.contains(where: { !$0.text.isEmpty }) else { return nil }
        }
    }

    /// Lines sorted by time (equal times in file order) split into the main layer and a translation: at a
    /// time stamp that holds two lines, the second is the first's translation. A file where few time
    /// stamps hold two lines has no translation (a repeated line is a mistake, not a layer), and every line
    /// stays in the main layer.
    static func layers(_ lines: [LyricLine]) -> (main: [Line], translation: [Line]) {
        var main: [Line] = [], translation: [Line] = []
        var paired = 0, stamps = 0
        var index = 0
        while index < lines.count {
            var end = index + 1
            while end < lines.count && lines[end].timeMs == lines[index].timeMs { end += 1 }
            stamps += 1
            main.append(Line(lines[index]))
            if end - index >= 2 {
                paired += 1
                translation.append(Line(lines[index + 1]))
            }
            index = end
        }
        // At least a third of the time stamps carry a second line.
        guard paired > 0, paired * 3 >= stamps else {
            return (lines.map(Line.init), [])
        }
        return (main, translation)
    }

    /// The lines of plain lyrics: LRC tag lines (`[ar:…]`) left out, control characters dropped.
    static func plainLines(_ text: String) -> [String] {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { clean(String($0)) }
            .filter { !isTagLine($0) }
        while lines.last?.isEmpty == true { lines.removeLast() }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        return lines
    }

    private static func isTagLine(_ line: String) -> Bool {
        guard line.hasPrefix("["), line.hasSuffix("]"), let colon = line.firstIndex(of: ":") else { return false }
        let key = line[line.index(after: line.startIndex)..<colon]
        return !key.isEmpty && key.allSatisfy { $0.isLetter }
    }

    /// Text without control characters (XML cannot hold most of them) and without surrounding blanks.
    static func clean(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.filter { $0.properties.generalCategory != .control || $0 == "\t" })
        return String(scalars).trimmingCharacters(in: .whitespaces)
    }

    private static func tag(_ document: LRCDocument, _ key: String) -> String? {
        guard let value = document.tags[key].map(clean), !value.isEmpty else { return nil }
        return value
    }
}
