import Foundation
import GRDB

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
}
