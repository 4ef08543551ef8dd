import Foundation
import GRDB

/// One song as an importer describes it. Nil local paths keep what the library already has, so a
/// feed re-import never forgets a finished download.
public struct SongInput: Sendable, Equatable {
    public var key: String
    public var title: String
    public var singer: String
    public var album: String?
    public var track: Int?
    public var year: Int?
    public var durationMs: Int?
    public var audioURL: String = ""
    public var lyricsURL: String = ""
    public var localPath: String?
    public var lyricsPath: String?
    public var size: Int64?
    public var sha256: String = ""
    public var fileMtime: Int64?

    public init(key: String, title: String, singer: String) {
        self.key = key
        self.title = title
        self.singer = singer
    }
}

public struct ImportSummary: Sendable, Equatable {
    public var added = 0
    public var updated = 0
    public var skipped = 0
    public var failed = 0
    public var removed = 0
    /// One line per failure: "line 12: missing \"title\"", "a.mp3: not an MPEG audio file".
    public var problems: [String] = []

    public init() {}

    public var line: String {
        var parts = ["\(added) added", "\(updated) updated", "\(skipped) skipped", "\(failed) failed"]
        if removed > 0 { parts.append("\(removed) removed") }
        return parts.joined(separator: ", ")
    }
}

/// Writes songs inside one open transaction, keeping singers, albums and the search index in step.
/// Statements are prepared once, so a large feed costs one index lookup and a few inserts per song.
final class CatalogueWriter {
    enum Outcome { case added, updated, unchanged }

    private let db: Database
    private var singerIds: [String: Int64] = [:]
    private var albumIds: [String: Int64] = [:]
    private var touchedSingers = Set<Int64>()
    private let now: String
    private let findSong, insertSong, updateSong, deleteSong: Statement
    private let findSinger, insertSinger, findAlbum, insertAlbum: Statement
    private let insertSongTerms, deleteSongTerms, insertSingerTerms: Statement

