import XZAccounts
import XZCatalogue
import XZStats

/// Stars, ratings and plays, each the calling user's own. A song's star is the user's like, so the
/// owner's is the terminal's like and MPD's `like` sticker.
extension SubsonicEndpoints {
    static let annotation: [SubsonicEndpoint] = [
        SubsonicEndpoint("star") { call in try Stars.change(call, starring: true) },
        SubsonicEndpoint("unstar") { call in try Stars.change(call, starring: false) },
        SubsonicEndpoint("setRating") { call in
            let user = try call.signedInUser()
            guard let rating = try call.optionalInt("rating", in: 0...5) else { throw SubsonicError.missingParameter("required parameter 'rating' is missing") }
            let annotations = UserAnnotations(database: call.library.database, user: user.id)
            try userData {
                switch try call.id("id") {
                case .song(let id): try annotations.setRating(.song, id: id, rating: rating)
                case .album(let id): try annotations.setRating(.album, id: id, rating: rating)
                case .artist(let id): try annotations.setRating(.artist, id: id, rating: rating)
                case .unknownAlbum: throw SubsonicError.notFound("songs without an album are rated one by one")
                default: throw SubsonicError.notFound("only songs, albums and artists are rated")
                }
            }
            return .empty
        },
        SubsonicEndpoint("scrobble", answer: Scrobbles.answer),
    ]
}

/// `star` and `unstar`: songs (`id`), albums and artists (`id`, `albumId`, `artistId`), all checked
/// before any is changed.
enum Stars {
    static func change(_ call: SubsonicCall, starring: Bool) throws -> SubsonicReply {
        let user = try call.signedInUser()
        var songIDs: [SubsonicID] = [], albums: [Int64] = [], artists: [Int64] = []
        for id in try call.ids("id") {
            switch id {
            case .song: songIDs.append(id)
            case .album(let row): albums.append(row)
            case .artist(let row): artists.append(row)
            case .unknownAlbum: throw SubsonicError.notFound("songs without an album are starred one by one")
            default: throw SubsonicError.notFound("only songs, albums and artists are starred")
            }
        }
        for id in try call.ids("albumId") {
            guard case .album(let row) = id else { throw SubsonicError.notFound("'albumId' names no album") }
            albums.append(row)
        }
        for id in try call.ids("artistId") {
            guard case .artist(let row) = id else { throw SubsonicError.notFound("'artistId' names no artist") }
            artists.append(row)
        }
        guard !songIDs.isEmpty || !albums.isEmpty || !artists.isEmpty else {
            throw SubsonicError.missingParameter("required parameter 'id', 'albumId' or 'artistId' is missing")
        }
        let songs = try call.librarySongs(songIDs, parameter: "id")
        let database = call.library.database
        let annotations = UserAnnotations(database: database, user: user.id)
        try userData { try annotations.setStarred(starring, albums: albums, artists: artists) }
        let stats = StatsStore(database: database, user: user.id)
        var changed = false
        for song in songs {
            changed = try (starring ? stats.like(songKey: song.songKey) : stats.unlike(songKey: song.songKey)) || changed
        }
        // The owner's likes are MPD's `like` sticker: clients waiting in `idle sticker` hear it.
        if changed, user.isOwner { call.library.host.wrote(.stickers) }
        return .empty
    }
}
