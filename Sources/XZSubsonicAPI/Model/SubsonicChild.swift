/// A song or a folder (the spec's `Child`). Every optional field is left out when nil.
package struct SubsonicChild: Encodable, Sendable, Equatable {
    package var id: String
    package var parent: String?
    package var isDir: Bool
    package var title: String
    package var album: String?
    package var artist: String?
    package var track: Int?
    package var year: Int?
    package var genre: String?
    package var coverArt: String?
    package var size: Int64?
    package var contentType: String?
    package var suffix: String?
    package var transcodedContentType: String?
    package var transcodedSuffix: String?
    /// Seconds.
    package var duration: Int?
    /// kbit/s.
    package var bitRate: Int?
    package var bitDepth: Int?
    package var samplingRate: Int?
    package var channelCount: Int?
    /// Relative to the music folder for a file in it.
    package var path: String?
    package var isVideo: Bool?
    package var userRating: Int?
    package var averageRating: Double?
    package var playCount: Int64?
    package var discNumber: Int?
    package var created: SubsonicDate?
    package var starred: SubsonicDate?
    package var albumId: String?
    package var artistId: String?
    /// "music" for every song of the library.
    package var type: String?
    /// "song", "album" or "artist".
    package var mediaType: String?
    /// Milliseconds, as Subsonic's bookmarks keep it.
    package var bookmarkPosition: Int64?
    package var played: SubsonicDate?
    package var bpm: Int?
    package var comment: String?
    package var sortName: String?
    package var musicBrainzId: String?
    package var genres: [ItemGenre]?
    package var artists: [ArtistID3]?
    package var displayArtist: String?
    package var albumArtists: [ArtistID3]?
    package var displayAlbumArtist: String?
    package var displayComposer: String?
    package var replayGain: ReplayGain?

    /// A folder (`isDir`), as folder browsing lists it.
    package init(folderID: String, parent: String?, title: String) {
        id = folderID
        self.parent = parent
        isDir = true
        self.title = title
    }

    package init(id: String, title: String) {
        self.id = id
        isDir = false
        self.title = title
    }

    /// Sets what one user has of the item; nil fields leave it as it is.
    package mutating func apply(_ annotation: SubsonicAnnotation) {
        if let starred = annotation.starred { self.starred = starred }
        if let rating = annotation.userRating { userRating = rating }
        if let plays = annotation.playCount { playCount = plays }
        if let played = annotation.played { self.played = played }
        if let position = annotation.bookmarkPosition { bookmarkPosition = position }
        if let average = annotation.averageRating { averageRating = average }
    }
}

/// What one user has of a song, album, artist or folder: the caller reads it from the user's rows.
package struct SubsonicAnnotation: Sendable, Equatable {
    package var starred: SubsonicDate?
    /// 1...5; none when unrated.
    package var userRating: Int?
    package var averageRating: Double?
    package var playCount: Int64?
    package var played: SubsonicDate?
    /// Milliseconds.
    package var bookmarkPosition: Int64?

    package init(starred: SubsonicDate? = nil, userRating: Int? = nil, averageRating: Double? = nil,
                 playCount: Int64? = nil, played: SubsonicDate? = nil, bookmarkPosition: Int64? = nil) {
        self.starred = starred
        self.userRating = userRating
        self.averageRating = averageRating
        self.playCount = playCount
        self.played = played
        self.bookmarkPosition = bookmarkPosition
    }

    package static let none = SubsonicAnnotation()
}

/// One genre of an item (`genres`).
package struct ItemGenre: Encodable, Sendable, Hashable {
    package var name: String
    package init(name: String) { self.name = name }
}

/// Gains in dB against ReplayGain's reference, peaks linear.
package struct ReplayGain: Encodable, Sendable, Equatable {
    package var trackGain: Double?
    package var albumGain: Double?
    package var trackPeak: Double?
    package var albumPeak: Double?
    package var baseGain: Double?
    package var fallbackGain: Double?

    package init(trackGain: Double? = nil, albumGain: Double? = nil, trackPeak: Double? = nil, albumPeak: Double? = nil,
                 baseGain: Double? = nil, fallbackGain: Double? = nil) {
        self.trackGain = trackGain
        self.albumGain = albumGain
        self.trackPeak = trackPeak
        self.albumPeak = albumPeak
        self.baseGain = baseGain
        self.fallbackGain = fallbackGain
    }
}
