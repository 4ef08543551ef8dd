import Foundation

/// A tag name as MPD spells it. The catalogue holds some of them; a filter on the others sees an absent tag.
public struct FilterTag: Hashable, Sendable, CustomStringConvertible {
    public let name: String

    /// MPD 0.23's tag names, in its order.
    public static let all = [
        "Artist", "ArtistSort", "Album", "AlbumSort", "AlbumArtist", "AlbumArtistSort", "Title", "Track", "Name",
        "Genre", "Date", "OriginalDate", "Composer", "Performer", "Conductor", "Work", "Ensemble", "Movement",
        "MovementNumber", "Location", "Grouping", "Comment", "Disc", "Label", "MUSICBRAINZ_ARTISTID",
        "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ALBUMARTISTID", "MUSICBRAINZ_TRACKID", "MUSICBRAINZ_RELEASETRACKID",
        "MUSICBRAINZ_WORKID",
    ].map(FilterTag.init(canonical:))

    public static let artist = FilterTag(canonical: "Artist"), albumArtist = FilterTag(canonical: "AlbumArtist")
    public static let album = FilterTag(canonical: "Album"), title = FilterTag(canonical: "Title")
    public static let track = FilterTag(canonical: "Track"), date = FilterTag(canonical: "Date")
    public static let genre = FilterTag(canonical: "Genre"), disc = FilterTag(canonical: "Disc")
    public static let composer = FilterTag(canonical: "Composer")

    private init(canonical: String) { name = canonical }

    private static let byLowercasedName = Dictionary(uniqueKeysWithValues: all.map { ($0.name.lowercased(), $0) })

    /// A tag by name in any case, as MPD's tag_name_parse_i reads it.
    public init?(_ text: String) {
        guard let tag = Self.byLowercasedName[text.lowercased()] else { return nil }
        self = tag
    }

    public var description: String { name }

    /// The tag MPD reads instead when a song lacks this one.
    var fallback: [FilterTag] {
        switch name {
        case "AlbumArtist", "ArtistSort": return [.artist]
        case "AlbumSort": return [.album]
        case "AlbumArtistSort": return [.albumArtist, .artist]
        default: return []
        }
    }

    /// Numbers sort as numbers.
    var isNumeric: Bool { self == .track || self == .disc }

    /// The song's values of this tag (empty when it has none).
    public func values(of song: Song) -> [String] {
        switch self {
        case .artist: return song.artists.isEmpty ? [song.singer] : song.artists
        case .albumArtist: return song.albumArtist.map { [$0] } ?? []
        case .album: return song.album.map { [$0] } ?? []
        case .title: return [song.title]
        case .track: return song.track.map { [String($0)] } ?? []
        case .date: return song.date.map { [$0] } ?? []
        case .genre: return song.genres
        case .disc: return song.disc.map { [String($0)] } ?? []
        default: return []
        }
    }

    /// Values with MPD's fallback applied (AlbumArtist → Artist ...).
    public func valuesWithFallback(of song: Song) -> [String] {
        let own = values(of: song)
        if !own.isEmpty { return own }
        for other in fallback {
            let values = other.values(of: song)
            if !values.isEmpty { return values }
        }
        return []
    }
}

/// How one string is compared, as MPD's StringFilter does.
public struct StringMatch: Equatable, Sendable {
    public enum Operator: Equatable, Sendable { case equal, contains, startsWith, regex }
    public var op: Operator
    public var value: String
    public var foldCase: Bool
    public var negated: Bool

    public init(_ op: Operator, _ value: String, foldCase: Bool, negated: Bool = false) {
        self.op = op
        self.value = value
        self.foldCase = foldCase
        self.negated = negated
    }

