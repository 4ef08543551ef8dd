/// An artist of the tag view (`ArtistID3`): a singer of the library.
package struct ArtistID3: Encodable, Sendable, Equatable {
    package var id: String
    package var name: String
    package var coverArt: String?
    package var artistImageUrl: String?
    package var albumCount: Int?
    package var starred: SubsonicDate?
    package var musicBrainzId: String?
    package var sortName: String?
    package var roles: [String]?

    package init(id: String, name: String, coverArt: String? = nil, albumCount: Int? = nil) {
        self.id = id
        self.name = name
        self.coverArt = coverArt
        self.albumCount = albumCount
    }
}

/// An artist with its albums (`getArtist`).
package struct ArtistWithAlbumsID3: Encodable, Sendable, Equatable {
    package var artist: ArtistID3
    package var album: [AlbumID3]

    package init(artist: ArtistID3, album: [AlbumID3]) {
        self.artist = artist
        self.album = album
    }

    private enum CodingKeys: String, CodingKey { case album }

    /// The artist's fields and its albums side by side, as the spec's `allOf` has them.
    package func encode(to encoder: any Encoder) throws {
        try artist.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(album, forKey: .album)
    }
}

/// An album of the tag view (`AlbumID3`).
package struct AlbumID3: Encodable, Sendable, Equatable {
    package var id: String
    package var name: String
    package var version: String?
    package var artist: String?
    package var artistId: String?
    package var coverArt: String?
    package var songCount: Int
    /// Seconds.
    package var duration: Int
    package var playCount: Int64?
    package var created: SubsonicDate
    package var starred: SubsonicDate?
    package var year: Int?
    package var genre: String?
    package var played: SubsonicDate?
    package var userRating: Int?
    package var musicBrainzId: String?
    package var genres: [ItemGenre]?
    package var artists: [ArtistID3]?
    package var displayArtist: String?
    package var sortName: String?
    package var isCompilation: Bool?

    package init(id: String, name: String, songCount: Int, duration: Int, created: SubsonicDate) {
        self.id = id
        self.name = name
        self.songCount = songCount
        self.duration = duration
        self.created = created
    }

    /// Sets what one user has of the album; nil fields leave it as it is.
    package mutating func apply(_ annotation: SubsonicAnnotation) {
        if let starred = annotation.starred { self.starred = starred }
        if let rating = annotation.userRating { userRating = rating }
        if let plays = annotation.playCount { playCount = plays }
        if let played = annotation.played { self.played = played }
    }
}

/// An album with its songs (`getAlbum`).
package struct AlbumID3WithSongs: Encodable, Sendable, Equatable {
    package var album: AlbumID3
    package var song: [SubsonicChild]

    package init(album: AlbumID3, song: [SubsonicChild]) {
        self.album = album
        self.song = song
    }

    private enum CodingKeys: String, CodingKey { case song }

    /// The album's fields and its songs side by side, as the spec's `allOf` has them.
    package func encode(to encoder: any Encoder) throws {
        try album.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(song, forKey: .song)
    }
}

/// An artist of the folder view (`Artist`: `getIndexes`, `getStarred`).
package struct SubsonicArtist: Encodable, Sendable, Equatable {
    package var id: String
    package var name: String
    package var artistImageUrl: String?
    package var starred: SubsonicDate?
    package var userRating: Int?
    package var averageRating: Double?

    package init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}
