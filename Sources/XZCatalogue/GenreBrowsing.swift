import Foundation
import GRDB

/// A genre with the songs and albums that carry it (a song of several genres counts in each).
package struct GenreSummary: Sendable, Equatable {
    package var name: String
    package var songCount: Int
    package var albumCount: Int

    package init(name: String, songCount: Int, albumCount: Int) {
        self.name = name
        self.songCount = songCount
        self.albumCount = albumCount
    }
}

extension LibraryDatabase {
    /// Whether one of the song's genres is the bound value (given twice).
    static let hasGenre = "(song.genre = ? OR instr(char(31) || song.genre || char(31), char(31) || ? || char(31)) > 0)"

    /// A page of the songs of `genre`, by singer, album and track.
    package func songs(genre: String, limit: Int, offset: Int) throws -> [Song] {
        try pool.read { db in
            try Song.fetchAll(db, sql: """
                SELECT \(Song.selection) FROM song \(Song.joins) WHERE \(Self.browsableSong) AND \(Self.hasGenre)
                ORDER BY singer.name, album.title, song.disc, song.track, song.id LIMIT ? OFFSET ?
                """, arguments: [genre, genre, limit, offset])
        }
    }

    /// Every genre of the browsable songs, each value of a song's several counted.
    package func genreSummaries() throws -> [GenreSummary] {
        try pool.read { db in
            var songs: [String: Int] = [:]
            var albums: [String: Set<Int64>] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT song.genre, song.album_id FROM song WHERE song.genre <> '' AND \(Self.browsableSong)")
            while let row = try rows.next() {
                let genre: String = row[0]
                let album: Int64? = row[1]
                for value in Set(genre.split(separator: "\u{1F}").map(String.init)) where !value.isEmpty {
                    songs[value, default: 0] += 1
                    if let album { albums[value, default: []].insert(album) }
                }
            }
            return songs.map { GenreSummary(name: $0.key, songCount: $0.value, albumCount: albums[$0.key]?.count ?? 0) }
                .sorted { $0.name < $1.name }
        }
    }
}
