import GRDB

/// The `song.more_tags` column (schema.sql, v12-more-tags): the tags beyond those of their own columns,
/// as entries "Name=value" under MPD's names, separated by U+001E, in `SongTags.listed` order.
package enum MoreTagsColumn {
    static let entrySeparator: Character = "\u{1E}"

    /// The tags a column of their own holds; every other held tag goes to `more_tags`.
    package static let ownColumns: Set<SongTag> = [.artist, .albumArtist, .album, .title, .track, .date, .genre, .disc]

    static func encode(_ tags: [SongTag: [String]]) -> String {
        var entries: [String] = []
        for tag in SongTags.listed where !ownColumns.contains(tag) {
            for value in tags[tag] ?? [] where !value.isEmpty { entries.append(tag.name + "=" + value) }
        }
        return entries.joined(separator: String(entrySeparator))
    }

    static func decode(_ text: String) -> [SongTag: [String]] {
        guard !text.isEmpty else { return [:] }
        var tags: [SongTag: [String]] = [:]
        for entry in text.split(separator: entrySeparator) {
            guard let equals = entry.firstIndex(of: "="), let tag = SongTag(String(entry[..<equals])) else { continue }
            tags[tag, default: []].append(String(entry[entry.index(after: equals)...]))
        }
        return tags
    }

    /// Entries in their own order (`song.cue_tags`): a CUE track's tags as its sheet gives them.
    static func encode(ordered entries: [TagEntry]) -> String {
        entries.filter { !$0.value.isEmpty }.map { $0.tag.name + "=" + $0.value }.joined(separator: String(entrySeparator))
    }

    static func decode(ordered text: String) -> [TagEntry] {
        guard !text.isEmpty else { return [] }
        return text.split(separator: entrySeparator).compactMap { (entry: Substring) -> TagEntry? in
            guard let equals = entry.firstIndex(of: "="), let tag = SongTag(String(entry[..<equals])) else { return nil }
            return TagEntry(tag, String(entry[entry.index(after: equals)...]))
        }
    }

    /// The values of one tag (NULL: of every tag), joined by U+001F as the other tag columns join
    /// theirs; '' when there are none.
    static func values(_ text: String, name: String?) -> String {
        var found: [Substring] = []
        for entry in text.split(separator: entrySeparator) {
            guard let equals = entry.firstIndex(of: "=") else { continue }
            if let name, !entry[..<equals].elementsEqual(name) { continue }
            found.append(entry[entry.index(after: equals)...])
        }
        return found.joined(separator: "\u{1F}")
    }

    /// xz_tag_values(more_tags, name): `values(_:name:)` in SQL.
    static let function = DatabaseFunction("xz_tag_values", argumentCount: 2, pure: true) { arguments in
        guard let text = String.fromDatabaseValue(arguments[0]), !text.isEmpty else { return "" }
        return values(text, name: String.fromDatabaseValue(arguments[1]))
    }
}

/// One tag value where the order of a song's tags is its own (a CUE track's, as MPD lists it).
package struct TagEntry: Sendable, Equatable {
    package var tag: SongTag
    package var value: String

    package init(_ tag: SongTag, _ value: String) {
        self.tag = tag
        self.value = value
    }
}
