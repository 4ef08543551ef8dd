import Foundation
import XZAccounts
import XZCatalogue
import XZStats

/// What one user has of the songs, albums and artists of a page — stars, ratings, counted plays, the last
/// one, bookmarks — each kind read in one batch for the whole page, never one read per item.
struct ListenerAnnotations {
    let library: SubsonicLibrary
    let user: UserID

    init(_ call: SubsonicCall) {
        library = call.library
        user = call.user?.id ?? .owner
    }

    private var database: LibraryDatabase { library.database }

    /// Songs as clients list them, each with this user's like, rating, plays and bookmark, and every user's
    /// average rating.
    func children(of songs: [Song]) throws -> [SubsonicChild] {
        let keys = songs.map(\.songKey)
        let stats = StatsStore(database: database, user: user)
        let liked = try stats.likedAt(songKeys: keys)
        let plays = try stats.playCounts(songKeys: keys)
        let played = try stats.lastPlayed(songKeys: keys)
        let ids = songs.map(\.id)
        let ratings = try UserAnnotations(database: database, user: user).ratings(.song, ids: ids)
        let bookmarks = try UserBookmarks(database: database, user: user).positions(songIds: ids)
        let averages = try database.averageRatings(songKeys: keys)
        var annotations: [Int64: SubsonicAnnotation] = [:]
        for song in songs {
            let key = song.songKey
            annotations[song.id] = SubsonicAnnotation(starred: liked[key].map(SubsonicDate.init), userRating: ratings[song.id],
                                                      averageRating: averages[key], playCount: plays[key].map(Int64.init),
                                                      played: played[key].map(SubsonicDate.init), bookmarkPosition: bookmarks[song.id])
        }
        return try library.children(of: songs, annotations: annotations)
    }

    /// Albums of the tag view with this user's star, rating and plays of their songs.
    func albums(_ summaries: [AlbumSummary]) throws -> [AlbumID3] {
        let ids = summaries.map(\.id)
        let store = UserAnnotations(database: database, user: user)
        let starred = try store.starredAt(.album, ids: ids)
        let ratings = try store.ratings(.album, ids: ids)
        let plays = try database.albumPlays(user: user.rawValue, albumIds: ids)
        return summaries.map { summary in
            var album = Self.album(summary)
            album.apply(SubsonicAnnotation(starred: starred[summary.id].map(SubsonicDate.init), userRating: ratings[summary.id],
                                           playCount: plays[summary.id].map { Int64($0.count) },
                                           played: plays[summary.id].flatMap { SubsonicDate(stamp: $0.last) }))
            return album
        }
    }

    /// Albums as the folder view's lists hold them (`getAlbumList`, `getStarred`): folders of songs.
    func albumFolders(_ summaries: [AlbumSummary]) throws -> [SubsonicChild] {
        let averages = try database.averageRatings(albumIds: summaries.map(\.id))
        return try zip(summaries, albums(summaries)).map { summary, album in
            var child = SubsonicChild(folderID: album.id, parent: album.artistId, title: album.name)
            child.album = album.name
            child.artist = album.artist
            child.artistId = album.artistId
            child.albumId = album.id
            child.year = album.year
            child.genre = album.genre
            child.coverArt = album.coverArt
            child.duration = album.duration
            child.created = album.created
            child.mediaType = "album"
            child.apply(SubsonicAnnotation(starred: album.starred, userRating: album.userRating, averageRating: averages[summary.id],
                                           playCount: album.playCount, played: album.played))
            return child
        }
    }

    /// Artists of the tag view with this user's star.
    func artists(_ summaries: [ArtistSummary]) throws -> [ArtistID3] {
        let starred = try UserAnnotations(database: database, user: user).starredAt(.artist, ids: summaries.map(\.id))
        return summaries.map { summary in
            var artist = ArtistID3(id: SubsonicID.artist(summary.id).text, name: summary.name,
                                   coverArt: SubsonicID.artist(summary.id).text, albumCount: summary.albumCount)
            artist.starred = starred[summary.id].map(SubsonicDate.init)
            return artist
        }
    }

    /// Artists of the folder view with this user's star and rating.
    func folderArtists(_ summaries: [ArtistSummary]) throws -> [SubsonicArtist] {
        let store = UserAnnotations(database: database, user: user)
        let ids = summaries.map(\.id)
        let starred = try store.starredAt(.artist, ids: ids)
        let ratings = try store.ratings(.artist, ids: ids)
        return summaries.map { summary in
            var artist = SubsonicArtist(id: SubsonicID.artist(summary.id).text, name: summary.name)
            artist.starred = starred[summary.id].map(SubsonicDate.init)
            artist.userRating = ratings[summary.id]
            return artist
        }
    }

    /// An album's row as the tag view has it, before any user's marks.
    static func album(_ summary: AlbumSummary) -> AlbumID3 {
        let id = SubsonicID.album(summary.id).text
        let created = SubsonicDate(stamp: summary.addedAt) ?? SubsonicDate(Date(timeIntervalSince1970: 0))
        var album = AlbumID3(id: id, name: summary.title, songCount: summary.songCount,
                             duration: Int(clamping: Double(summary.durationMs) / 1000, to: 0...Int(Int32.max)), created: created)
        album.artist = summary.singer
        album.artistId = SubsonicID.artist(summary.singerId).text
        album.artists = [ArtistID3(id: SubsonicID.artist(summary.singerId).text, name: summary.singer)]
        album.displayArtist = summary.singer
        album.coverArt = id
        album.year = summary.year
        album.genre = summary.genres.first
        if !summary.genres.isEmpty { album.genres = summary.genres.map { ItemGenre(name: $0) } }
        return album
    }
}
