import Foundation
import GRDB
import GRDBSQLite
import XZSystem
/// Writes songs inside one open transaction, keeping singers, albums and the search index in step.
///
/// Inserts bind straight to SQLite: at a million songs the per-row cost of generic arguments showed.
/// Into an empty library the writer loads in bulk: no lookups (the library has nothing to find),
/// the song, singer and album indexes dropped and rebuilt once at the end (sorting beats a million
/// random B-tree inserts), FTS5 segment merging deferred to one final optimize, and singer song
/// counts kept as it goes. A key the feed repeats is applied after the load, through the ordinary
/// upsert (the final state and the counts are those of applying the lines in order).
final class CatalogueWriter {
    enum Outcome { case added, updated, unchanged, deferred }

    private let db: Database
    private let connection: OpaquePointer
    /// Singer row ids by name, for forms this writer has not seen yet.
    private var singerIds: [ByteKey: Int64] = [:]
    private var touchedSingers = Set<Int64>()
    private let now: String
    private var folder = SongFolder()
    private let insertSong, updateSong, insertSongTerms, insertSongText, insertSinger, insertSingerTerms,
                insertAlbum: RawStatement
    private let findSong, deleteSong, findSinger, findAlbum, deleteSongTerms, deleteSongText: Statement

    /// Set while bulk loading: the SQL of the indexes to rebuild, the singers inserted, the lines
    /// whose key repeats.
    private var bulk: BulkLoad?
    private struct BulkLoad {
        var indexSQL: [String]
        var cacheSize: Int
        var singers: [SingerForms] = []
        var repeats: [SongInput] = []
    }

    init(_ db: Database, allowBulk: Bool = true) throws {
        self.db = db
        guard let connection = db.sqliteConnection else { throw DatabaseError(message: "connection closed") }
        self.connection = connection
        now = UTCStamp.string()
        findSong = try db.makeStatement(sql: SongField.selectSQL)
        updateSong = try RawStatement(connection, SongField.updateSQL)
        deleteSong = try db.makeStatement(sql: "DELETE FROM song WHERE id = ?")
        findSinger = try db.makeStatement(sql: "SELECT id FROM singer WHERE name = ?")
        findAlbum = try db.makeStatement(sql: "SELECT id FROM album WHERE singer_id = ? AND title = ?")
        deleteSongTerms = try db.makeStatement(sql: "DELETE FROM song_search WHERE rowid = ?")
        deleteSongText = try db.makeStatement(sql: "DELETE FROM song_text WHERE rowid = ?")
        insertSong = try RawStatement(connection, SongField.insertSQL)
        insertSongTerms = try RawStatement(connection, "INSERT INTO song_search (rowid, terms) VALUES (?, ?)")
        insertSongText = try RawStatement(connection, "INSERT INTO song_text (rowid, text) VALUES (?, ?)")
        insertSinger = try RawStatement(connection, """
            INSERT INTO singer (name, name_key, name_pinyin, name_initials, first_letter) VALUES (?, ?, ?, ?, ?)
            """)
        insertSingerTerms = try RawStatement(connection, "INSERT INTO singer_search (rowid, terms) VALUES (?, ?)")
        insertAlbum = try RawStatement(connection, "INSERT INTO album (singer_id, title) VALUES (?, ?)")
        if allowBulk, try Self.libraryIsEmpty(db) { try startBulk() }
    }

    deinit {
        // An import that failed mid-load: the transaction rolls back, the connection keeps its cache.
        // A failure to shrink it back costs only memory, and a deinit has no one to tell.
        if let load = bulk { try? db.execute(sql: "PRAGMA cache_size = \(load.cacheSize)") }
    }

