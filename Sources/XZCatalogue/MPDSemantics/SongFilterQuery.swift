import Foundation
import GRDB
import XZSystem

/// What find/search select: the filters (all must hold), an order and a window.
package struct SongSelection: Sendable {
    package enum Order: Sendable, Equatable {
        /// MPD's database order: by folder, a folder's files before its subfolders.
        case path
        case tag(SongTag, descending: Bool)
        case lastModified(descending: Bool)
    }

    package var filters: [SongFilter]
    package var order: Order = .path
    package var window: Range<Int>?
    /// `search`: after MPD's matches, the songs only XZMusic's folding finds (diacritics, width,
    /// traditional/simplified, pinyin, initials).
    package var foldedExtras = false

    /// How MPD orders folder names (by ICU collation; here case-insensitively first, then by bytes).
    package static func folderNamesInOrder(_ names: [String]) -> [String] {
        var names = names
        DatabaseOrder.sortByKey(&names) { name in
            var key: [UInt8] = []
            DatabaseOrder.appendCollationKey(Array(name.utf8)[...], to: &key)
            return key
        }
        return names
    }

    package init(filters: [SongFilter], order: Order = .path, window: Range<Int>? = nil, foldedExtras: Bool = false) {
        self.filters = filters
        self.order = order
        self.window = window
        self.foldedExtras = foldedExtras
    }
}

extension LibraryDatabase {
    /// The one filter engine: songs matching `selection`, for the protocol's find/search/list/count and
    /// the catalogue's own command line (`xzmusic find`); ranked search by words is `search(_:limit:)`,
    /// whose note says why the two differ. Filters become SQL with bound values only; substring matches
    /// of three characters or more find their candidates through the trigram index `song_text`.
    /// `deadline`: the query and the ordering stop with `DeadlinePassed` once it passes.
    package func songs(_ selection: SongSelection, naming: SongNaming, deadline: Deadline = .never) throws -> [Song] {
        try read(by: deadline) { db in
            let (condition, arguments) = FilterSQL.whereClause(selection.filters, naming: naming)
            var songs = try Song.fetchAll(db, sql: "SELECT \(Song.selection) FROM song \(Song.joins)\(condition)",
                                          arguments: arguments)
            try deadline.check()
            DatabaseOrder.sort(&songs, selection.order, naming: naming)
            try deadline.check()
            if selection.foldedExtras, var extras = try Self.foldedExtras(db, selection.filters, naming: naming,
                                                                          excluding: Set(songs.map(\.id))) {
                DatabaseOrder.sort(&extras, selection.order, naming: naming)
                songs += extras
            }
            if let window = selection.window {
                songs = Array(songs[min(window.lowerBound, songs.count)..<min(window.upperBound, songs.count)])
            }
            return songs
        }
    }

    /// What `songs(_:naming:)` selects before ordering and window: MPD's matches, then the folded-only
    /// extras, by id, with the whole song where `wanted` asks for it (every one when nil: one pass reads
    /// them all). For callers that keep songs of their own and order them by `databaseOrderKey`: when
    /// they have most, only ids are read, then the songs they lack.
    package func songIDs(_ selection: SongSelection, naming: SongNaming, deadline: Deadline = .never,
                        wanted: ((Int64) -> Bool)?) throws
        -> (matches: [(id: Int64, song: Song?)], extras: [(id: Int64, song: Song?)]) {
        try read(by: deadline) { db in
            let (condition, arguments) = FilterSQL.whereClause(selection.filters, naming: naming)
            let matches: [(id: Int64, song: Song?)]
            if let wanted {
                let ids = try Int64.fetchAll(db, sql: "SELECT song.id FROM song \(Song.joins)\(condition)", arguments: arguments)
                let read = Dictionary(try Self.songs(db, ids: ids.filter(wanted)).map { ($0.id, $0) }) { first, _ in first }
                matches = ids.map { ($0, read[$0]) }
            } else {
                matches = try Song.fetchAll(db, sql: "SELECT \(Song.selection) FROM song \(Song.joins)\(condition)",
                                            arguments: arguments).map { ($0.id, $0) }
            }
            guard selection.foldedExtras, let extras = try Self.foldedExtras(
                db, selection.filters, naming: naming, excluding: Set(matches.map(\.id))) else {
                return (matches, [])
            }
            return (matches, extras.map { ($0.id, wanted?($0.id) ?? true ? $0 : nil) })
        }
    }

