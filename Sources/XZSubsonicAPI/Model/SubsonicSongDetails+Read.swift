import GRDB
import XZAudio
import XZCatalogue

extension SubsonicSongDetails {
    /// Reads the details of `songs` in a few statements, whatever their number. `readingTags`: files without a
    /// loudness measurement give their ReplayGain tags (one open each), for a song, an album or a folder
    /// asked for by id; searches, lists and a sync's pages open no file.
    package static func read(for songs: [Song], database: LibraryDatabase, readingTags: Bool = false) throws -> SubsonicSongDetails {
        guard !songs.isEmpty else { return SubsonicSongDetails() }
        var details = SubsonicSongDetails()
        var names = Set<String>()
        for song in songs {
            if song.artists.count > 1 { names.formUnion(song.artists) }
            if let albumArtist = song.albumArtist { names.insert(albumArtist) }
        }
        // Each list bound as one JSON array, as the catalogue binds a list of any length.
        try database.pool.read { db in
            let albums = try Row.fetchCursor(db, sql: """
                SELECT id, album_id FROM song WHERE album_id IS NOT NULL AND id IN (SELECT value FROM json_each(?))
                """, arguments: [LibraryDatabase.jsonArray(songs.map(\.id))])
            while let row = try albums.next() { details.albumIDs[row[0]] = row[1] }
            guard !names.isEmpty else { return }
            let singers = try Row.fetchCursor(db, sql: "SELECT id, name FROM singer WHERE name IN (SELECT value FROM json_each(?))",
                                              arguments: [LibraryDatabase.jsonArray(Array(names))])
            while let row = try singers.next() { details.singerIDs[row[1]] = row[0] }
        }
        details.loudness = try database.loudnessRecords(songKeys: songs.filter(\.isLocal).map(\.songKey))
        if readingTags, songs.count <= maxSongsReadingTags {
            for song in songs where song.isLocal && details.gains(of: song) == nil {
                if let gains = AudioTags.replayGain(path: song.audioFile) { details.taggedGains[song.id] = gains }
            }
        }
        return details
    }

    /// The longest list whose files' ReplayGain tags are read.
    package static let maxSongsReadingTags = 100
}

extension SubsonicLibrary {
    /// Catalogue songs as clients list them, in the same order; `annotations` by song row id.
    package func children(of songs: [Song], annotations: [Int64: SubsonicAnnotation] = [:], readingTags: Bool = false)
        throws -> [SubsonicChild] {
        let details = try SubsonicSongDetails.read(for: songs, database: database, readingTags: readingTags)
        return songs.map { SubsonicChild(song: $0, details: details, naming: host.naming, annotation: annotations[$0.id] ?? .none) }
    }
}
