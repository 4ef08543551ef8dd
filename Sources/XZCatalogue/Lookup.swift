import Foundation
import GRDB
import XZSystem

extension LibraryDatabase {
    package func song(id: Int64) throws -> Song? {
        try pool.read { db in
            try Song.fetchOne(db, sql: "SELECT \(Song.selection) FROM song \(Song.joins) WHERE song.id = ?",
                              arguments: [id])
        }
    }

    package func song(key: String) throws -> Song? {
        try pool.read { db in
            try Song.fetchOne(db, sql: "SELECT \(Song.selection) FROM song \(Song.joins) WHERE song.song_key = ?",
                              arguments: [key])
        }
    }

    /// Songs by id in the order of `ids`, in one query; ids of no song are left out.
    package func songs(ids: [Int64]) throws -> [Song] {
        let found = try pool.read { db in try Self.songs(db, ids: ids) }
        let byId = Dictionary(found.map { ($0.id, $0) }) { first, _ in first }
        return ids.compactMap { byId[$0] }
    }

    /// A singer by exact name, else the best search hit for `name`.
    package func singer(named name: String) throws -> Singer? {
        try pool.read { db in
            if let exact = try Singer.fetchOne(db, sql: "SELECT id, name, first_letter, song_count FROM singer WHERE name = ?",
                                               arguments: [name]) {
                return exact
            }
            guard let terms = QueryTerms(name) else { return nil }
            let hits = try Self.searchSingers(db, terms: terms, limit: 1)
            guard let hit = hits.first else { return nil }
            return try Singer.fetchOne(db, sql: "SELECT id, name, first_letter, song_count FROM singer WHERE id = ?",
                                       arguments: [hit.id])
        }
    }

    /// A singer's songs by album, track and title (XZMusic's singer → songs view).
    package func songs(bySingerId singerId: Int64) throws -> [Song] {
        try pool.read { db in
            try Song.fetchAll(db, sql: """
                SELECT \(Song.selection) FROM song \(Song.joins) WHERE song.singer_id = ?
                ORDER BY album.title IS NULL, album.title, song.track IS NULL, song.track, song.title_key, song.id
                """, arguments: [singerId])
        }
    }

    package func songCount() throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM song") ?? 0 }
    }

    /// Song titles and singer names beginning with `prefix`, for Tab completion.
    package func names(startingWith prefix: String, limit: Int = 50) throws -> [String] {
        try pool.read { db in
            let pattern = prefix.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
            let singers = try String.fetchAll(db, sql: """
                SELECT name FROM singer WHERE name LIKE ? ESCAPE '\\' ORDER BY song_count DESC LIMIT ?
                """, arguments: [pattern, limit])
            let titles = try String.fetchAll(db, sql: """
                SELECT DISTINCT title FROM song WHERE title LIKE ? ESCAPE '\\' LIMIT ?
                """, arguments: [pattern, limit])
            var seen = Set<String>()
            return (singers + titles).filter { seen.insert($0).inserted }
        }
    }
}

extension LibraryDatabase {
    /// The catalogue song whose local file is `path` (absolute), if any.
    package func song(localPath path: String) throws -> Song? {
        guard !path.isEmpty else { return nil }
        return try pool.read { db in
            try Song.fetchOne(db, sql: "SELECT \(Song.selection) FROM song \(Song.joins) WHERE song.local_path = ? AND song.local_path <> ''",
                              arguments: [path])
        }
    }

    /// The catalogue songs whose local files these are (absolute paths), by path: one read for all,
    /// so a long list of files costs one lookup rather than one each.
    package func songs(localPaths paths: [String]) throws -> [String: Song] {
        let wanted = Array(Set(paths.filter { !$0.isEmpty }))
        guard !wanted.isEmpty else { return [:] }
        return try pool.read { db in
            var songs: [String: Song] = [:]
            try Self.forEachRow(db, "SELECT \(Song.selection) FROM song \(Song.joins) WHERE song.local_path IN", keys: wanted) { row in
                let song = Song(row: row)
                songs[song.localPath] = song
            }
            return songs
        }
    }
}

/// Totals for MPD's `stats`.
package struct CatalogueSummary: Sendable, Equatable {
    package var artists: Int
    package var albums: Int
    package var songs: Int
    package var durationMs: Int
    /// When the newest song came in.
    package var updatedAt: Date?
    /// The catalogue's version the totals were counted at.
    package var version: Int64
}

extension LibraryDatabase {
    /// Whether a song's file lies in `folder` (an absolute path): false for a folder never scanned.
    package func holdsSongs(inFolder folder: String) throws -> Bool {
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        // The paths that start with `base`: from it up to the same with "/" raised to "0", through the index.
        let end = String(base.dropLast()) + "0"
        return try pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM song WHERE local_path <> '' AND local_path >= ? AND local_path < ?)",
                              arguments: [base, end]) ?? false
        }
    }

    /// The totals as MPD's `stats` counts them: distinct values of the Artist tag (each of a song's
    /// several), distinct values of the Album tag, and each song's tag length (a CUE track's whole image). `kept`, when the catalogue has not changed since it
    /// was read (its `version`), is the answer: a status bar polling `stats` costs one small read.
    package func catalogueSummary(reusing kept: CatalogueSummary? = nil) throws -> CatalogueSummary {
        try pool.read { db in
            let version = try Int64.fetchOne(db, sql: "SELECT value FROM catalogue_version") ?? 0
            if let kept, kept.version == version { return kept }
            // Albums and singers are asked through the indexes of their songs: a step per album or singer,
            // not per song.
            let row = try Row.fetchOne(db, sql: """
                SELECT count(*), coalesce(sum(coalesce(cue_image_ms, duration_ms)), 0), max(added_at),
                       (SELECT count(DISTINCT title) FROM album
                            WHERE EXISTS (SELECT 1 FROM song WHERE song.album_id = album.id))
                FROM song
                """)
            var artists = Set<String>()
            // A singer the scan made up is none; several artists (tagged, so never made up) are one
            // column's values, each counted.
            let values = try String.fetchCursor(db, sql: """
                SELECT name FROM singer WHERE EXISTS (SELECT 1 FROM song WHERE song.singer_id = singer.id
                                                          AND song.artists = '' AND NOT song.untagged & 2)
                UNION ALL SELECT DISTINCT artists FROM song WHERE artists <> ''
                """)
            while let value = try values.next() {
                for artist in value.utf8.split(separator: 0x1F) { artists.insert(String(Substring(artist))) }
            }
            let added: String? = row?[2]
            return CatalogueSummary(artists: artists.count, albums: row?[3] ?? 0, songs: row?[0] ?? 0,
                                    durationMs: row?[1] ?? 0,
                                    updatedAt: added.flatMap(UTCStamp.date), version: version)
        }
    }
}

extension LibraryDatabase {
    /// The catalogue song that downloads from `url`, if any.
    package func song(audioURL url: String) throws -> Song? {
        try pool.read { db in
            try Song.fetchOne(db, sql: "SELECT \(Song.selection) FROM song \(Song.joins) WHERE song.audio_url = ? LIMIT 1",
                              arguments: [url])
        }
    }
}
