import Foundation
import GRDB

/// An album as browsing lists it: its songs' count, length, year, genres and when its first song came in.
package struct AlbumSummary: Sendable, Equatable {
    package var id: Int64
    package var title: String
    package var singerId: Int64
    package var singer: String
    package var songCount: Int
    package var durationMs: Int
    package var year: Int?
    /// The genres of its first song that has any (the column's values, U+001F apart).
    package var genres: [String]
    /// The earliest `added_at` of its songs (UTC, ISO 8601).
    package var addedAt: String

    package init(id: Int64, title: String, singerId: Int64, singer: String, songCount: Int, durationMs: Int, year: Int?,
                 genres: [String], addedAt: String) {
        self.id = id
        self.title = title
        self.singerId = singerId
        self.singer = singer
        self.songCount = songCount
        self.durationMs = durationMs
        self.year = year
        self.genres = genres
        self.addedAt = addedAt
    }
}

/// The orders of album lists the catalogue keeps itself; alphabetical ones are sorted by their reader.
package enum AlbumListOrder: Sendable, Equatable {
    case random
    case newest
    /// Years from `from` to `to`, latest first when `from` > `to`.
    case byYear(from: Int, to: Int)
    case byGenre(String)
    /// The user's albums by their counted plays, most first.
    case frequent(user: Int64)
    /// The user's albums by their last counted play, latest first.
    case recent(user: Int64)
    /// The user's rating of the album, else the average of their ratings of its songs; rated ones only.
    case highest(user: Int64)
    /// The albums the user starred, latest star first.
    case starred(user: Int64)
}

extension LibraryDatabase {
    private static let albumColumns = """
        album.id, album.title, singer.id, singer.name, count(*), coalesce(sum(song.duration_ms), 0), max(song.year),
        min(song.added_at), coalesce((SELECT first.genre FROM song AS first WHERE first.album_id = album.id AND first.genre <> ''
                                      ORDER BY first.disc, first.track, first.id LIMIT 1), '')
        FROM song JOIN album ON album.id = song.album_id JOIN singer ON singer.id = album.singer_id
        """

    private static func album(_ row: Row) -> AlbumSummary {
        let genre: String = row[8]
        return AlbumSummary(id: row[0], title: row[1], singerId: row[2], singer: row[3], songCount: row[4], durationMs: row[5],
                            year: row[6], genres: genre.isEmpty ? [] : genre.split(separator: "\u{1F}").map(String.init),
                            addedAt: row[7])
    }

    /// Albums by id in the order of `ids`; ids of no browsable album are left out.
    package func albumSummaries(ids: [Int64]) throws -> [AlbumSummary] {
        guard !ids.isEmpty else { return [] }
        return try pool.read { db in try Self.albumSummaries(db, ids: ids) }
    }

    /// Albums by id in the order of `ids`, inside a read already open (one of several statements of a page).
    package static func albumSummaries(_ db: Database, ids: [Int64]) throws -> [AlbumSummary] {
        guard !ids.isEmpty else { return [] }
        let found = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(albumColumns) WHERE \(browsableSong) AND album.id IN (SELECT value FROM json_each(?))
            GROUP BY album.id
            """), arguments: [jsonArray(ids)]).map(album)
        return inOrder(found, of: ids, id: \.id)
    }

    /// A singer's albums, by year and title.
    package func albumSummaries(singerId: Int64) throws -> [AlbumSummary] {
        try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.albumColumns) WHERE \(Self.browsableSong) AND album.singer_id = ?
                GROUP BY album.id ORDER BY max(song.year) IS NULL, max(song.year), album.title, album.id
                """, arguments: [singerId]).map(Self.album)
        }
    }

    /// Every browsable album's id, title and singer, for orders by name.
    package func albumNames() throws -> [(id: Int64, title: String, singer: String)] {
        try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT album.id, album.title, singer.name FROM album JOIN singer ON singer.id = album.singer_id
                WHERE EXISTS (SELECT 1 FROM song WHERE song.album_id = album.id AND \(Self.browsableSong))
                """).map { ($0[0], $0[1], $0[2]) }
        }
    }

    /// An album's songs by disc, track and title.
    package func albumSongs(albumId: Int64) throws -> [Song] {
        try pool.read { db in
            try Song.fetchAll(db, sql: """
                SELECT \(Song.selection) FROM song \(Song.joins) WHERE song.album_id = ? AND \(Self.browsableSong)
                ORDER BY song.disc IS NULL, song.disc, song.track IS NULL, song.track, song.title_key, song.id
                """, arguments: [albumId])
        }
    }
}
