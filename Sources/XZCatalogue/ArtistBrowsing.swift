import Foundation
import GRDB

/// A singer with songs to browse, and how many albums they hold.
package struct ArtistSummary: Sendable, Equatable {
    package var id: Int64
    package var name: String
    package var albumCount: Int
    package var songCount: Int

    package init(id: Int64, name: String, albumCount: Int, songCount: Int) {
        self.id = id
        self.name = name
        self.albumCount = albumCount
        self.songCount = songCount
    }
}

extension LibraryDatabase {
    private static let artistColumns = "singer.id, singer.name, count(DISTINCT song.album_id), count(*)"

    private static func artist(_ row: Row) -> ArtistSummary {
        ArtistSummary(id: row[0], name: row[1], albumCount: row[2], songCount: row[3])
    }

    /// Every singer with browsable songs, with their albums' and songs' counts.
    package func artistSummaries() throws -> [ArtistSummary] {
        try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.artistColumns) FROM song JOIN singer ON singer.id = song.singer_id
                WHERE \(Self.browsableSong) GROUP BY singer.id
                """).map(Self.artist)
        }
    }

    /// A singer with browsable songs, by id.
    package func artistSummary(id: Int64) throws -> ArtistSummary? {
        try artistSummaries(ids: [id]).first
    }

    /// Singers by id in the order of `ids`; those without browsable songs are left out.
    package func artistSummaries(ids: [Int64]) throws -> [ArtistSummary] {
        guard !ids.isEmpty else { return [] }
        return try pool.read { db in try Self.artistSummaries(db, ids: ids) }
    }

    /// Singers by id in the order of `ids`, inside a read already open.
    package static func artistSummaries(_ db: Database, ids: [Int64]) throws -> [ArtistSummary] {
        guard !ids.isEmpty else { return [] }
        let found = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(artistColumns)
            FROM json_each(?) AS wanted CROSS JOIN song ON song.singer_id = wanted.value JOIN singer ON singer.id = song.singer_id
            WHERE \(browsableSong) GROUP BY singer.id
            """), arguments: [jsonArray(ids)]).map(artist)
        return inOrder(found, of: ids, id: \.id)
    }

    /// A singer's browsable songs by album, track and title.
    package func browsableSongs(singerId: Int64) throws -> [Song] {
        try pool.read { db in
            try Song.fetchAll(db, sql: """
                SELECT \(Song.selection) FROM song \(Song.joins) WHERE song.singer_id = ? AND \(Self.browsableSong)
                ORDER BY album.title IS NULL, album.title, song.track IS NULL, song.track, song.title_key, song.id
                """, arguments: [singerId])
        }
    }
}