    /// The URIs of the songs `filters` select, unordered: folder listings need names, not whole songs.
    package func songURIs(_ filters: [SongFilter], naming: SongNaming, deadline: Deadline = .never) throws
        -> [(id: Int64, uri: String)] {
        // Folders hold files: songs named by URL are in none.
        var naming = naming
        naming.onlineByURL = false
        return try read(by: deadline) { db in
            let (condition, arguments) = FilterSQL.whereClause(filters, naming: naming)
            let rows = try Row.fetchCursor(db, sql: "SELECT song.id, song.local_path, song.song_key FROM song \(Song.joins)\(condition)",
                                           arguments: arguments)
            var result: [(id: Int64, uri: String)] = []
            while let row = try rows.next() {
                let path: String = row[1]
                result.append((row[0], naming.uri(ofPath: path.isEmpty ? row[2] : path)))
            }
            return result
        }
    }

    /// For each selected song, the values of `tags` as MPD groups by them (the tag, else its fallback,
    /// else the empty string) and its duration: what `list` and `count` read, without whole songs.
    /// `groupedMs` is what MPD's `count … group` adds up: a CUE track's whole image (its tag's length).
    package func tagValues(_ filters: [SongFilter], tags: [SongTag], naming: SongNaming, deadline: Deadline = .never) throws
        -> [(values: [[String]], durationMs: Int, groupedMs: Int)] {
        try read(by: deadline) { db in
            let (condition, arguments) = FilterSQL.whereClause(filters, naming: naming)
            // One column per tag and per fallback tag, in order.
            let chains = tags.map { tag in ([tag] + tag.fallback).compactMap(FilterSQL.valuesSQL) }
            let columns = chains.flatMap { $0 } + ["coalesce(song.duration_ms, 0)", "coalesce(song.cue_image_ms, song.duration_ms, 0)"]
            let rows = try Row.fetchCursor(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM song \(Song.joins)\(condition)",
                                           arguments: arguments)
            var result: [(values: [[String]], durationMs: Int, groupedMs: Int)] = []
            while let row = try rows.next() {
                var column = 0
                var values: [[String]] = []
                for chain in chains {
                    var found: [String] = []
                    for offset in chain.indices where found.isEmpty {
                        let text: String = row[column + offset] ?? ""
                        found = text.split(separator: "\u{1F}").map(String.init)
                    }
                    column += chain.count
                    values.append(found.isEmpty ? [""] : found)
                }
                result.append((values, row[column], row[column + 1]))
            }
            return result
        }
    }

    /// Songs by id, in MPD's database order.
    package func songs(ids: [Int64], naming: SongNaming, deadline: Deadline = .never) throws -> [Song] {
        var songs = try read(by: deadline) { db in try Self.songs(db, ids: ids) }
        try deadline.check()
        DatabaseOrder.sort(&songs, .path, naming: naming)
        return songs
    }

    /// Songs by id, in no order; ids of no song are left out.
    static func songs(_ db: Database, ids: [Int64]) throws -> [Song] {
        guard !ids.isEmpty else { return [] }
        return try Song.fetchAll(db, sql: """
            SELECT \(Song.selection) FROM json_each(?) AS candidate CROSS JOIN song ON song.id = candidate.value
            \(Song.joins)
            """, arguments: ["[" + ids.map(String.init).joined(separator: ",") + "]"])
    }

