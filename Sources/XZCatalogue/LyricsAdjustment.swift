import GRDB

extension LibraryDatabase {
    /// The user's shift of a song's lyrics in ms; positive shows them sooner, as LRC `[offset:]`.
    public func lyricsAdjustment(songKey: String) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT offset_ms FROM lyrics_adjustment WHERE song_key = ?", arguments: [songKey]) ?? 0
        }
    }

    /// The shifts of many songs in one read, by song key; songs without one are left out.
    public func lyricsAdjustments(songKeys: [String]) throws -> [String: Int] {
        try pool.read { db in
            var shifts: [String: Int] = [:]
            for chunk in songKeys.chunked(into: LibraryDatabase.keysPerStatement) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchCursor(db, sql: "SELECT song_key, offset_ms FROM lyrics_adjustment WHERE song_key IN (\(marks))",
                                               arguments: StatementArguments(chunk))
                while let row = try rows.next() { shifts[row[0]] = row[1] }
            }
            return shifts
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

extension LibraryDatabase {
    /// Keys bound in one `IN (…)`, well under SQLite's limit on host parameters.
    static let keysPerStatement = 500
}

extension Array {
    func chunked(into size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
