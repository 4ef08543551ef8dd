import Foundation
import GRDB

extension LibraryDatabase {
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
}
