import Foundation
import GRDB

extension LibraryDatabase {
    /// A page of the albums the tag view lists (`getAlbumList2`) in `order`: album rows, and each singer's
    /// songs without an album as one. Only album rows take stars and ratings of their own: `starred` lists
    /// rows alone, `highest` rates the songs without an album by their songs' ratings.
    package func listedAlbums(_ order: AlbumListOrder, limit: Int, offset: Int) throws -> [ListedAlbum] {
        // One group per album, and one per singer of the songs without one; within an album every song is
        // its singer's, so min(song.singer_id) is the album's singer.
        let group = "GROUP BY song.album_id, iif(song.album_id IS NULL, song.singer_id, NULL)"
        let tieBreak = "song.album_id IS NULL, song.album_id, min(song.singer_id)"
        let browsableAlbum = "EXISTS (SELECT 1 FROM song WHERE song.album_id = album.id AND \(Self.browsableSong))"
        // Counted plays of a user's, each with its song's album.
        let plays = "FROM play_session p JOIN song ON song.song_key = p.song_key WHERE p.user_id = ? AND p.counted = 1 AND \(Self.browsableSong)"
        let sql: String
        var arguments: [DatabaseValueConvertible] = []
        switch order {
        case .random:
            sql = "SELECT song.album_id, min(song.singer_id) FROM song WHERE \(Self.browsableSong) \(group) ORDER BY random()"
        case .newest:
            sql = """
                SELECT song.album_id, min(song.singer_id) FROM song WHERE \(Self.browsableSong) \(group)
                ORDER BY min(song.added_at) DESC, \(tieBreak)
                """
        case .byYear(let from, let to):
            sql = """
                SELECT song.album_id, min(song.singer_id) FROM song LEFT JOIN album ON album.id = song.album_id
                WHERE \(Self.browsableSong) \(group) HAVING max(song.year) BETWEEN ? AND ?
                ORDER BY max(song.year) \(from > to ? "DESC" : "ASC"), coalesce(min(album.title), ?), \(tieBreak)
                """
            arguments += [min(from, to), max(from, to), ListedAlbum.albumlessTitle]
        case .byGenre(let genre):
            sql = """
                SELECT song.album_id, min(song.singer_id) FROM song LEFT JOIN album ON album.id = song.album_id
                WHERE \(Self.browsableSong) AND \(Self.hasGenre) \(group) ORDER BY coalesce(min(album.title), ?), \(tieBreak)
                """
            arguments += [genre, genre, ListedAlbum.albumlessTitle]
        case .frequent(let user):
            sql = "SELECT song.album_id, min(song.singer_id) \(plays) \(group) ORDER BY count(*) DESC, \(tieBreak)"
            arguments.append(user)
        case .recent(let user):
            sql = "SELECT song.album_id, min(song.singer_id) \(plays) \(group) ORDER BY max(p.started_at) DESC, \(tieBreak)"
            arguments.append(user)
        case .highest(let user):
            sql = """
                SELECT id, singer FROM (
                    SELECT album.id AS id, NULL AS singer, album.title AS title, coalesce(own.rating, (
                        SELECT avg(r.rating) FROM song JOIN user_rating r ON r.user_id = ?1 AND r.kind = 'song' AND r.item_key = song.song_key
                        WHERE song.album_id = album.id)) AS rating
                    FROM album JOIN singer ON singer.id = album.singer_id
                    LEFT JOIN user_rating own ON own.user_id = ?1 AND own.kind = 'album' AND own.item_key = singer.name || char(31) || album.title
                    WHERE \(browsableAlbum)
                    UNION ALL
                    SELECT NULL, song.singer_id, ?2, avg(r.rating)
                    FROM song JOIN user_rating r ON r.user_id = ?1 AND r.kind = 'song' AND r.item_key = song.song_key
                    WHERE \(Self.albumlessSong) GROUP BY song.singer_id)
                WHERE rating IS NOT NULL ORDER BY rating DESC, title, id IS NULL, id, singer
                """
            arguments += [user, ListedAlbum.albumlessTitle]
        case .starred(let user):
            sql = """
                SELECT album.id, NULL FROM user_star s JOIN album JOIN singer ON singer.id = album.singer_id
                WHERE s.user_id = ? AND s.kind = 'album' AND s.item_key = singer.name || char(31) || album.title
                  AND \(browsableAlbum) ORDER BY s.starred_at DESC, album.id
                """
            arguments.append(user)
        }
        return try pool.read { db in
            try Row.fetchAll(db, sql: sql + " LIMIT ? OFFSET ?", arguments: StatementArguments(arguments + [limit, offset])).map { row in
                let album: Int64? = row[0]
                return album.map(ListedAlbum.album) ?? .albumless(singerId: row[1])
            }
        }
    }
}
