import Foundation
import XZSystem

/// A tag as MPD names it (its `TagType`), in MPD 0.23's order. The catalogue holds all but Comment
/// (`SongTags.held`), which MPD leaves out unless configured to keep it; on Comment every song is untagged.
package enum SongTag: Int, CaseIterable, Sendable, CustomStringConvertible {
    case artist, artistSort, album, albumSort, albumArtist, albumArtistSort, title, track, name, genre, date
    case originalDate, composer, composerSort, performer, conductor, work, movement, movementNumber, ensemble
    case location, grouping, comment, disc, label, musicBrainzArtistID, musicBrainzAlbumID, musicBrainzAlbumArtistID
    case musicBrainzTrackID, musicBrainzReleaseTrackID, musicBrainzWorkID

    private static let names = [
        "Artist", "ArtistSort", "Album", "AlbumSort", "AlbumArtist", "AlbumArtistSort", "Title", "Track", "Name",
        "Genre", "Date", "OriginalDate", "Composer", "ComposerSort", "Performer", "Conductor", "Work", "Movement",
        "MovementNumber", "Ensemble", "Location", "Grouping", "Comment", "Disc", "Label", "MUSICBRAINZ_ARTISTID",
        "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ALBUMARTISTID", "MUSICBRAINZ_TRACKID", "MUSICBRAINZ_RELEASETRACKID",
        "MUSICBRAINZ_WORKID",
    ]

    /// MPD's name of the tag.
    package var name: String { Self.names[rawValue] }

    package var description: String { name }

    private static let byLowercasedName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name.lowercased(), $0) })

    /// A tag by name in any case, as MPD's tag_name_parse_i reads it.
    package init?(_ text: String) {
        guard let tag = Self.byLowercasedName[text.lowercased()] else { return nil }
        self = tag
    }

    /// The tags MPD reads instead when a song lacks this one (its ApplyTagFallback, which `sort` follows
    /// too: a ComposerSort is no Composer).
    var fallback: [SongTag] {
        switch self {
        case .albumArtist, .artistSort: return [.artist]
        case .albumSort: return [.album]
        case .albumArtistSort: return [.albumArtist, .artist]
        default: return []
        }
    }

    /// Numbers sort as numbers.
    var isNumeric: Bool { self == .track || self == .disc }

    /// The song's values of this tag (empty when it has none).
    package func values(of song: Song) -> [String] {
        switch self {
        // A name the scan made up is no tag (`untagged`).
        case .artist: return song.untagged.contains(.artist) ? [] : song.artists.isEmpty ? [song.singer] : song.artists
        case .albumArtist: return song.albumArtist.map { [$0] } ?? []
        case .album: return song.album.map { [$0] } ?? []
        case .title: return song.untagged.contains(.title) ? [] : [song.title]
        case .track: return song.track.map { [String($0)] } ?? []
        case .date: return song.date.map { [$0] } ?? []
        case .genre: return song.genres
        case .disc: return song.disc.map { [String($0)] } ?? []
        default: return song.moreTags[self] ?? []
        }
    }

    /// The tags MPD's `any` reads: every tag the song has.
    static let anyTags: [SongTag] = SongTags.listed

    /// Values with MPD's fallback applied (AlbumArtist → Artist ...).
    package func valuesWithFallback(of song: Song) -> [String] {
        let own = values(of: song)
        if !own.isEmpty { return own }
        for other in fallback {
            let values = other.values(of: song)
            if !values.isEmpty { return values }
        }
        return []
    }
}