    /// The comparison itself, negation left out.
    public func matchesWithoutNegation(_ text: String) -> Bool {
        switch op {
        case .regex:
            return FilterRegex.compiled(value, foldCase: foldCase)?.firstMatch(
                in: text, range: NSRange(text.startIndex..., in: text)) != nil
        case .equal:
            return foldCase ? Self.fold(text) == Self.fold(value) : text.utf8.elementsEqual(value.utf8)
        case .contains:
            return Self.bytes(foldCase ? Self.fold(text) : text, contain: foldCase ? Self.fold(value) : value)
        case .startsWith:
            return (foldCase ? Self.fold(text) : text).utf8.starts(with: (foldCase ? Self.fold(value) : value).utf8)
        }
    }

    static func fold(_ text: String) -> String { text.lowercased() }

    static func bytes(_ haystack: String, contain needle: String) -> Bool {
        let h = Array(haystack.utf8), n = Array(needle.utf8)
        guard !n.isEmpty else { return true }
        guard h.count >= n.count else { return false }
        for start in 0...(h.count - n.count) where h[start] == n[0] {
            if h[start..<(start + n.count)].elementsEqual(n) { return true }
        }
        return false
    }
}

/// One condition of a filter: MPD's filter expression language, plus `starts_with` and `added-since`.
public indirect enum SongFilter: Equatable, Sendable {
    /// A tag's values (nil: any tag).
    case tag(FilterTag?, StringMatch)
    case uri(StringMatch)
    /// Songs in this folder (a URI prefix) or below.
    case base(String)
    case modifiedSince(Int64)
    case addedSince(Int64)
    case audioFormat(AudioFormatMask)
    case not(SongFilter)
    case and([SongFilter])
    /// XZMusic's own (the catalogue's command line): a number within bounds, the song liked or not.
    case number(NumberField, lower: Int?, upper: Int?)
    case liked(Bool)
}

public enum NumberField: String, Sendable { case year, plays }

/// `SAMPLERATE:BITS:CHANNELS`, where `*` (with `=~`) matches anything.
public struct AudioFormatMask: Equatable, Sendable {
    public var sampleRate: Int?
    public var bits: String?
    public var channels: Int?
}

/// A malformed filter; the message is MPD's.
public struct FilterError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Parses filters exactly as MPD 0.23's SongFilter does (src/song/Filter.cxx), with its error messages.
public enum FilterParser {
    /// Arguments of find/search/count/list: expressions in parentheses and old-style `TAG VALUE` pairs,
    /// all of which must hold. `foldCase`: `search` (case-insensitive, and old pairs match substrings).
    public static func parse(_ arguments: [String], foldCase: Bool) throws(FilterError) -> [SongFilter] {
        guard !arguments.isEmpty else { throw FilterError("Incorrect number of filter arguments") }
        var filters: [SongFilter] = []
        var rest = arguments[...]
        while let first = rest.first {
            if first.hasPrefix("(") {
                rest = rest.dropFirst()
                var scanner = Scanner(first)
                let filter = try scanner.expression(foldCase: foldCase)
                guard scanner.atEnd else { throw FilterError("Unparsed garbage after expression") }
                filters.append(filter)
                continue
            }
            guard rest.count >= 2 else { throw FilterError("Incorrect number of filter arguments") }
            let name = rest.removeFirst(), value = rest.removeFirst()
            filters.append(try pair(name, value, foldCase: foldCase))
        }
        return filters
    }

    /// One expression, e.g. `(Artist == 'x')`, for the catalogue's own `find`.
    public static func parseExpression(_ text: String, foldCase: Bool = false) throws(FilterError) -> SongFilter {
        guard text.hasPrefix("(") else { throw FilterError("'(' expected") }
        var scanner = Scanner(text)
        let filter = try scanner.expression(foldCase: foldCase)
        guard scanner.atEnd else { throw FilterError("Unparsed garbage after expression") }
        return filter
    }

    enum FilterType: Equatable {
        case tag(FilterTag), any, file, base, modifiedSince, addedSince, audioFormat
    }

