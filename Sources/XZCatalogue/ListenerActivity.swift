import Foundation
import GRDB

extension LibraryDatabase {
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
}
