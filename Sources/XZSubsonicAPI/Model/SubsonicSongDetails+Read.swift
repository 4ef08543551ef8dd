import GRDB
import XZAudio
import XZCatalogue

extension SubsonicSongDetails {
    /// Reads the details of `songs` in a few statements, whatever their number.
    package static func read(for songs: [Song], database: LibraryDatabase) throws -> SubsonicSongDetails {
        guard !songs.isEmpty else { return SubsonicSongDetails() }
        var details = SubsonicSongDetails()
        var names = Set<String>()
        for song in songs {
            if song.artists.count > 1 { names.formUnion(song.artists) }
            if let albumArtist = song.albumArtist { names.insert(albumArtist) }
        }
        let songIDs = songs.map(\.id)
        let nameList = Array(names)
        try database.pool.read { db in
            try forEachChunk(of: songIDs) { marks, chunk in
                let rows = try Row.fetchCursor(db, sql: "SELECT id, album_id FROM song WHERE album_id IS NOT NULL AND id IN (\(marks))",
                                               arguments: StatementArguments(chunk))
                while let row = try rows.next() { details.albumIDs[row[0]] = row[1] }
            }
            try forEachChunk(of: nameList) { marks, chunk in
                let rows = try Row.fetchCursor(db, sql: "SELECT id, name FROM singer WHERE name IN (\(marks))",
                                               arguments: StatementArguments(chunk))
                while let row = try rows.next() { details.singerIDs[row[1]] = row[0] }
            }
        }
        details.loudness = try database.loudnessRecords(songKeys: songs.filter(\.isLocal).map(\.songKey))
        // Each file's tags cost an open: an album or a folder reads them, a page of a sync does not.
        if songs.count <= maxSongsReadingTags {
            for song in songs where song.isLocal && details.gains(of: song) == nil {
                if let gains = AudioTags.replayGain(path: song.audioFile) { details.taggedGains[song.id] = gains }
            }
        }
        return details
    }

    /// The longest list whose files' ReplayGain tags are read.
    package static let maxSongsReadingTags = 100

    /// Binds at most 500 values a statement, well under SQLite's limit.
    private static func forEachChunk<Value: DatabaseValueConvertible>(of values: [Value],
                                                                      _ body: (String, ArraySlice<Value>) throws -> Void) rethrows {
        for start in stride(from: 0, to: values.count, by: 500) {
            let chunk = values[start..<min(start + 500, values.count)]
            try body(Array(repeating: "?", count: chunk.count).joined(separator: ","), chunk)
        }
    }
}

extension SubsonicLibrary {
    /// Catalogue songs as clients list them, in the same order; `annotations` by song row id.
    package func children(of songs: [Song], annotations: [Int64: SubsonicAnnotation] = [:]) throws -> [SubsonicChild] {
        let details = try SubsonicSongDetails.read(for: songs, database: database)
        return songs.map { SubsonicChild(song: $0, details: details, naming: host.naming, annotation: annotations[$0.id] ?? .none) }
    }
}