    static func filterType(_ name: String) -> FilterType? {
        let lower = name.lowercased()
        if lower == "file" || lower == "filename" { return .file }
        if lower == "any" { return .any }
        if name == "base" { return .base }
        if name == "modified-since" { return .modifiedSince }
        if name == "added-since" { return .addedSince }
        if lower == "audioformat" { return .audioFormat }
        return FilterTag(name).map(FilterType.tag)
    }

    static func pair(_ name: String, _ value: String, foldCase: Bool) throws(FilterError) -> SongFilter {
        guard let type = filterType(name) else { throw FilterError("Unknown filter type") }
        // MPD 0.20 compatibility: case folding also means substring matching.
        let match = StringMatch(foldCase ? .contains : .equal, value, foldCase: foldCase)
        switch type {
        case .base:
            guard isSafeLocalURI(value) else { throw FilterError("Bad URI") }
            return .base(value)
        case .modifiedSince: return .modifiedSince(try timestamp(value))
        case .addedSince: return .addedSince(try timestamp(value))
        case .file: return .uri(match)
        case .any: return .tag(nil, match)
        case .tag(let tag): return .tag(tag, match)
        case .audioFormat: return .audioFormat(try audioFormat(value, mask: false))
        }
    }

    /// MPD's uri_safe_local: relative, no `.`/`..` segments, no empty segment.
    public static func isSafeLocalURI(_ uri: String) -> Bool {
        if uri.isEmpty { return true }
        if uri.hasPrefix("/") { return false }
        return uri.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// ISO 8601 (a date, or a date and time in UTC or with an offset), else a whole number of Unix seconds.
    static func timestamp(_ text: String) throws(FilterError) -> Int64 {
        if let date = iso8601(text) { return Int64(date.timeIntervalSince1970.rounded(.down)) }
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text) { return value }
        throw FilterError("Failed to parse time stamp")
    }

    private static func iso8601(_ text: String) -> Date? {
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    static func audioFormat(_ text: String, mask: Bool) throws(FilterError) -> AudioFormatMask {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { throw FilterError("Failed to parse audio format: \(text)") }
        func number(_ part: String, _ what: String) throws(FilterError) -> Int? {
            if mask && part == "*" { return nil }
            guard let value = Int(part), value > 0 else { throw FilterError("Failed to parse \(what): \(text)") }
            return value
        }
        let rate = try number(parts[0], "sample rate")
        let bits: String? = mask && parts[1] == "*" ? nil : parts[1]
        guard bits == nil || ["8", "16", "24", "32", "f", "dsd"].contains(bits!) else {
            throw FilterError("Failed to parse sample format: \(text)")
        }
        let channels = try number(parts[2], "channel count")
        return AudioFormatMask(sampleRate: rate, bits: bits, channels: channels)
    }

    /// Reads one parenthesised expression as MPD's SongFilter::ParseExpression does.
    struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ text: String) { bytes = Array(text.utf8) }

        var atEnd: Bool { position >= bytes.count }
        var current: UInt8 { position < bytes.count ? bytes[position] : 0 }
        func peek(_ offset: Int) -> UInt8 { position + offset < bytes.count ? bytes[position + offset] : 0 }

        mutating func stripLeft() {
            while position < bytes.count, bytes[position] == 0x20 || (0x09...0x0D).contains(bytes[position]) {
                position += 1
            }
        }

        static func isWordByte(_ c: UInt8) -> Bool {
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2D
        }

        mutating func word() throws(FilterError) -> String {
            let start = position
            while Self.isWordByte(current) { position += 1 }
            guard position > start else { throw FilterError("Word expected") }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            stripLeft()
            return text
        }

        mutating func quoted() throws(FilterError) -> String {
            let quote = current
            guard quote == 0x22 || quote == 0x27 else { throw FilterError("Quoted string expected") }
            position += 1
            var value: [UInt8] = []
            while current != quote {
                // A backslash escapes the next character.
                if current == 0x5C { position += 1 }
                guard !atEnd else { throw FilterError("Closing quote not found") }
                value.append(current)
                position += 1
                guard value.count < 4096 else { throw FilterError("Quoted value is too long") }
            }
            position += 1
            stripLeft()
            return String(decoding: value, as: UTF8.self)
        }