/// A set of tags, as MPD's `TagMask`: the tags a client asked to see (`tagtypes`), or a record was made for.
package struct SongTags: OptionSet, Hashable, Sendable {
    package let rawValue: UInt32

    package init(rawValue: UInt32) { self.rawValue = rawValue }

    package init(_ tags: some Sequence<SongTag>) {
        self.init(rawValue: tags.reduce(0) { $0 | 1 << UInt32($1.rawValue) })
    }

    package func contains(_ tag: SongTag) -> Bool { rawValue & 1 << UInt32(tag.rawValue) != 0 }

    package mutating func insert(_ tag: SongTag) { formUnion(SongTags([tag])) }

    /// The tags the catalogue holds, in the order MPD lists a song's tags (the order its ID3 scanner
    /// reads them; ComposerSort beside Composer, and the tags it reads from no ID3 frame, after them).
    /// Name is a stream's, never a file's: announced, never in a song's record.
    package static let listed: [SongTag] = [
        .artist, .albumArtist, .artistSort, .albumSort, .albumArtistSort, .title, .album, .track, .date, .originalDate,
        .genre, .composer, .composerSort, .conductor, .performer, .grouping, .disc, .label, .work, .movement,
        .movementNumber, .ensemble, .location, .musicBrainzArtistID, .musicBrainzAlbumID, .musicBrainzAlbumArtistID,
        .musicBrainzTrackID, .musicBrainzReleaseTrackID, .musicBrainzWorkID, .name,
    ]
    /// What MPD announces by default (`tagtypes`): every tag but Comment.
    package static let held = SongTags(listed)
    package static let all = SongTags(SongTag.allCases)

    /// The tags of the set in MPD's order of tag types (`tagtypes`).
    package var inTagTypeOrder: [SongTag] { SongTag.allCases.filter(contains) }
}

/// How one string is compared, as MPD's StringFilter does.
package struct StringMatch: Equatable, Sendable {
    package enum Operator: Equatable, Sendable { case equal, contains, startsWith, regex }
    package var op: Operator
    package var value: String
    package var foldCase: Bool
    package var negated: Bool

    package init(_ op: Operator, _ value: String, foldCase: Bool, negated: Bool = false) {
        self.op = op
        self.value = value
        self.foldCase = foldCase
        self.negated = negated
    }

    /// The comparison itself, negation left out.
    package func matchesWithoutNegation(_ text: String) -> Bool {
        switch op {
        case .regex:
            // The parser compiled it already: a pattern that does not compile never gets here.
            return (try? FilterRegex.compiled(value, foldCase: foldCase))?.matches(text) ?? false
        case .equal:
            return foldCase ? Self.fold(text) == Self.fold(value) : text.utf8.elementsEqual(value.utf8)
        case .contains:
            return Self.text(text, contains: foldCase ? Self.fold(value) : value, folding: foldCase)
        case .startsWith:
            return (foldCase ? Self.fold(text) : text).utf8.starts(with: (foldCase ? Self.fold(value) : value).utf8)
        }
    }

    static func fold(_ text: String) -> String { text.lowercased() }

    /// Whether `haystack` holds `needle` (folded already when `folding`). ASCII text folds byte by
    /// byte in place; other text goes through `fold` first.
    static func text(_ haystack: String, contains needle: String, folding: Bool) -> Bool {
        var haystack = haystack, needle = needle
        if folding, !haystack.utf8.allSatisfy({ $0 < 0x80 }) {
            haystack = fold(haystack)
            return text(haystack, contains: needle, folding: false)
        }
        return haystack.withUTF8 { h in
            needle.withUTF8 { n in
                guard !n.isEmpty else { return true }
                guard h.count >= n.count else { return false }
                for start in 0...(h.count - n.count) {
                    var offset = 0
                    while offset < n.count {
                        var byte = h[start + offset]
                        if folding, byte >= 0x41, byte <= 0x5A { byte |= 0x20 }
                        guard byte == n[offset] else { break }
                        offset += 1
                    }
                    if offset == n.count { return true }
                }
                return false
            }
        }
    }
}

