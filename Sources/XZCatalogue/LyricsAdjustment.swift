import GRDB

extension LibraryDatabase {
    /// The user's shift of a song's lyrics in ms; positive shows them sooner, as LRC `[offset:]`.
    public func lyricsAdjustment(songKey: String) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT offset_ms FROM lyrics_adjustment WHERE song_key = ?", arguments: [songKey]) ?? 0
        }
    }

    public func setLyricsAdjustment(songKey: String, offsetMs: Int) throws {
        try pool.write { db in
            if offsetMs == 0 {
                try db.execute(sql: "DELETE FROM lyrics_adjustment WHERE song_key = ?", arguments: [songKey])
            } else {
                try db.execute(sql: """
                    INSERT INTO lyrics_adjustment (song_key, offset_ms) VALUES (?, ?)
                    ON CONFLICT(song_key) DO UPDATE SET offset_ms = excluded.offset_ms
                    """, arguments: [songKey, offsetMs])
            }
        }
    }
}
