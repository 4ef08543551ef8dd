import Foundation
import GRDB
import XZSystem

/// What a lyrics lookup found for a song, as `fetched_lyrics` keeps it.
package enum FetchedLyricsKind: String, Sendable, Codable, CaseIterable {
    case synced, plain, instrumental
    case notFound = "not_found"
}

package struct FetchedLyrics: Sendable, Equatable {
    package var kind: FetchedLyricsKind
    /// The lyrics; empty for instrumental and not found.
    package var text: String
    package var fetchedAt: Date

    package init(kind: FetchedLyricsKind, text: String = "", fetchedAt: Date = Date()) {
        self.kind = kind
        self.text = text
        self.fetchedAt = fetchedAt
    }
}

extension LibraryDatabase {
    /// The kept lookup result of a song, a not-found one included however old.
    package func fetchedLyrics(songKey: String) throws -> FetchedLyrics? {
        try fetchedLyrics(songKeys: [songKey])[songKey]
    }

    /// The kept lookup results of many songs in one read, by song key.
    package func fetchedLyrics(songKeys: [String]) throws -> [String: FetchedLyrics] {
        try pool.read { db in
            var found: [String: FetchedLyrics] = [:]
            try Self.forEachRow(db, "SELECT song_key, kind, text, fetched_at FROM fetched_lyrics WHERE song_key IN", keys: songKeys) { row in
                // A kind this version does not know reads as no result, asked again.
                guard let kind = FetchedLyricsKind(rawValue: row[1]) else { return }
                found[row[0]] = FetchedLyrics(kind: kind, text: row[2], fetchedAt: UTCStamp.date(row[3]) ?? .distantPast)
            }
            return found
        }
    }

    package func saveFetchedLyrics(_ lyrics: FetchedLyrics, songKey: String) throws {
        try pool.write { db in
            try db.execute(sql: """
                INSERT INTO fetched_lyrics (song_key, kind, text, fetched_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(song_key) DO UPDATE SET kind = excluded.kind, text = excluded.text, fetched_at = excluded.fetched_at
                """, arguments: [songKey, lyrics.kind.rawValue, lyrics.text, UTCStamp.string(lyrics.fetchedAt)])
        }
    }
}

/// LRC time stamps (`[mm:ss]`, `[mm:ss.xx]`) at the starts of lines, read only as far as deciding
/// whether text is synced and where it ends.
package enum LyricStamps {
    /// The latest time stamp in seconds, nil when no line starts with one.
    package static func lastSeconds(in text: String) -> Double? {
        var latest: Double?
        for line in text.split(whereSeparator: \.isNewline) {
            var rest = Substring(line.drop(while: { $0 == " " || $0 == "\t" || $0 == "\u{FEFF}" }))
            while rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
                guard let seconds = seconds(rest[rest.index(after: rest.startIndex)..<close]) else { break }
                latest = max(latest ?? 0, seconds)
                rest = rest[rest.index(after: close)...]
            }
        }
        return latest
    }

    package static func isSynced(_ text: String) -> Bool { lastSeconds(in: text) != nil }

    /// `mm:ss`, `mm:ss.xx` or `mm:ss:xx`; tags such as `[ar:Name]` are no stamp.
    private static func seconds(_ stamp: Substring) -> Double? {
        let parts = stamp.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let minutes = Int(parts[0]), minutes >= 0 else { return nil }
        let rest = parts[1].replacingOccurrences(of: ":", with: ".")
        guard let first = rest.first, first.isASCII, first.isNumber, let seconds = Double(rest), seconds >= 0 else { return nil }
        return Double(minutes) * 60 + seconds
    }
}