    /// Songs XZMusic's folded search finds for a `search`: its positive substring or equality conditions
    /// on any tag, the title, the artist or the album (what the folded index holds) matched folded, every
    /// other condition as MPD reads it; nil when there is no such condition to fold.
    static func foldedExtras(_ db: Database, _ filters: [SongFilter], naming: SongNaming,
                             excluding: Set<Int64>) throws -> [Song]? {
        var needles: [(SongTag?, String)] = []
        var rest: [SongFilter] = []
        for filter in filters {
            if case .tag(let tag, let match) = filter, !match.negated, match.op == .contains || match.op == .equal,
               tag == nil || tag == .title || tag == .artist || tag == .album {
                needles.append((tag, match.value))
            } else {
                rest.append(filter)
            }
        }
        guard !needles.isEmpty, let terms = QueryTerms(needles.map(\.1).joined(separator: " ")) else { return nil }
        let ids = try Int64.fetchAll(db, sql: "SELECT rowid FROM song_search WHERE song_search MATCH ?",
                                     arguments: [terms.expression(lastAsPrefix: true)])
            .filter { !excluding.contains($0) }
        guard !ids.isEmpty else { return [] }
        var arguments: [DatabaseValueConvertible?] = ["[" + ids.map(String.init).joined(separator: ",") + "]"]
        var conditions = naming.listedCondition.map { [$0] } ?? []
        for filter in rest { conditions.append(FilterSQL.condition(filter, naming: naming, arguments: &arguments)) }
        let songs = try Song.fetchAll(db, sql: """
            SELECT \(Song.selection) FROM json_each(?) AS candidate CROSS JOIN song ON song.id = candidate.value
            \(Song.joins)\(conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            """, arguments: StatementArguments(arguments))
        // A condition holds only when the folded text of its tag's own values matches (for `any`, of the
        // tags the index holds): a name the scan made up for an untagged song is in the index, not in a tag.
        return songs.filter { song in
            needles.allSatisfy { tag, needle in
                guard let own = QueryTerms(needle) else { return false }
                let values = (tag.map { [$0] } ?? [.title, .artist, .album]).flatMap { $0.values(of: song) }
                var document = Array(SearchText.document(values).utf8)
                return document.withUnsafeMutableBufferPointer { own.matches(document: UnsafeBufferPointer($0)) }
            }
        }
    }
}

/// Filters as SQL over `song JOIN singer LEFT JOIN album`, with the xz_match function (FilterFunctions).
enum FilterSQL {
    /// A tag's values, several joined by U+001F; '' when the song has none.
    static func valuesSQL(_ tag: SongTag) -> String? {
        switch tag {
        // A name the scan made up is no tag (`Song.untagged`).
        case .artist: return "(CASE WHEN song.untagged & 2 THEN '' WHEN song.artists <> '' THEN song.artists ELSE singer.name END)"
        case .albumArtist: return "song.album_artist"
        case .album: return "coalesce(album.title, '')"
        case .title: return "(CASE WHEN song.untagged & 1 THEN '' ELSE song.title END)"
        case .track: return "coalesce(CAST(song.track AS TEXT), '')"
        case .date: return "(CASE WHEN song.date <> '' THEN song.date ELSE coalesce(CAST(song.year AS TEXT), '') END)"
        case .genre: return "song.genre"
        case .disc: return "coalesce(CAST(song.disc AS TEXT), '')"
        // Names of the fixed table, never text from outside.
        default: return SongTags.held.contains(tag) ? "xz_tag_values(song.more_tags, '\(tag.name)')" : nil
        }
    }