        mutating func closing() throws(FilterError) {
            guard current == 0x29 else { throw FilterError("')' expected") }
            position += 1
            stripLeft()
        }

        /// Case-insensitive `prefix` (ending in a space) at the current position.
        mutating func take(_ prefix: String) -> Bool {
            let p = Array(prefix.utf8)
            guard position + p.count <= bytes.count else { return false }
            for (i, c) in p.enumerated() where (bytes[position + i] | 0x20) != (c | 0x20) { return false }
            position += p.count
            stripLeft()
            return true
        }

        mutating func stringMatch(foldCase: Bool) throws(FilterError) -> StringMatch {
            if take("contains ") { return StringMatch(.contains, try quoted(), foldCase: foldCase) }
            if take("!contains ") { return StringMatch(.contains, try quoted(), foldCase: foldCase, negated: true) }
            if take("starts_with ") { return StringMatch(.startsWith, try quoted(), foldCase: foldCase) }
            if take("!starts_with ") { return StringMatch(.startsWith, try quoted(), foldCase: foldCase, negated: true) }
            if (current == 0x21 || current == 0x3D) && peek(1) == 0x7E {
                let negated = current == 0x21
                position += 2
                stripLeft()
                let pattern = try quoted()
                guard FilterRegex.compiled(pattern, foldCase: foldCase) != nil else {
                    throw FilterError("Failed to compile regex: \(pattern)")
                }
                return StringMatch(.regex, pattern, foldCase: foldCase, negated: negated)
            }
            let negated: Bool
            if current == 0x21 && peek(1) == 0x3D {
                negated = true
            } else if current == 0x3D && peek(1) == 0x3D {
                negated = false
            } else {
                throw FilterError("'==' or '!=' expected")
            }
            position += 2
            stripLeft()
            return StringMatch(.equal, try quoted(), foldCase: foldCase, negated: negated)
        }

        mutating func expression(foldCase: Bool) throws(FilterError) -> SongFilter {
            guard current == 0x28 else { throw FilterError("'(' expected") }
            position += 1
            stripLeft()
            if current == 0x28 {
                let first = try expression(foldCase: foldCase)
                if current == 0x29 {
                    position += 1
                    return first
                }
                guard try word() == "AND" else { throw FilterError("'AND' expected") }
                var items = [first]
                while true {
                    items.append(try expression(foldCase: foldCase))
                    if current == 0x29 {
                        position += 1
                        return .and(items)
                    }
                    guard try word() == "AND" else { throw FilterError("'AND' expected") }
                }
            }
            if current == 0x21 {
                position += 1
                stripLeft()
                guard current == 0x28 else { throw FilterError("'(' expected") }
                let inner = try expression(foldCase: foldCase)
                try closing()
                return .not(inner)
            }
            let name = try word()
            guard let type = FilterParser.filterType(name) else { throw FilterError("Unknown filter type: \(name)") }
            switch type {
            case .modifiedSince, .addedSince:
                let value = try FilterParser.timestamp(try quoted())
                try closing()
                return type == .modifiedSince ? .modifiedSince(value) : .addedSince(value)
            case .base:
                let value = try quoted()
                try closing()
                return .base(value)
            case .audioFormat:
                let mask: Bool
                if current == 0x3D && peek(1) == 0x3D {
                    mask = false
                } else if current == 0x3D && peek(1) == 0x7E {
                    mask = true
                } else {
                    throw FilterError("'==' or '=~' expected")
                }
                position += 2
                stripLeft()
                let format = try FilterParser.audioFormat(try quoted(), mask: mask)
                try closing()
                return .audioFormat(format)
            case .file:
                let match = try stringMatch(foldCase: foldCase)
                try closing()
                return .uri(match)
            case .any:
                let match = try stringMatch(foldCase: foldCase)
                try closing()
                return .tag(nil, match)
            case .tag(let tag):
                let match = try stringMatch(foldCase: foldCase)
                try closing()
                return .tag(tag, match)
            }
        }
    }
}

