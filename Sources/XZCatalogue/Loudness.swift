import Foundation
import GRDB
import XZSystem
#if canImport(Glibc)
import Glibc
#endif

/// Which version of a file: its size and modification time in seconds, as a folder rescan compares them.
package struct FileVersion: Sendable, Equatable {
    package let size: Int64
    package let mtime: Int64

    package init(size: Int64, mtime: Int64) {
        self.size = size
        self.mtime = mtime
    }

    /// The file at `path` as it is now (links followed, as the decoder reads it); nil when it cannot be seen.
    package init?(path: String) {
        var info = stat()
        guard !path.isEmpty, stat(path, &info) == 0 else { return nil }
        self.init(size: Int64(info.st_size), mtime: Int64(info.st_mtim.tv_sec))
    }
}

/// A song's loudness as a loudness scan measured it: gains in dB against ReplayGain's reference, peaks
/// linear. Kept in the library by song key, never written into the user's files.
package struct LoudnessRecord: Sendable, Equatable {
    package var songKey: String
    package var trackGain: Double
    package var trackPeak: Double
    package var albumGain: Double?
    package var albumPeak: Double?
    /// The file that was measured; a different size or mtime means it has to be measured again.
    package var file: FileVersion?
    package var measuredAt: String

    package init(songKey: String, trackGain: Double, trackPeak: Double, albumGain: Double? = nil,
                albumPeak: Double? = nil, file: FileVersion?, measuredAt: String = UTCStamp.string()) {
        self.songKey = songKey
        self.trackGain = trackGain
        self.trackPeak = trackPeak
        self.albumGain = albumGain
        self.albumPeak = albumPeak
        self.file = file
        self.measuredAt = measuredAt
    }

    init(row: Row) {
        songKey = row["song_key"]
        trackGain = row["track_gain"]
        trackPeak = row["track_peak"]
        albumGain = row["album_gain"]
        albumPeak = row["album_peak"]
        let size: Int64? = row["file_size"], mtime: Int64? = row["file_mtime"]
        file = size.flatMap { size in mtime.map { FileVersion(size: size, mtime: $0) } }
        measuredAt = row["measured_at"]
    }

    /// True when it was measured from the file at `path` as that file is now.
    package func measures(path: String) -> Bool {
        file != nil && file == FileVersion(path: path)
    }
}

extension LibraryDatabase {
    package func loudness(songKey: String) throws -> LoudnessRecord? {
        try pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM loudness WHERE song_key = ?", arguments: [songKey])
                .map(LoudnessRecord.init(row:))
        }
    }

    /// The measurements of many songs in one read, by song key.
    package func loudnessRecords(songKeys: [String]) throws -> [String: LoudnessRecord] {
        try pool.read { db in
            var records: [String: LoudnessRecord] = [:]
            try Self.forEachRow(db, "SELECT * FROM loudness WHERE song_key IN", keys: songKeys) { row in
                let record = LoudnessRecord(row: row)
                records[record.songKey] = record
            }
            return records
        }
    }

    /// Every measurement, by song key.
    package func loudnessRecords() throws -> [String: LoudnessRecord] {
        try pool.read { db in
            let records = try Row.fetchAll(db, sql: "SELECT * FROM loudness").map(LoudnessRecord.init(row:))
            return Dictionary(records.map { ($0.songKey, $0) }) { first, _ in first }
        }
    }

    /// Saves `records` (an album's songs, or one song) in one short transaction, replacing earlier ones.
    package func saveLoudness(_ records: [LoudnessRecord]) throws {
        guard !records.isEmpty else { return }
        try pool.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO loudness (song_key, track_gain, track_peak, album_gain, album_peak, file_size, file_mtime, measured_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(song_key) DO UPDATE SET track_gain = excluded.track_gain, track_peak = excluded.track_peak,
                    album_gain = excluded.album_gain, album_peak = excluded.album_peak, file_size = excluded.file_size,
                    file_mtime = excluded.file_mtime, measured_at = excluded.measured_at
                """)
            for record in records {
                try statement.execute(arguments: [
                    record.songKey, record.trackGain, record.trackPeak, record.albumGain, record.albumPeak,
                    record.file?.size, record.file?.mtime, record.measuredAt,
                ])
            }
        }
    }

    /// Drops the measurements of `songKeys` (songs whose tags now carry ReplayGain of their own).
    package func deleteLoudness(songKeys: [String]) throws {
        guard !songKeys.isEmpty else { return }
        try pool.write { db in
            for key in songKeys {
                try db.execute(sql: "DELETE FROM loudness WHERE song_key = ?", arguments: [key])
            }
        }
    }

    /// Every song with a local file, in path order.
    package func localSongs() throws -> [Song] {
        try pool.read { db in
            try Song.fetchAll(db, sql: """
                SELECT \(Song.selection) FROM song \(Song.joins) WHERE song.local_path <> '' ORDER BY song.local_path
                """)
        }
    }

    /// Those of `songs` (every local song when nil) with no measurement of their file as it is now: never
    /// measured, or the file's size or mtime changed since.
    package func songsNeedingLoudness(among songs: [Song]? = nil) throws -> [Song] {
        let records = try loudnessRecords()
        return try (songs ?? localSongs()).filter { song in
            song.isLocal && records[song.songKey]?.measures(path: song.localPath) != true
        }
    }
}