    /// ` WHERE …` for `filters` (empty when nothing filters), with its bound values.
    static func whereClause(_ filters: [SongFilter], naming: SongNaming) -> (sql: String, arguments: StatementArguments) {
        var arguments: [DatabaseValueConvertible?] = []
        var conditions = naming.listedCondition.map { [$0] } ?? []
        for filter in filters {
            conditions.append(condition(filter, naming: naming, arguments: &arguments, topLevel: true))
        }
        return (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "), StatementArguments(arguments))
    }

    /// Every tag value of the song (MPD's `any`).
    static let allValuesSQL = MoreTagsColumn.ownColumns.sorted { $0.rawValue < $1.rawValue }.compactMap(valuesSQL)
        .joined(separator: " || char(31) || ") + " || char(31) || xz_tag_values(song.more_tags, NULL)"

    static func matchSQL(_ values: String, _ match: StringMatch, _ arguments: inout [DatabaseValueConvertible?]) -> String {
        let op: Int
        switch match.op {
        case .equal: op = 0
        case .contains: op = 1
        case .startsWith: op = 2
        case .regex: op = 3
        }
        arguments += [op, match.value, match.foldCase ? 1 : 0]
        return "xz_match(\(values), ?, ?, ?)"
    }

    static func condition(_ filter: SongFilter, naming: SongNaming, arguments: inout [DatabaseValueConvertible?],
                          topLevel: Bool = false) -> String {
        switch filter {
        case .tag(let tag, let match):
            var own: [DatabaseValueConvertible?] = []
            var positive: String
            if let tag {
                // MPD: an absent tag reads its fallback (AlbumArtist → Artist); absent everywhere, it
                // equals the empty string.
                var branches: [String] = []
                for candidate in [tag] + tag.fallback {
                    guard let values = valuesSQL(candidate) else { continue }
                    branches.append("WHEN \(values) <> '' THEN " + matchSQL(values, match, &own))
                }
                let absent = match.value.isEmpty ? "1" : "0"
                positive = branches.isEmpty ? absent : "(CASE \(branches.joined(separator: " ")) ELSE \(absent) END)"
            } else {
                positive = matchSQL("(\(allValuesSQL))", match, &own)
            }
            if topLevel, !match.negated, let holding = songsHolding(match, &arguments) {
                // The index answers which songs hold the text at all. Its text is the values `any`
                // reads, one a line, so for MPD's `search any` that is the answer; else xz_match decides.
                let withinOneValue = !match.value.utf8.contains(0x0A) && !match.value.utf8.contains(0x1F)
                if tag == nil, match.op == .contains, match.foldCase, withinOneValue { return holding }
                positive = holding + " AND " + positive
            }
            arguments += own
            return match.negated ? "NOT (\(positive))" : positive
        case .uri(let match):
            var uriArguments: [DatabaseValueConvertible?] = []
            let uri = naming.uriSQL(&uriArguments)
            arguments += uriArguments
            let positive = matchSQL("(\(uri))", match, &arguments)
            return match.negated ? "NOT (\(positive))" : positive
        case .base(let folder):
            let trimmed = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
            guard !trimmed.isEmpty else { return "1" }
            var uriArguments: [DatabaseValueConvertible?] = []
            let uri = naming.uriSQL(&uriArguments)
            arguments += uriArguments
            arguments.append(trimmed)
            arguments += uriArguments
            arguments += [(trimmed + "/").unicodeScalars.count, trimmed + "/"]
            return "((\(uri)) = ? OR substr((\(uri)), 1, ?) = ?)"
        case .modifiedSince(let seconds):
            arguments.append(seconds)
            return "coalesce(song.file_mtime, 0) >= ?"
        case .addedSince(let seconds):
            arguments.append(SongFilter.timestamp(seconds))
            return "song.added_at >= ?"
        case .audioFormat(let mask):
            var parts: [String] = []
            if let rate = mask.sampleRate {
                parts.append("song.sample_rate = ?")
                arguments.append(rate)
            }
            if let bits = mask.bits {
                // '' is a 16-bit song scanned before formats were kept.
                parts.append(bits == "16" ? "song.sample_format IN ('', '16')" : "song.sample_format = ?")
                if bits != "16" { arguments.append(bits) }
            }
            if let channels = mask.channels {
                parts.append("song.channels = ?")
                arguments.append(channels)
            }
            return parts.isEmpty ? "song.sample_rate IS NOT NULL" : "(" + parts.joined(separator: " AND ") + ")"
        case .number(let field, let lower, let upper):
            let column = field == .year ? "song.year"
                : "coalesce((SELECT plays FROM song_popularity WHERE song_popularity.song_key = song.song_key), 0)"
            var parts: [String] = []
            if let lower {
                parts.append("\(column) >= ?")
                arguments.append(lower)
            }
            if let upper {
                parts.append("\(column) <= ?")
                arguments.append(upper)
            }
            return parts.isEmpty ? "1" : "(" + parts.joined(separator: " AND ") + ")"
        case .liked(let liked):
            // MPD clients and the terminal act as the owner (user 0).
            return (liked ? "" : "NOT ") + "EXISTS (SELECT 1 FROM song_like WHERE song_like.user_id = 0 AND song_like.song_key = song.song_key)"
        case .not(.not(let inner)):
            // Each parenthesis costs SQLite's parser stack (100 entries): what can be said without one is.
            return condition(inner, naming: naming, arguments: &arguments)
        case .not(let inner):
            return "NOT (\(condition(inner, naming: naming, arguments: &arguments)))"
        case .and(let items):
            // `(a AND (b AND c))` is `a AND b AND c`: one level, not one per item.
            return "(" + conjuncts(items).map { condition($0, naming: naming, arguments: &arguments) }
                .joined(separator: " AND ") + ")"
        }
    }

    /// The conditions of an AND, those of ANDs within it spliced in.
    static func conjuncts(_ items: [SongFilter]) -> [SongFilter] {
        items.flatMap { item -> [SongFilter] in
            if case .and(let inner) = item { return conjuncts(inner) }
            return [item]
        }
    }

    /// SQL for the songs whose `song_text` holds the match's value case-insensitively, through the
    /// trigram index; nil when the index cannot answer (a regex, an empty value).
    static func songsHolding(_ match: StringMatch, _ arguments: inout [DatabaseValueConvertible?]) -> String? {
        if let phrase = trigramPhrase(match) {
            arguments.append(phrase)
            return "song.id IN (SELECT rowid FROM song_text WHERE song_text MATCH ?)"
        }
        if let range = trigramPrefixRange(match) {
            // Too short for a trigram: the songs holding it are those with a trigram it begins.
            arguments += [range.lower, range.upper]
            return "song.id IN (SELECT doc FROM song_text_terms WHERE term >= ? AND term <= ?)"
        }
        return nil
    }

    /// The trigram MATCH phrase for a match every hit must contain as a case-insensitive substring;
    /// nil when the index cannot answer it (shorter than three characters, a regex, an empty value).
    static func trigramPhrase(_ match: StringMatch) -> String? {
        guard match.op != .regex, match.value.unicodeScalars.count >= 3 else { return nil }
        return "\"" + match.value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// For a needle of one or two characters, the range of the trigrams it begins, folded as the
    /// trigram tokenizer folds them; nil when the index cannot answer it.
    static func trigramPrefixRange(_ match: StringMatch) -> (lower: String, upper: String)? {
        guard match.op != .regex else { return nil }
        let folded = match.value.lowercased()
        let length = folded.unicodeScalars.count
        guard (1...2).contains(length), length == match.value.unicodeScalars.count else { return nil }
        return (folded, folded + String(repeating: "\u{10FFFF}", count: 3 - length))
    }
}

/// The SQL function filters call: xz_match(values, op, needle, fold) is 1 when any of the values
/// (separated by U+001F) matches as StringMatch says, negation left to the SQL around it.
enum FilterFunctions {
    static let match = DatabaseFunction("xz_match", argumentCount: 4, pure: true) { arguments in
        guard let values = String.fromDatabaseValue(arguments[0]), !values.isEmpty,
              let code = Int.fromDatabaseValue(arguments[1]),
              let needle = String.fromDatabaseValue(arguments[2]),
              let fold = Int.fromDatabaseValue(arguments[3]) else { return 0 }
        let op: StringMatch.Operator = [.equal, .contains, .startsWith, .regex][min(max(code, 0), 3)]
        let match = StringMatch(op, needle, foldCase: fold != 0)
        // A substring without the separator matches a value exactly when it matches the joined values.
        if op == .contains, !needle.utf8.contains(0x1F) { return match.matchesWithoutNegation(values) ? 1 : 0 }
        for value in values.split(separator: "\u{1F}", omittingEmptySubsequences: true)
        where match.matchesWithoutNegation(String(value)) {
            return 1
        }
        return 0
    }
}