    private static func libraryIsEmpty(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT NOT EXISTS (SELECT 1 FROM song) AND NOT EXISTS (SELECT 1 FROM singer)
                AND NOT EXISTS (SELECT 1 FROM album)
            """) ?? false
    }

    private func startBulk() throws {
        let indexes = try Row.fetchAll(db, sql: """
            SELECT name, sql FROM sqlite_master
            WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('song', 'singer', 'album')
            """)
        for index in indexes {
            let name: String = index["name"]
            try db.execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
        }
        let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        // Enough pages that the load never spills to the WAL before it commits; SQLite only
        // allocates what it uses.
        try db.execute(sql: "PRAGMA cache_size = -1048576")
        // No merging of FTS5 segments while loading (unless 64 pile up); one optimize at the end
        // writes each term's doclist once.
        for table in ["song_search", "singer_search", "song_text"] {
            try db.execute(sql: "INSERT INTO \(table) (\(table), rank) VALUES ('automerge', 0)")
            try db.execute(sql: "INSERT INTO \(table) (\(table), rank) VALUES ('crisismerge', 64)")
        }
        bulk = BulkLoad(indexSQL: indexes.map { $0["sql"] }, cacheSize: cacheSize)
    }

    /// Rebuilds what the bulk load set aside; the schema ends exactly as schema.sql made it.
    private func finishBulk(_ load: BulkLoad) throws {
        for table in ["song_search", "singer_search", "song_text"] {
            try db.execute(sql: "INSERT INTO \(table) (\(table)) VALUES ('optimize')")
            try db.execute(sql: "INSERT INTO \(table) (\(table), rank) VALUES ('automerge', 4)")
            try db.execute(sql: "INSERT INTO \(table) (\(table), rank) VALUES ('crisismerge', 16)")
        }
        // Back to the usual cache before sorting: CREATE INDEX sorts in runs the size of the cache,
        // and one huge run sorts at half the speed of several small ones.
        try db.execute(sql: "PRAGMA cache_size = \(load.cacheSize)")
        for sql in load.indexSQL { try db.execute(sql: sql) }
        let setCount = try RawStatement(connection, "UPDATE singer SET song_count = ? WHERE id = ?")
        for singer in load.singers {
            setCount.bind(1, Int64(singer.bulkSongs))
            setCount.bind(2, singer.rowId)
            try setCount.run()
        }
    }

    /// Size and mtime of every song whose key starts with `prefix`, for incremental rescans.
    /// Size, mtime and recorded lyrics file of the scanned songs under a folder, by key.
    static func fileStamps(_ db: Database, keyPrefix prefix: String)
        throws -> [String: (size: Int64?, mtime: Int64?, lyricsPath: String)] {
        var result: [String: (Int64?, Int64?, String)] = [:]
        let rows = try Row.fetchCursor(db, sql: """
            SELECT song_key, size, file_mtime, lyrics_path FROM song WHERE substr(song_key, 1, ?) = ?
            """, arguments: [prefix.count, prefix])
        while let row = try rows.next() {
            result[row[0]] = (row[1], row[2], row[3])
        }
        return result
    }

    func upsert(_ input: SongInput) throws -> Outcome {
        var arena: [UInt8] = []
        let song = folder.prepare(input, arena: &arena)
        return try arena.withUnsafeBufferPointer { try upsert(song, arena: $0) }
    }

    func upsert(_ song: PreparedSong, arena: UnsafeBufferPointer<UInt8>) throws -> Outcome {
        if bulk != nil && song.isRepeat {
            bulk?.repeats.append(song.input)
            return .deferred
        }
        let singerId = try singerID(song.singer)
        let albumId = try song.album.map { try albumID($0, singerId: singerId) }
        if bulk != nil {
            _ = try insert(song, singerId: singerId, albumId: albumId, arena: arena)
            song.singer.bulkSongs += 1
            return .added
        }
        touchedSingers.insert(singerId)
        guard let row = try Row.fetchOne(findSong, arguments: [song.input.key]) else {
            _ = try insert(song, singerId: singerId, albumId: albumId, arena: arena)
            return .added
        }
        return try update(row, song, singerId: singerId, albumId: albumId, arena: arena)
    }

    private func insert(_ song: PreparedSong, singerId: Int64, albumId: Int64?,
                        arena: UnsafeBufferPointer<UInt8>) throws -> Int64 {
        let context = SongField.Context(singerId: singerId, albumId: albumId, now: now)
        for (index, field) in SongField.all.enumerated() {
            insertSong.bind(Int32(index + 1), field.value(song, context), arena: arena)
        }
        try insertSong.run()
        let id = sqlite3_last_insert_rowid(connection)
        insertSongTerms.bind(1, id)
        insertSongTerms.bind(2, arena, song.document)
        try insertSongTerms.run()
        insertSongText.bind(1, id)
        insertSongText.bind(2, song.input.tagText)
        try insertSongText.run()
        return id
    }

    private func update(_ row: Row, _ song: PreparedSong, singerId: Int64, albumId: Int64?,
                        arena: UnsafeBufferPointer<UInt8>) throws -> Outcome {
        let id: Int64 = row[0]
        let context = SongField.Context(singerId: singerId, albumId: albumId, now: now)
        var unchanged = true
        for (index, field) in SongField.compared.enumerated()
        where !field.value(song, context).matches(row[index + 1], arena: arena) {
            unchanged = false
            break
        }
        if unchanged { return .unchanged }
        touchedSingers.insert(row["singer_id"])
        for (index, field) in SongField.updated.enumerated() {
            let value = field.value(song, context)
            if case .kept = value {
                updateSong.bind(Int32(index + 1), row[field.column] as DatabaseValue)
            } else {
                updateSong.bind(Int32(index + 1), value, arena: arena)
            }
        }
        updateSong.bind(Int32(SongField.updated.count + 1), id)
        try updateSong.run()
        try deleteSongTerms.execute(arguments: [id])
        insertSongTerms.bind(1, id)
        insertSongTerms.bind(2, arena, song.document)
        try insertSongTerms.run()
        try deleteSongText.execute(arguments: [id])
        insertSongText.bind(1, id)
        insertSongText.bind(2, song.input.tagText)
        try insertSongText.run()
        return .updated
    }

    /// Removes songs by key; their likes and play history stay, keyed by song_key.
    func remove(keys: [String]) throws -> Int {
        var removed = 0
        for key in keys {
            guard let row = try Row.fetchOne(findSong, arguments: [key]) else { continue }
            let id: Int64 = row[0]
            touchedSingers.insert(row["singer_id"])
            try deleteSongTerms.execute(arguments: [id])
            try deleteSongText.execute(arguments: [id])
            try deleteSong.execute(arguments: [id])
            removed += 1
        }
        return removed
    }

    /// Ends a bulk load (then applies the lines whose key repeated, and returns what they did),
    /// refreshes song counts of the singers this import touched and drops those left without songs.
    @discardableResult
    func finish() throws -> [Outcome] {
        var outcomes: [Outcome] = []
        if let load = bulk {
            bulk = nil
            try finishBulk(load)
            for input in load.repeats { outcomes.append(try upsert(input)) }
        }
        guard !touchedSingers.isEmpty else { return outcomes }
        try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS touched_singer (id INTEGER PRIMARY KEY)")
        try db.execute(sql: "DELETE FROM touched_singer")
        let insert = try db.makeStatement(sql: "INSERT INTO touched_singer (id) VALUES (?)")
        for id in touchedSingers.sorted() { try insert.execute(arguments: [id]) }
        try db.execute(sql: """
            UPDATE singer SET song_count = (SELECT count(*) FROM song WHERE song.singer_id = singer.id)
            WHERE id IN (SELECT id FROM touched_singer);
            DELETE FROM album WHERE singer_id IN (SELECT id FROM touched_singer)
                AND NOT EXISTS (SELECT 1 FROM song WHERE song.album_id = album.id);
            DELETE FROM singer_search WHERE rowid IN
                (SELECT id FROM singer WHERE song_count = 0 AND id IN (SELECT id FROM touched_singer));
            DELETE FROM singer WHERE song_count = 0 AND id IN (SELECT id FROM touched_singer);
            DELETE FROM touched_singer;
            """)
        touchedSingers.removeAll()
        return outcomes
    }

    private func singerID(_ forms: SingerForms) throws -> Int64 {
        if forms.rowId != 0 { return forms.rowId }
        let name = ByteKey(string: forms.name)
        if let id = singerIds[name] {
            forms.rowId = id
            return id
        }
        if bulk == nil, let id = try Int64.fetchOne(findSinger, arguments: [forms.name]) {
            singerIds[name] = id
            forms.rowId = id
            return id
        }
        let s = insertSinger
        s.bind(1, forms.name)
        s.bind(2, forms.key)
        s.bind(3, forms.pinyin)
        s.bind(4, forms.initials)
        s.bind(5, forms.firstLetter)
        try s.run()
        let id = sqlite3_last_insert_rowid(connection)
        insertSingerTerms.bind(1, id)
        forms.document.withUnsafeBufferPointer { insertSingerTerms.bind(2, $0, 0..<$0.count) }
        try insertSingerTerms.run()
        singerIds[name] = id
        forms.rowId = id
        bulk?.singers.append(forms)
        return id
    }

    private func albumID(_ album: AlbumForms, singerId: Int64) throws -> Int64 {
        if album.rowId != 0 { return album.rowId }
        if bulk == nil, let found = try Int64.fetchOne(findAlbum, arguments: [singerId, album.title]) {
            album.rowId = found
            return found
        }
        insertAlbum.bind(1, singerId)
        insertAlbum.bind(2, album.title)
        try insertAlbum.run()
        album.rowId = sqlite3_last_insert_rowid(connection)
        return album.rowId
    }
}
