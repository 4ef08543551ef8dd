import Foundation
import GRDB
import XZAccounts
import XZCatalogue
import XZStats
import XZSystem

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
    /// average rating. `readingTags`: as `SubsonicSongDetails.read`'s, for a song, album or folder asked for by id.
    func children(of songs: [Song], readingTags: Bool = false) throws -> [SubsonicChild] {
        let annotations = try songAnnotations(songs)
        return try library.children(of: songs, annotations: annotations, readingTags: readingTags)
    }

    /// Each song's marks in one read: the user's own in one statement, every user's average in another
    /// (user_rating has no index by item alone, so it is walked once for the page, not once a song).
    private func songAnnotations(_ songs: [Song]) throws -> [Int64: SubsonicAnnotation] {
        guard !songs.isEmpty else { return [:] }
        return try database.pool.read { db in
            let averages = try LibraryDatabase.averageRatings(db, songKeys: songs.map(\.songKey))
            var annotations: [Int64: SubsonicAnnotation] = [:]
            let rows = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT song.id, song.song_key,
                    (SELECT liked_at FROM song_like WHERE user_id = ?1 AND song_key = song.song_key),
                    (SELECT rating FROM user_rating WHERE user_id = ?1 AND kind = 'song' AND item_key = song.song_key),
                    (SELECT count(*) FROM play_session WHERE user_id = ?1 AND song_key = song.song_key AND counted = 1),
                    (SELECT max(started_at) FROM play_session WHERE user_id = ?1 AND song_key = song.song_key AND counted = 1),
                    (SELECT position_ms FROM user_bookmark WHERE user_id = ?1 AND song_key = song.song_key)
                FROM json_each(?2) AS wanted CROSS JOIN song ON song.id = wanted.value
                """), arguments: [user.rawValue, LibraryDatabase.jsonArray(songs.map(\.id))])
            while let row = try rows.next() {
                let key: String = row[1]
                let liked: String? = row[2]
                let plays: Int64 = row[4]
                let last: String? = row[5]
                annotations[row[0]] = SubsonicAnnotation(
                    starred: liked.flatMap(UTCStamp.date).map(SubsonicDate.init), userRating: row[3], averageRating: averages[key],
                    playCount: plays > 0 ? plays : nil, played: last.flatMap(UTCStamp.date).map(SubsonicDate.init), bookmarkPosition: row[6])
            }
            return annotations
        }
    }

    /// Albums of the tag view with this user's star, rating and plays of their songs (album rows only: the
    /// songs without an album take no star or rating as one).
    func albums(_ listed: [ListedAlbumSummary]) throws -> [AlbumID3] {
        let marks = try albumAnnotations(ids: listed.compactMap(\.albumRow))
        return listed.map { item in
            var album = Self.album(item)
            if let row = item.albumRow { album.apply(marks[row] ?? .none) }
            return album
        }
    }

    /// Each album's star, rating and counted plays of its songs, in one statement.
    private func albumAnnotations(ids: [Int64]) throws -> [Int64: SubsonicAnnotation] {
        guard !ids.isEmpty else { return [:] }
        return try database.pool.read { db in
            var annotations: [Int64: SubsonicAnnotation] = [:]
            let rows = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT album.id,
                    (SELECT starred_at FROM user_star WHERE user_id = ?1 AND kind = 'album' AND item_key = singer.name || char(31) || album.title),
                    (SELECT rating FROM user_rating WHERE user_id = ?1 AND kind = 'album' AND item_key = singer.name || char(31) || album.title),
                    (SELECT count(*) FROM song JOIN play_session p ON p.user_id = ?1 AND p.song_key = song.song_key AND p.counted = 1
                     WHERE song.album_id = album.id),
                    (SELECT max(p.started_at) FROM song JOIN play_session p ON p.user_id = ?1 AND p.song_key = song.song_key AND p.counted = 1
                     WHERE song.album_id = album.id)
                FROM json_each(?2) AS wanted CROSS JOIN album ON album.id = wanted.value JOIN singer ON singer.id = album.singer_id
                """), arguments: [user.rawValue, LibraryDatabase.jsonArray(ids)])
            while let row = try rows.next() {
                let starred: String? = row[1]
                let plays: Int64 = row[3]
                let last: String? = row[4]
                annotations[row[0]] = SubsonicAnnotation(starred: starred.flatMap(UTCStamp.date).map(SubsonicDate.init), userRating: row[2],
                                                         playCount: plays > 0 ? plays : nil, played: last.flatMap { SubsonicDate(stamp: $0) })
            }
            return annotations
        }
    }

    /// Albums as the folder view's lists hold them (`getAlbumList`, `getStarred`): folders of songs.
    func albumFolders(_ listed: [ListedAlbumSummary]) throws -> [SubsonicChild] {
        let averages = try database.averageRatings(albumIds: listed.compactMap(\.albumRow))
        return try zip(listed, albums(listed)).map { item, album in
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
            child.sortName = album.sortName
            child.apply(SubsonicAnnotation(starred: album.starred, userRating: album.userRating,
                                           averageRating: item.albumRow.flatMap { averages[$0] },
                                           playCount: album.playCount, played: album.played))
            return child
        }
    }

    /// Artists of the tag view with this user's star; their songs without an album count as one album.
    func artists(_ summaries: [ArtistSummary]) throws -> [ArtistID3] {
        let ids = summaries.map(\.id)
        let starred = try UserAnnotations(database: database, user: user).starredAt(.artist, ids: ids)
        let albumless = try database.singersWithAlbumlessSongs(ids)
        return summaries.map { summary in
            var artist = ArtistID3(id: SubsonicID.artist(summary.id).text, name: summary.name, coverArt: SubsonicID.artist(summary.id).text,
                                   albumCount: summary.albumCount + (albumless.contains(summary.id) ? 1 : 0))
            artist.starred = starred[summary.id].map(SubsonicDate.init)
            artist.sortName = ArtistIndexGrouping.sortName(of: summary.name)
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

    /// An album as the tag view has it, before any user's marks.
    static func album(_ listed: ListedAlbumSummary) -> AlbumID3 {
        let summary = listed.summary
        let id = SubsonicID(listed.album).text
        let created = SubsonicDate(stamp: summary.addedAt) ?? SubsonicDate(Date(timeIntervalSince1970: 0))
        var album = AlbumID3(id: id, name: summary.title, songCount: summary.songCount,
                             duration: Int(clamping: Double(summary.durationMs) / 1000, to: 0...Int(Int32.max)), created: created)
        album.artist = summary.singer
        album.artistId = SubsonicID.artist(summary.singerId).text
        album.artists = [ArtistID3(id: SubsonicID.artist(summary.singerId).text, name: summary.singer)]
        album.displayArtist = summary.singer
        album.coverArt = id
        album.year = summary.year
        album.sortName = ArtistIndexGrouping.sortName(of: summary.title)
        album.genre = summary.genres.first
        if !summary.genres.isEmpty { album.genres = summary.genres.map { ItemGenre(name: $0) } }
        return album
    }
}

extension ListedAlbumSummary {
    /// The album row, nil for songs without an album.
    var albumRow: Int64? {
        if case .album(let id) = album { return id }
        return nil
    }
}