    init(_ db: Database) throws {
        self.db = db
        now = ISO8601DateFormatter().string(from: Date())
        findSong = try db.makeStatement(sql: """
            SELECT id, title, singer_id, album_id, track, year, duration_ms, audio_url, lyrics_url,
                   local_path, lyrics_path, size, sha256, file_mtime FROM song WHERE song_key = ?
            """)
        insertSong = try db.makeStatement(sql: """
            INSERT INTO song (song_key, title, singer_id, album_id, track, year, duration_ms, audio_url,
                lyrics_url, local_path, lyrics_path, size, sha256, file_mtime, added_at,
                title_key, title_pinyin, title_initials)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        updateSong = try db.makeStatement(sql: """
            UPDATE song SET title = ?, singer_id = ?, album_id = ?, track = ?, year = ?, duration_ms = ?,
                audio_url = ?, lyrics_url = ?, local_path = ?, lyrics_path = ?, size = ?, sha256 = ?,
                file_mtime = ?, title_key = ?, title_pinyin = ?, title_initials = ?
            WHERE id = ?
            """)
        deleteSong = try db.makeStatement(sql: "DELETE FROM song WHERE id = ?")
        findSinger = try db.makeStatement(sql: "SELECT id FROM singer WHERE name = ?")
        insertSinger = try db.makeStatement(sql: """
            INSERT INTO singer (name, name_key, name_pinyin, name_initials, first_letter) VALUES (?, ?, ?, ?, ?)
            """)
        findAlbum = try db.makeStatement(sql: "SELECT id FROM album WHERE singer_id = ? AND title = ?")
        insertAlbum = try db.makeStatement(sql: "INSERT INTO album (singer_id, title) VALUES (?, ?)")
        insertSongTerms = try db.makeStatement(sql: "INSERT INTO song_search (rowid, terms) VALUES (?, ?)")
        deleteSongTerms = try db.makeStatement(sql: "DELETE FROM song_search WHERE rowid = ?")
        insertSingerTerms = try db.makeStatement(sql: "INSERT INTO singer_search (rowid, terms) VALUES (?, ?)")
    }

    /// Size and mtime of every song whose key starts with `prefix`, for incremental rescans.
    static func fileStamps(_ db: Database, keyPrefix prefix: String) throws -> [String: (size: Int64?, mtime: Int64?)] {
        var result: [String: (Int64?, Int64?)] = [:]
        let rows = try Row.fetchCursor(db, sql: """
            SELECT song_key, size, file_mtime FROM song WHERE substr(song_key, 1, ?) = ?
            """, arguments: [prefix.count, prefix])
        while let row = try rows.next() {
            result[row[0]] = (row[1], row[2])
        }
        return result
    }

    func upsert(_ input: SongInput) throws -> Outcome {
        let singerId = try findOrInsertSinger(input.singer)
        let albumId = try input.album.map { try findOrInsertAlbum($0, singerId: singerId) }
        let titleAnalysis = SearchText.analyze(input.title)
        let terms = SearchText.document([input.title, input.singer, input.album ?? ""])
        touchedSingers.insert(singerId)

        guard let row = try Row.fetchOne(findSong, arguments: [input.key]) else {
            let values: [DatabaseValueConvertible?] = [
                input.key, input.title, singerId, albumId, input.track, input.year, input.durationMs,
                input.audioURL, input.lyricsURL, input.localPath ?? "", input.lyricsPath ?? "",
                input.size, input.sha256, input.fileMtime, now,
                titleAnalysis.key, titleAnalysis.pinyin, titleAnalysis.initials,
            ]
            try insertSong.execute(arguments: StatementArguments(values))
            let id = db.lastInsertedRowID
            try insertSongTerms.execute(arguments: [id, terms])
            return .added
        }
        let id: Int64 = row["id"]
        let oldLocalPath: String = row["local_path"]
        let oldLyricsPath: String = row["lyrics_path"]
        let localPath = input.localPath ?? oldLocalPath
        let lyricsPath = input.lyricsPath ?? oldLyricsPath
        let oldSingerId: Int64 = row["singer_id"]
        let newValues: [DatabaseValueConvertible?] = [
            input.title, singerId, albumId, input.track, input.year, input.durationMs,
            input.audioURL, input.lyricsURL, localPath, lyricsPath, input.size, input.sha256, input.fileMtime,
        ]
        let columns = ["title", "singer_id", "album_id", "track", "year", "duration_ms", "audio_url",
                       "lyrics_url", "local_path", "lyrics_path", "size", "sha256", "file_mtime"]
        let unchanged = zip(columns, newValues).allSatisfy { column, value in
            (row[column] as DatabaseValue) == (value?.databaseValue ?? .null)
        }
        if unchanged { return .unchanged }
        touchedSingers.insert(oldSingerId)
        let updateValues: [DatabaseValueConvertible?] = newValues
            + [titleAnalysis.key, titleAnalysis.pinyin, titleAnalysis.initials, id]
        try updateSong.execute(arguments: StatementArguments(updateValues))
        try deleteSongTerms.execute(arguments: [id])
        try insertSongTerms.execute(arguments: [id, terms])
        return .updated
    }

    /// Removes songs by key; their likes and play history stay, keyed by song_key.
    func remove(keys: [String]) throws -> Int {
        var removed = 0
        for key in keys {
            guard let row = try Row.fetchOne(findSong, arguments: [key]) else { continue }
            let id: Int64 = row["id"]
            touchedSingers.insert(row["singer_id"])
            try deleteSongTerms.execute(arguments: [id])
            try deleteSong.execute(arguments: [id])
            removed += 1
        }
        return removed
    }

    /// Refreshes song counts of the singers this import touched and drops those left without songs.
    func finish() throws {
        guard !touchedSingers.isEmpty else { return }
        try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS touched_singer (id INTEGER PRIMARY KEY)")
        try db.execute(sql: "DELETE FROM touched_singer")
        let insert = try db.makeStatement(sql: "INSERT INTO touched_singer (id) VALUES (?)")
        for id in touchedSingers { try insert.execute(arguments: [id]) }
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
    }

    private func findOrInsertSinger(_ name: String) throws -> Int64 {
        if let id = singerIds[name] { return id }
        if let id = try Int64.fetchOne(findSinger, arguments: [name]) {
            singerIds[name] = id
            return id
        }
        let analysis = SearchText.analyze(name)
        try insertSinger.execute(arguments: [
            name, analysis.key, analysis.pinyin, analysis.initials, SearchText.firstLetter(analysis),
        ])
        let id = db.lastInsertedRowID
        try insertSingerTerms.execute(arguments: [id, SearchText.document([name])])
        singerIds[name] = id
        return id
    }

    private func findOrInsertAlbum(_ title: String, singerId: Int64) throws -> Int64 {
        let cacheKey = "\(singerId)\u{1F}\(title)"
        if let id = albumIds[cacheKey] { return id }
        let id: Int64
        if let found = try Int64.fetchOne(findAlbum, arguments: [singerId, title]) {
            id = found
        } else {
            try insertAlbum.execute(arguments: [singerId, title])
            id = db.lastInsertedRowID
        }
        albumIds[cacheKey] = id
        return id
    }
}
