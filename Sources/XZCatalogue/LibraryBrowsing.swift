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
    /// The songs browsing lists: those with a local file, less the images whose CUE tracks stand for them
    /// (the tracks are the songs). An SQL condition on `song`, for every statement that lists songs.
    package static let browsableSong = """
        song.local_path <> '' AND (song.cue_file <> ''
            OR NOT EXISTS (SELECT 1 FROM song AS track WHERE track.cue_file = song.local_path AND track.cue_file <> ''))
        """

    /// Every browsable song's id and file (and whether it is a CUE track), in file order, optionally only those under `folder` (absolute,
    /// no trailing "/"): through the path index, one range.
    package func browsablePaths(under folder: String?) throws -> [(id: Int64, localPath: String, isCueTrack: Bool)] {
        try pool.read { db in
            var sql = "SELECT song.id, song.local_path, song.cue_file <> '' FROM song WHERE \(Self.browsableSong)"
            var arguments: [DatabaseValueConvertible] = []
            if let folder {
                sql += " AND song.local_path > ? AND song.local_path < ?"
                arguments += [folder + "/", folder + "0"]
            }
            return try Row.fetchAll(db, sql: sql + " ORDER BY song.local_path", arguments: StatementArguments(arguments))
                .map { ($0[0], $0[1], $0[2]) }
        }
    }

    /// A browsable song by id.
    package func browsableSong(id: Int64) throws -> Song? {
        try browsableSongs(ids: [id]).first
    }

    /// Browsable songs by id, in the order of `ids`; ids of no browsable song are left out.
    package func browsableSongs(ids: [Int64]) throws -> [Song] {
        guard !ids.isEmpty else { return [] }
        return try pool.read { db in try Self.browsableSongs(db, ids: ids) }
    }

    /// Browsable songs by id in the order of `ids`, inside a read already open.
    package static func browsableSongs(_ db: Database, ids: [Int64]) throws -> [Song] {
        guard !ids.isEmpty else { return [] }
        let found = try Song.fetchAll(db.cachedStatement(sql: """
            SELECT \(Song.selection) FROM json_each(?) AS wanted CROSS JOIN song ON song.id = wanted.value \(Song.joins)
            WHERE \(browsableSong)
            """), arguments: [jsonArray(ids)])
        return inOrder(found, of: ids, id: \.id)
    }

    // MARK: Albums

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

    /// A page of album ids in `order`.
    package func albumIDs(_ order: AlbumListOrder, limit: Int, offset: Int) throws -> [Int64] {
        var arguments: [DatabaseValueConvertible] = []
        let sql: String
        let browsableAlbum = "EXISTS (SELECT 1 FROM song WHERE song.album_id = album.id AND \(Self.browsableSong))"
        // Counted plays of a user's, each with its song's album.
        let plays = "FROM play_session p JOIN song ON song.song_key = p.song_key WHERE p.user_id = ? AND p.counted = 1 AND \(Self.browsableSong)"
        switch order {
        case .random:
            sql = "SELECT album.id FROM album WHERE \(browsableAlbum) ORDER BY random()"
        case .newest:
            sql = """
                SELECT album.id FROM song JOIN album ON album.id = song.album_id WHERE \(Self.browsableSong)
                GROUP BY album.id ORDER BY min(song.added_at) DESC, album.id DESC
                """
        case .byYear(let from, let to):
            let descending = from > to
            sql = """
                SELECT album.id FROM song JOIN album ON album.id = song.album_id WHERE \(Self.browsableSong)
                GROUP BY album.id HAVING max(song.year) BETWEEN ? AND ?
                ORDER BY max(song.year) \(descending ? "DESC" : "ASC"), album.title, album.id
                """
            arguments += [min(from, to), max(from, to)]
        case .byGenre(let genre):
            sql = """
                SELECT DISTINCT album.id FROM song JOIN album ON album.id = song.album_id
                WHERE \(Self.browsableSong) AND \(Self.hasGenre) ORDER BY album.title, album.id
                """
            arguments += [genre, genre]
        case .frequent(let user):
            sql = "SELECT song.album_id \(plays) AND song.album_id IS NOT NULL GROUP BY song.album_id ORDER BY count(*) DESC, song.album_id"
            arguments.append(user)
        case .recent(let user):
            sql = "SELECT song.album_id \(plays) AND song.album_id IS NOT NULL GROUP BY song.album_id ORDER BY max(p.started_at) DESC, song.album_id"
            arguments.append(user)
        case .highest(let user):
            sql = """
                SELECT id FROM (
                    SELECT album.id, album.title, coalesce(own.rating, (
                        SELECT avg(r.rating) FROM song JOIN user_rating r ON r.user_id = ?1 AND r.kind = 'song' AND r.item_key = song.song_key
                        WHERE song.album_id = album.id)) AS rating
                    FROM album JOIN singer ON singer.id = album.singer_id
                    LEFT JOIN user_rating own ON own.user_id = ?1 AND own.kind = 'album' AND own.item_key = singer.name || char(31) || album.title
                    WHERE \(browsableAlbum))
                WHERE rating IS NOT NULL ORDER BY rating DESC, title, id
                """
            arguments.append(user)
        case .starred(let user):
            sql = """
                SELECT album.id FROM user_star s JOIN album JOIN singer ON singer.id = album.singer_id
                WHERE s.user_id = ? AND s.kind = 'album' AND s.item_key = singer.name || char(31) || album.title
                  AND \(browsableAlbum) ORDER BY s.starred_at DESC, album.id
                """
            arguments.append(user)
        }
        return try pool.read { db in
            try Int64.fetchAll(db, sql: sql + " LIMIT ? OFFSET ?", arguments: StatementArguments(arguments + [limit, offset]))
        }
    }

    // MARK: Artists and songs

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

    /// An album's songs by disc, track and title.
    package func albumSongs(albumId: Int64) throws -> [Song] {
        try pool.read { db in
            try Song.fetchAll(db, sql: """
                SELECT \(Song.selection) FROM song \(Song.joins) WHERE song.album_id = ? AND \(Self.browsableSong)
                ORDER BY song.disc IS NULL, song.disc, song.track IS NULL, song.track, song.title_key, song.id
                """, arguments: [albumId])
        }
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

    /// Up to `limit` songs in random order, of `genre` and within the years when given.
    package func randomSongs(limit: Int, genre: String?, years: ClosedRange<Int>?) throws -> [Song] {
        var sql = "SELECT \(Song.selection) FROM song \(Song.joins) WHERE \(Self.browsableSong)"
        var arguments: [DatabaseValueConvertible] = []
        if let genre {
            sql += " AND \(Self.hasGenre)"
            arguments += [genre, genre]
        }
        if let years {
            sql += " AND song.year BETWEEN ? AND ?"
            arguments += [years.lowerBound, years.upperBound]
        }
        return try pool.read { db in
            try Song.fetchAll(db, sql: sql + " ORDER BY random() LIMIT ?", arguments: StatementArguments(arguments + [limit]))
        }
    }

    /// A page of the songs of `genre`, by singer, album and track.
    package func songs(genre: String, limit: Int, offset: Int) throws -> [Song] {
        try pool.read { db in
            try Song.fetchAll(db, sql: """
                SELECT \(Song.selection) FROM song \(Song.joins) WHERE \(Self.browsableSong) AND \(Self.hasGenre)
                ORDER BY singer.name, album.title, song.disc, song.track, song.id LIMIT ? OFFSET ?
                """, arguments: [genre, genre, limit, offset])
        }
    }

    /// Whether one of the song's genres is the bound value (given twice).
    private static let hasGenre = "(song.genre = ? OR instr(char(31) || song.genre || char(31), char(31) || ? || char(31)) > 0)"

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

    // MARK: What listeners did

    /// `user`'s counted plays and last counted play of each of these albums' songs.
    package func albumPlays(user: Int64, albumIds: [Int64]) throws -> [Int64: (count: Int, last: String)] {
        guard !albumIds.isEmpty else { return [:] }
        return try pool.read { db in
            var plays: [Int64: (Int, String)] = [:]
            let rows = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT song.album_id, count(*), max(p.started_at) FROM song JOIN play_session p ON p.song_key = song.song_key
                WHERE song.album_id IN (SELECT value FROM json_each(?)) AND p.user_id = ? AND p.counted = 1
                GROUP BY song.album_id
                """), arguments: [Self.jsonArray(albumIds), user])
            while let row = try rows.next() { plays[row[0]] = (row[1], row[2]) }
            return plays
        }
    }

    /// Every user's ratings of each of these songs, averaged; songs nobody rated are left out.
    package func averageRatings(songKeys: [String]) throws -> [String: Double] {
        guard !songKeys.isEmpty else { return [:] }
        return try pool.read { db in try Self.averageRatings(db, songKeys: songKeys) }
    }

    /// Every user's ratings of each of these songs, averaged, inside a read already open.
    package static func averageRatings(_ db: Database, songKeys: [String]) throws -> [String: Double] {
        guard !songKeys.isEmpty else { return [:] }
        var averages: [String: Double] = [:]
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT item_key, avg(rating) FROM user_rating
            WHERE kind = 'song' AND item_key IN (SELECT value FROM json_each(?)) GROUP BY item_key
            """), arguments: [jsonArray(songKeys)])
        while let row = try rows.next() { averages[row[0]] = row[1] }
        return averages
    }

    /// Every user's ratings of each of these albums, averaged; albums nobody rated are left out.
    package func averageRatings(albumIds: [Int64]) throws -> [Int64: Double] {
        guard !albumIds.isEmpty else { return [:] }
        return try pool.read { db in
            var averages: [Int64: Double] = [:]
            let rows = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT album.id, avg(r.rating) FROM album JOIN singer ON singer.id = album.singer_id
                JOIN user_rating r ON r.kind = 'album' AND r.item_key = singer.name || char(31) || album.title
                WHERE album.id IN (SELECT value FROM json_each(?)) GROUP BY album.id
                """), arguments: [Self.jsonArray(albumIds)])
            while let row = try rows.next() { averages[row[0]] = row[1] }
            return averages
        }
    }

    /// The browsable songs `user` liked, latest like first.
    package func likedSongs(user: Int64) throws -> [Song] {
        try pool.read { db in
            try Song.fetchAll(db, sql: """
                SELECT \(Song.selection) FROM song_like l JOIN song ON song.song_key = l.song_key \(Song.joins)
                WHERE l.user_id = ? AND \(Self.browsableSong) ORDER BY l.liked_at DESC, song.id
                """, arguments: [user])
        }
    }

    /// A singer's songs by the library's counted plays (every listener's), most first; unplayed ones are left out.
    package func topSongs(singerId: Int64, limit: Int) throws -> [Song] {
        try pool.read { db in
            try Song.fetchAll(db, sql: """
                SELECT \(Song.selection) FROM song \(Song.joins)
                JOIN (SELECT p.song_key, count(*) AS plays FROM play_session p JOIN song AS own ON own.song_key = p.song_key
                      WHERE own.singer_id = ?1 AND p.counted = 1 GROUP BY p.song_key) AS counted ON counted.song_key = song.song_key
                WHERE song.singer_id = ?1 AND \(Self.browsableSong)
                ORDER BY counted.plays DESC, song.id LIMIT ?2
                """, arguments: [singerId, limit])
        }
    }

    /// Songs listeners played on the days they played one of `seedKeys` (their latest 200 such plays),
    /// most shared days first; the seeds themselves left out.
    package func songsPlayedAlongside(seedKeys: [String], limit: Int) throws -> [Song] {
        guard !seedKeys.isEmpty, limit > 0 else { return [] }
        return try pool.read { db in
            try Song.fetchAll(db, sql: """
                WITH seed AS (SELECT user_id, substr(started_at, 1, 10) AS day FROM play_session
                              WHERE song_key IN (SELECT value FROM json_each(?1)) AND counted = 1 ORDER BY id DESC LIMIT 200),
                     along AS (SELECT other.song_key, count(*) AS shared FROM seed JOIN play_session other
                               ON other.user_id = seed.user_id AND other.counted = 1
                                  AND other.started_at BETWEEN seed.day AND seed.day || '~'
                               WHERE other.song_key NOT IN (SELECT value FROM json_each(?1))
                               GROUP BY other.song_key)
                SELECT \(Song.selection) FROM along JOIN song ON song.song_key = along.song_key \(Song.joins)
                WHERE \(Self.browsableSong) ORDER BY along.shared DESC, song.id LIMIT ?2
                """, arguments: [Self.jsonArray(seedKeys), limit])
        }
    }

    /// Random browsable songs of a singer or sharing one of `genres`, none of `excluding`.
    package func songsLike(singerId: Int64?, genres: [String], excluding: [Int64], limit: Int) throws -> [Song] {
        guard limit > 0, singerId != nil || !genres.isEmpty else { return [] }
        return try pool.read { db in
            try Song.fetchAll(db, sql: """
                SELECT \(Song.selection) FROM song \(Song.joins)
                WHERE \(Self.browsableSong) AND song.id NOT IN (SELECT value FROM json_each(?1))
                  AND (song.singer_id = ?2 OR EXISTS (SELECT 1 FROM json_each(?3) AS g
                       WHERE instr(char(31) || song.genre || char(31), char(31) || g.value || char(31)) > 0))
                ORDER BY song.singer_id = ?2 DESC, random() LIMIT ?4
                """, arguments: [Self.jsonArray(excluding), singerId, Self.jsonArray(genres), limit])
        }
    }

    /// Singers whose songs the listeners of `singerId` played, by listeners shared then plays.
    package func artistsSharingListeners(singerId: Int64, limit: Int) throws -> [ArtistSummary] {
        try pool.read { db in
            let ids = try Int64.fetchAll(db, sql: """
                WITH listener AS (SELECT DISTINCT p.user_id FROM play_session p JOIN song ON song.song_key = p.song_key
                                  WHERE song.singer_id = ?1 AND p.counted = 1)
                SELECT song.singer_id FROM play_session p JOIN song ON song.song_key = p.song_key
                WHERE p.counted = 1 AND p.user_id IN listener AND song.singer_id <> ?1
                GROUP BY song.singer_id ORDER BY count(DISTINCT p.user_id) DESC, count(*) DESC, song.singer_id LIMIT ?2
                """, arguments: [singerId, limit])
            return try Self.artistSummaries(db, ids: ids)
        }
    }

    /// `found` in the order of `ids` (the first of any found twice); ids nothing was found for are left out.
    static func inOrder<Item>(_ found: [Item], of ids: [Int64], id: KeyPath<Item, Int64>) -> [Item] {
        let byId = Dictionary(found.map { ($0[keyPath: id], $0) }) { first, _ in first }
        return ids.compactMap { byId[$0] }
    }

    /// Values bound as one JSON array, read back by `json_each`: a list of any length is one argument.
    package static func jsonArray(_ values: [Int64]) -> String {
        "[" + values.map(String.init).joined(separator: ",") + "]"
    }

    package static func jsonArray(_ values: [String]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: values)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