/// One condition of a filter: MPD's filter expression language, plus `starts_with` and `added-since`.
package indirect enum SongFilter: Equatable, Sendable {
    /// A tag's values (nil: any tag).
    case tag(SongTag?, StringMatch)
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

package enum NumberField: String, Sendable { case year, plays }

/// `SAMPLERATE:BITS:CHANNELS`, where `*` (with `=~`) matches anything.
package struct AudioFormatMask: Equatable, Sendable {
    package var sampleRate: Int?
    package var bits: String?
    package var channels: Int?
}

/// The catalogue's own search terms: `title:`, `singer:`, `album:`, `albumartist:`, `genre:` (text, quoted
/// when it holds spaces), `year:` and `plays:` (N, N..M, N.., ..M), `liked:` (yes/no); other words are
/// searched everywhere. Each becomes a filter of the one engine; the words fold as XZMusic's search does.
package enum FieldTerms {
    package static let textFields: [String: SongTag] = [
        "title": .title, "singer": .artist, "album": .album, "albumartist": .albumArtist, "genre": .genre,
    ]

    /// Whether `text` uses any field term (otherwise it is a plain search).
    package static func hasFields(_ text: String) -> Bool {
        words(text).contains { field(of: $0) != nil }
    }

    package static func parse(_ text: String) throws(CatalogueError) -> [SongFilter] {
        var filters: [SongFilter] = []
        for word in words(text) {
            guard let (name, value) = field(of: word) else {
                filters.append(.tag(nil, StringMatch(.contains, word, foldCase: true)))
                continue
            }
            guard !value.isEmpty else { throw .badFilter("\(name): give a value after the colon") }
            if let tag = textFields[name] {
                filters.append(.tag(tag, StringMatch(.contains, value, foldCase: true)))
            } else if name == "liked" {
                switch value.lowercased() {
                case "yes", "true", "1": filters.append(.liked(true))
                case "no", "false", "0": filters.append(.liked(false))
                default: throw .badFilter("liked: expected yes or no, not \"\(value)\"")
                }
            } else {
                let field = NumberField(rawValue: name)!
                guard let (lower, upper) = range(value) else {
                    throw .badFilter("\(name): expected a number or a range like 2003..2005, not \"\(value)\"")
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

extension SongFilter {
    /// The filter on one song in memory (the queue's entries), as the SQL engine (SongFilterQuery)
    /// reads it; `uri` is the song's name. Plays and likes need the database: no song here holds them.
    package func matches(_ song: Song, uri: String) -> Bool {
        switch self {
        case .tag(let tag, let match):
            let positive: Bool
            if let tag {
                // An absent tag reads its fallback; absent everywhere, it equals the empty string.
                let values = tag.valuesWithFallback(of: song).filter { !$0.isEmpty }
                positive = values.isEmpty ? match.value.isEmpty : values.contains(where: match.matchesWithoutNegation)
            } else {
                positive = SongTag.anyTags.flatMap { $0.values(of: song) }
                    .contains { !$0.isEmpty && match.matchesWithoutNegation($0) }
            }
            return positive != match.negated
        case .uri(let match):
            return match.matchesWithoutNegation(uri) != match.negated
        case .base(let folder):
            let trimmed = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
            return trimmed.isEmpty || uri == trimmed || uri.hasPrefix(trimmed + "/")
        case .modifiedSince(let seconds):
            return (song.fileMtime ?? 0) >= seconds
        case .addedSince(let seconds):
            return song.addedAt >= SongFilter.timestamp(seconds)
        case .audioFormat(let mask):
            guard song.sampleRate != nil else { return false }
            if let bits = mask.bits, bits != (song.sampleFormat ?? "16") { return false }
            return mask.sampleRate.map { song.sampleRate == $0 } ?? true && mask.channels.map { song.channels == $0 } ?? true
        case .number(let field, let lower, let upper):
            guard field == .year, let year = song.year else { return false }
            return year >= (lower ?? Int.min) && year <= (upper ?? Int.max)
        case .liked:
            return false
        case .not(let inner):
            return !inner.matches(song, uri: uri)
        case .and(let items):
            return items.allSatisfy { $0.matches(song, uri: uri) }
        }
    }

    /// `added-since` compares the catalogue's ISO 8601 `added_at` with this.
    static func timestamp(_ seconds: Int64) -> String {
        UTCStamp.string(Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
