/// A music folder: its id is an integer, as the spec says.
package struct MusicFolder: Encodable, Sendable, Equatable {
    package var id: Int
    package var name: String?

    package init(id: Int, name: String?) {
        self.id = id
        self.name = name
    }
}

/// `getMusicFolders`' payload.
package struct MusicFolders: Encodable, Sendable, Equatable {
    package var musicFolder: [MusicFolder]
    package init(musicFolder: [MusicFolder]) { self.musicFolder = musicFolder }
}

/// A letter's artists of the folder view (`Index`).
package struct SubsonicIndex: Encodable, Sendable, Equatable {
    package var name: String
    package var artist: [SubsonicArtist]

    package init(name: String, artist: [SubsonicArtist]) {
        self.name = name
        self.artist = artist
    }
}

/// A letter's artists of the tag view (`IndexID3`).
package struct IndexID3: Encodable, Sendable, Equatable {
    package var name: String
    package var artist: [ArtistID3]

    package init(name: String, artist: [ArtistID3]) {
        self.name = name
        self.artist = artist
    }
}

/// `getIndexes`' payload.
package struct Indexes: Encodable, Sendable, Equatable {
    package var ignoredArticles: String
    /// Milliseconds since the epoch.
    package var lastModified: Int64
    package var shortcut: [SubsonicArtist]?
    package var index: [SubsonicIndex]
    /// Songs directly in the music folder.
    package var child: [SubsonicChild]?

    package init(ignoredArticles: String, lastModified: Int64, index: [SubsonicIndex], child: [SubsonicChild]? = nil) {
        self.ignoredArticles = ignoredArticles
        self.lastModified = lastModified
        self.index = index
        self.child = child
    }
}

/// `getArtists`' payload.
package struct ArtistsID3: Encodable, Sendable, Equatable {
    package var ignoredArticles: String
    package var index: [IndexID3]

    package init(ignoredArticles: String, index: [IndexID3]) {
        self.ignoredArticles = ignoredArticles
        self.index = index
    }
}

/// A folder and what is in it (`getMusicDirectory`).
package struct Directory: Encodable, Sendable, Equatable {
    package var id: String
    package var parent: String?
    package var name: String
    package var starred: SubsonicDate?
    package var userRating: Int?
    package var averageRating: Double?
    package var playCount: Int64?
    package var child: [SubsonicChild]

    package init(id: String, parent: String?, name: String, child: [SubsonicChild]) {
        self.id = id
        self.parent = parent
        self.name = name
        self.child = child
    }
}

/// A genre with its counts (`getGenres`); in XML the name is the element's text.
package struct SubsonicGenre: Encodable, Sendable, Equatable, SubsonicXMLText {
    package var value: String
    package var songCount: Int
    package var albumCount: Int

    package static let xmlTextKey = "value"

    package init(value: String, songCount: Int, albumCount: Int) {
        self.value = value
        self.songCount = songCount
        self.albumCount = albumCount
    }
}

/// `getGenres`' payload.
package struct Genres: Encodable, Sendable, Equatable {
    package var genre: [SubsonicGenre]
    package init(genre: [SubsonicGenre]) { self.genre = genre }
}
