import Foundation
import GRDB

/// An album as the tag view lists it: an album row, or one singer's browsable songs that name no album,
/// gathered as one album so every song is reachable by artist and album.
package enum ListedAlbum: Hashable, Sendable {
    case album(Int64)
    case albumless(singerId: Int64)

    /// What the songs without an album are listed as (Navidrome's name for them).
    package static let albumlessTitle = "[Unknown Album]"

    /// Album rows first by id, then the albumless by singer: a stable tie-break for lists.
    package static func areInIncreasingOrder(_ left: ListedAlbum, _ right: ListedAlbum) -> Bool {
        switch (left, right) {
        case (.album(let l), .album(let r)): l < r
        case (.albumless(let l), .albumless(let r)): l < r
        case (.album, .albumless): true
        case (.albumless, .album): false
        }
    }
}

/// A listed album with what browsing shows of it. An albumless one's `summary.id` is its singer's row.
package struct ListedAlbumSummary: Sendable, Equatable {
    package var album: ListedAlbum
    package var summary: AlbumSummary

    package init(album: ListedAlbum, summary: AlbumSummary) {
        (self.album, self.summary) = (album, summary)
    }

    /// An album row's summary.
    package init(_ summary: AlbumSummary) {
        self.init(album: .album(summary.id), summary: summary)
    }
}

extension LibraryDatabase {
    /// A browsable song that names no album, for statements over `song`.
    package static let albumlessSong = "song.album_id IS NULL AND \(browsableSong)"

    /// The summaries of `albums` in their order; those without browsable songs are left out.
    package func albumSummaries(_ albums: [ListedAlbum]) throws -> [ListedAlbumSummary] {
        guard !albums.isEmpty else { return [] }
        return try pool.read { db in try Self.albumSummaries(db, albums) }
    }

    /// The summaries of `albums` in their order, inside a read already open.
    package static func albumSummaries(_ db: Database, _ albums: [ListedAlbum]) throws -> [ListedAlbumSummary] {
        var rows: [Int64] = [], singers: [Int64] = []
        for album in albums {
            switch album {
            case .album(let id): rows.append(id)
            case .albumless(let singer): singers.append(singer)
            }
        }
        var found: [ListedAlbum: AlbumSummary] = [:]
        for summary in try albumSummaries(db, ids: rows) { found[.album(summary.id)] = summary }
        for summary in try albumlessSummaries(db, singerIds: singers) { found[.albumless(singerId: summary.singerId)] = summary }
        return albums.compactMap { album in found[album].map { ListedAlbumSummary(album: album, summary: $0) } }
    }

    /// A singer's albums by year and title, then their songs without an album when they have any.
    package func listedAlbums(singerId: Int64) throws -> [ListedAlbumSummary] {
        let albumless = try pool.read { db in try Self.albumlessSummaries(db, singerIds: [singerId]) }
        return try albumSummaries(singerId: singerId).map(ListedAlbumSummary.init)
            + albumless.map { ListedAlbumSummary(album: .albumless(singerId: singerId), summary: $0) }
    }

    /// A listed album's browsable songs by disc, track and title.
    package func songs(of album: ListedAlbum) throws -> [Song] {
        switch album {
        case .album(let id):
            return try albumSongs(albumId: id)
        case .albumless(let singer):
            return try pool.read { db in
                try Song.fetchAll(db, sql: """
                    SELECT \(Song.selection) FROM song \(Song.joins) WHERE song.singer_id = ? AND \(Self.albumlessSong)
                    ORDER BY song.disc IS NULL, song.disc, song.track IS NULL, song.track, song.title_key, song.id
                    """, arguments: [singer])
            }
        }
    }

    /// The singers of `singerIds` who have browsable songs without an album.
    package func singersWithAlbumlessSongs(_ singerIds: [Int64]) throws -> Set<Int64> {
        guard !singerIds.isEmpty else { return [] }
        return try pool.read { db in Set(try Self.singersWithAlbumlessSongs(db, singerIds)) }
    }

    /// Those of `singerIds` who have browsable songs without an album, in their order, inside a read already open.
    package static func singersWithAlbumlessSongs(_ db: Database, _ singerIds: [Int64]) throws -> [Int64] {
        guard !singerIds.isEmpty else { return [] }
        return try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT wanted.value FROM json_each(?) AS wanted
            WHERE EXISTS (SELECT 1 FROM song WHERE song.singer_id = wanted.value AND \(albumlessSong)) ORDER BY wanted.key
            """), arguments: [jsonArray(singerIds)])
    }

    /// Each singer's songs without an album summed as an album's are, titled `ListedAlbum.albumlessTitle`.
    private static func albumlessSummaries(_ db: Database, singerIds: [Int64]) throws -> [AlbumSummary] {
        guard !singerIds.isEmpty else { return [] }
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT singer.id, singer.name, count(*), coalesce(sum(song.duration_ms), 0), max(song.year), min(song.added_at),
                coalesce((SELECT first.genre FROM song AS first WHERE first.singer_id = singer.id AND first.album_id IS NULL
                          AND first.genre <> '' ORDER BY first.disc, first.track, first.id LIMIT 1), '')
            FROM json_each(?) AS wanted CROSS JOIN song ON song.singer_id = wanted.value JOIN singer ON singer.id = song.singer_id
            WHERE \(albumlessSong) GROUP BY singer.id
            """), arguments: [jsonArray(singerIds)]).map { row in
            let genre: String = row[6]
            return AlbumSummary(id: row[0], title: ListedAlbum.albumlessTitle, singerId: row[0], singer: row[1], songCount: row[2],
                                durationMs: row[3], year: row[4],
                                genres: genre.isEmpty ? [] : genre.split(separator: "\u{1F}").map(String.init), addedAt: row[5])
        }
    }

    /// Every listed album with its title and singer, for orders by name.
    package func listedAlbumNames() throws -> [(album: ListedAlbum, title: String, singer: String)] {
        let albumless = try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT singer.id, singer.name FROM singer
                WHERE EXISTS (SELECT 1 FROM song WHERE song.singer_id = singer.id AND \(Self.albumlessSong))
                """).map { (album: ListedAlbum.albumless(singerId: $0[0]), title: ListedAlbum.albumlessTitle, singer: $0[1] as String) }
        }
        return try albumNames().map { (album: .album($0.id), title: $0.title, singer: $0.singer) } + albumless
    }
}
