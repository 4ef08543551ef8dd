import GRDB

extension LibraryDatabase {
    /// The user's shift of a song's lyrics in ms; positive shows them sooner, as LRC `[offset:]`.
    package func lyricsAdjustment(songKey: String) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT offset_ms FROM lyrics_adjustment WHERE song_key = ?", arguments: [songKey]) ?? 0
        }
    }

    /// The shifts of many songs in one read, by song key; songs without one are left out.
    package func lyricsAdjustments(songKeys: [String]) throws -> [String: Int] {
        try pool.read { db in
            var shifts: [String: Int] = [:]
            try Self.forEachRow(db, "SELECT song_key, offset_ms FROM lyrics_adjustment WHERE song_key IN", keys: songKeys) {
                shifts[$0[0]] = $0[1]
            }
            return shifts
        }
    }

    package func setLyricsAdjustment(songKey: String, offsetMs: Int) throws {
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

extension LibraryDatabase {
    /// Runs `select`, which ends in `… IN`, for every key, the keys bound as one JSON array (`jsonArray`),
    /// handing each row to `body`.
    static func forEachRow(_ db: Database, _ select: String, keys: [String], _ body: (Row) throws -> Void) throws {
        guard !keys.isEmpty else { return }
        let rows = try Row.fetchCursor(db, sql: "\(select) (SELECT value FROM json_each(?))", arguments: [jsonArray(keys)])
        while let row = try rows.next() { try body(row) }
    }
}