/// Compiled patterns, shared by every query thread.
enum FilterRegex {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var cache: [String: NSRegularExpression] = [:]

    static func compiled(_ pattern: String, foldCase: Bool) -> NSRegularExpression? {
        let key = (foldCase ? "i" : "c") + pattern
        lock.lock()
        defer { lock.unlock() }
        if let known = cache[key] { return known }
        guard let regex = try? NSRegularExpression(pattern: pattern, options: foldCase ? [.caseInsensitive] : []) else {
            return nil
        }
        if cache.count > 256 { cache.removeAll() }
        cache[key] = regex
        return regex
    }
}

/// The catalogue's own search terms: `title:`, `singer:`, `album:`, `albumartist:`, `genre:` (text, quoted
/// when it holds spaces), `year:` and `plays:` (N, N..M, N.., ..M), `liked:` (yes/no); other words are
/// searched everywhere. Each becomes a filter of the one engine; the words fold as XZMusic's search does.
public enum FieldTerms {
    public static let textFields: [String: FilterTag] = [
        "title": .title, "singer": .artist, "album": .album, "albumartist": .albumArtist, "genre": .genre,
    ]

    /// Whether `text` uses any field term (otherwise it is a plain search).
    public static func hasFields(_ text: String) -> Bool {
        words(text).contains { field(of: $0) != nil }
    }

    public static func parse(_ text: String) throws(FilterError) -> [SongFilter] {
        var filters: [SongFilter] = []
        for word in words(text) {
            guard let (name, value) = field(of: word) else {
                filters.append(.tag(nil, StringMatch(.contains, word, foldCase: true)))
                continue
            }
            guard !value.isEmpty else { throw FilterError("\(name): give a value after the colon") }
            if let tag = textFields[name] {
                filters.append(.tag(tag, StringMatch(.contains, value, foldCase: true)))
            } else if name == "liked" {
                switch value.lowercased() {
                case "yes", "true", "1": filters.append(.liked(true))
                case "no", "false", "0": filters.append(.liked(false))
                default: throw FilterError("liked: expected yes or no, not \"\(value)\"")
                }
            } else {
                let field = NumberField(rawValue: name)!
                guard let (lower, upper) = range(value) else {
                    throw FilterError("\(name): expected a number or a range like 2003..2005, not \"\(value)\"")
                }
                filters.append(.number(field, lower: lower, upper: upper))
            }
        }
        return filters
    }

    static func field(of word: String) -> (String, String)? {
        guard let colon = word.firstIndex(of: ":") else { return nil }
        let name = word[..<colon].lowercased()
        guard textFields[name] != nil || name == "year" || name == "plays" || name == "liked" else { return nil }
        var value = String(word[word.index(after: colon)...])
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
        return (name, value)
    }

    /// "N", "N..M", "N..", "..M".
    static func range(_ text: String) -> (Int?, Int?)? {
        guard let dots = text.range(of: "..") else {
            guard let value = Int(text) else { return nil }
            return (value, value)
        }
        let low = text[..<dots.lowerBound], high = text[dots.upperBound...]
        guard !(low.isEmpty && high.isEmpty) else { return nil }
        let lower = low.isEmpty ? nil : Int(low), upper = high.isEmpty ? nil : Int(high)
        if !low.isEmpty && lower == nil { return nil }
        if !high.isEmpty && upper == nil { return nil }
        if let lower, let upper, lower > upper { return nil }
        return (lower, upper)
    }

    /// Words split at spaces, a double-quoted stretch (`singer:"Taylor Swift"`) kept whole.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        for character in text {
            if character == "\"" { quoted.toggle() }
            if character.isWhitespace && !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
