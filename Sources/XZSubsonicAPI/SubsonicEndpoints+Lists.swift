import Foundation
import XZAccounts
import XZCatalogue

extension SubsonicEndpoints {
    static let lists: [SubsonicEndpoint] = [
        SubsonicEndpoint("getAlbumList") { call in
            let albums = try ListenerAnnotations(call).albumFolders(albumList(call))
            return .document(SubsonicDocument("albumList", SubsonicAlbumList(album: albums)))
        },
        SubsonicEndpoint("getAlbumList2") { call in
            let albums = try ListenerAnnotations(call).albums(albumList(call))
            return .document(SubsonicDocument("albumList2", SubsonicAlbumList2(album: albums)))
        },
        SubsonicEndpoint("getRandomSongs") { call in
            try call.checkMusicFolder()
            let size = try call.clampedInt("size", default: 10, in: 0...maxListSize)
            let genre = try call.text("genre")
            let from = try call.optionalInt("fromYear", in: yearDomain)
            let to = try call.optionalInt("toYear", in: yearDomain)
            let low = from ?? yearDomain.lowerBound, high = to ?? yearDomain.upperBound
            // No year is both after `fromYear` and before an earlier `toYear`.
            let songs = low > high ? [] : try call.library.database.randomSongs(
                limit: size, genre: genre, years: from == nil && to == nil ? nil : low...high)
            return .document(SubsonicDocument("randomSongs", SubsonicSongList(song: try ListenerAnnotations(call).children(of: songs))))
        },
        SubsonicEndpoint("getSongsByGenre") { call in
            try call.checkMusicFolder()
            let genre = try call.required("genre")
            let count = try call.clampedInt("count", default: 10, in: 0...maxListSize)
            let offset = try call.clampedInt("offset", default: 0, in: 0...maxOffset)
            let songs = try call.library.database.songs(genre: genre, limit: count, offset: offset)
            return .document(SubsonicDocument("songsByGenre", SubsonicSongList(song: try ListenerAnnotations(call).children(of: songs))))
        },
        SubsonicEndpoint("getStarred") { call in
            let starred = try starredItems(call)
            let annotations = ListenerAnnotations(call)
            return .document(SubsonicDocument("starred", SubsonicStarred(
                artist: try annotations.folderArtists(starred.artists), album: try annotations.albumFolders(starred.albums),
                song: try annotations.children(of: starred.songs))))
        },
        SubsonicEndpoint("getStarred2") { call in
            let starred = try starredItems(call)
            let annotations = ListenerAnnotations(call)
            return .document(SubsonicDocument("starred2", SubsonicStarred2(
                artist: try annotations.artists(starred.artists), album: try annotations.albums(starred.albums),
                song: try annotations.children(of: starred.songs))))
        },
        SubsonicEndpoint("getNowPlaying", answer: nowPlaying),
        SubsonicEndpoint("getTopSongs") { call in
            let name = try call.required("artist")
            let count = try call.clampedInt("count", default: 50, in: 0...maxListSize)
            let database = call.library.database
            var songs: [Song] = []
            if let singer = try database.singer(named: name) {
                songs = try database.topSongs(singerId: singer.id, limit: count)
            }
            return .document(SubsonicDocument("topSongs", SubsonicSongList(song: try ListenerAnnotations(call).children(of: songs))))
        },
        SubsonicEndpoint("getSimilarSongs") { call in
            .document(SubsonicDocument("similarSongs", SubsonicSongList(song: try similarSongs(call))))
        },
        SubsonicEndpoint("getSimilarSongs2") { call in
            .document(SubsonicDocument("similarSongs2", SubsonicSongList(song: try similarSongs(call))))
        },
    ]

    /// The most items one list answers with, as the spec caps `size` and `count`.
    static let maxListSize = 500
    /// Offsets past this list nothing in any library; larger ones are held here.
    static let maxOffset = 1_000_000_000
    private static let yearDomain = -9999...99999

    // MARK: Album lists

    /// The page of albums `type` asks for.
    private static func albumList(_ call: SubsonicCall) throws -> [ListedAlbumSummary] {
        try call.checkMusicFolder()
        let type = try call.required("type")
        let size = try call.clampedInt("size", default: 10, in: 0...maxListSize)
        let offset = try call.clampedInt("offset", default: 0, in: 0...maxOffset)
        let database = call.library.database
        let user = (call.user?.id ?? .owner).rawValue
        let order: AlbumListOrder
        switch type {
        case "alphabeticalByName", "alphabeticalByArtist":
            let ids = try AlbumNameOrder.ids(type == "alphabeticalByName" ? .byName : .byArtist, database: database)
            return try database.albumSummaries(Array(ids.dropFirst(min(offset, ids.count)).prefix(size)))
        case "random": order = .random
        case "newest": order = .newest
        case "frequent": order = .frequent(user: user)
        case "recent": order = .recent(user: user)
        case "highest": order = .highest(user: user)
        case "starred": order = .starred(user: user)
        case "byYear":
            guard let from = try call.optionalInt("fromYear", in: yearDomain), let to = try call.optionalInt("toYear", in: yearDomain) else {
                throw SubsonicError.missingParameter("type byYear needs 'fromYear' and 'toYear'")
            }
            order = .byYear(from: from, to: to)
        case "byGenre":
            guard let genre = try call.text("genre") else { throw SubsonicError.missingParameter("type byGenre needs 'genre'") }
            order = .byGenre(genre)
        default:
            throw SubsonicError.generic("parameter 'type' is no album list type")
        }
        return try database.albumSummaries(database.listedAlbums(order, limit: size, offset: offset))
    }

    // MARK: Stars

    /// The user's liked songs, starred albums and starred artists, latest first.
    private static func starredItems(_ call: SubsonicCall) throws -> (artists: [ArtistSummary], albums: [ListedAlbumSummary], songs: [Song]) {
        try call.checkMusicFolder()
        let user = call.user?.id ?? .owner
        let database = call.library.database
        let stars = UserAnnotations(database: database, user: user)
        let albums = try database.albumSummaries(ids: stars.starred(.album).map(\.id)).map(ListedAlbumSummary.init)
        let artists = try database.artistSummaries(ids: stars.starred(.artist).map(\.id))
        return (artists, albums, try database.likedSongs(user: user.rawValue))
    }

    // MARK: Now playing

    /// The host's own player's song, then what clients reported playing (`scrobble submission=false`).
    @Sendable private static func nowPlaying(_ call: SubsonicCall) throws -> SubsonicReply {
        let library = call.library
        let database = library.database
        var entries: [SubsonicNowPlayingEntry] = []
        let snapshot = library.host.snapshot()
        if snapshot.state.isLoaded, let item = snapshot.current, let id = item.songId, let song = try database.browsableSong(id: id),
           let child = try ListenerAnnotations(call).children(of: [song]).first {
            let owner = try? library.accounts.user(id: .owner)
            entries.append(SubsonicNowPlayingEntry(child: child, username: owner?.name ?? "xzmusic", minutesAgo: 0, playerId: 0,
                                                   playerName: "xzmusic", state: snapshot.state.rawValue,
                                                   positionMs: Int64(max(0, snapshot.positionMs))))
        }
        let now = Date()
        let reports = NowPlayingReports.of(library).current(now: now)
        let songs = Dictionary(try database.browsableSongs(ids: reports.map(\.songId)).map { ($0.id, $0) }) { first, _ in first }
        let children = try ListenerAnnotations(call).children(of: Array(songs.values))
        let childByID = Dictionary(children.map { ($0.id, $0) }) { first, _ in first }
        for (index, report) in reports.enumerated() {
            guard let child = childByID[SubsonicID.song(report.songId).text] else { continue }
            let minutes = Int(clamping: now.timeIntervalSince(report.at) / 60, to: 0...Int(Int32.max))
            entries.append(SubsonicNowPlayingEntry(child: child, username: report.username, minutesAgo: minutes, playerId: index + 1,
                                                   playerName: report.client.isEmpty ? nil : report.client))
        }
        return .document(SubsonicDocument("nowPlaying", SubsonicNowPlaying(entry: entries)))
    }

    // MARK: Similar songs

    /// Songs listeners played on the same days as the song, album or artist `id`, then songs of the same
    /// artist and genres to make up `count`.
    private static func similarSongs(_ call: SubsonicCall) throws -> [SubsonicChild] {
        let count = try call.clampedInt("count", default: 50, in: 0...maxListSize)
        let database = call.library.database
        let seeds: [Song]
        let id = try call.id("id")
        switch id {
        case .song(let id):
            guard let song = try database.browsableSong(id: id) else { throw SubsonicError.notFound("no song has that id") }
            seeds = [song]
        case .album, .unknownAlbum:
            seeds = try id.listedAlbum.map(database.songs(of:)) ?? []
        case .artist(let id):
            guard try database.artistSummary(id: id) != nil else { throw SubsonicError.notFound("no artist has that id") }
            seeds = try database.browsableSongs(singerId: id)
        default:
            throw SubsonicError.notFound("no song, album or artist has that id")
        }
        guard !seeds.isEmpty else { throw SubsonicError.notFound("no song, album or artist has that id") }
        let bounded = Array(seeds.prefix(200))
        var songs = try database.songsPlayedAlongside(seedKeys: bounded.map(\.songKey), limit: count)
        if songs.count < count {
            let genres = Array(Set(bounded.flatMap(\.genres)).sorted().prefix(20))
            songs += try database.songsLike(singerId: bounded.first?.singerId, genres: genres,
                                            excluding: bounded.map(\.id) + songs.map(\.id), limit: count - songs.count)
        }
        return try ListenerAnnotations(call).children(of: songs)
    }
}

/// `getAlbumList`'s payload: albums as folders.
package struct SubsonicAlbumList: Encodable, Sendable, Equatable {
    package var album: [SubsonicChild]
}

/// `getAlbumList2`'s payload.
package struct SubsonicAlbumList2: Encodable, Sendable, Equatable {
    package var album: [AlbumID3]
}

/// A list of songs (`randomSongs`, `songsByGenre`, `topSongs`, `similarSongs`, `similarSongs2`).
package struct SubsonicSongList: Encodable, Sendable, Equatable {
    package var song: [SubsonicChild]
}

/// `getStarred`'s payload: the folder view's artists and albums.
package struct SubsonicStarred: Encodable, Sendable, Equatable {
    package var artist: [SubsonicArtist]
    package var album: [SubsonicChild]
    package var song: [SubsonicChild]
}

/// `getStarred2`'s payload.
package struct SubsonicStarred2: Encodable, Sendable, Equatable {
    package var artist: [ArtistID3]
    package var album: [AlbumID3]
    package var song: [SubsonicChild]
}

/// `getNowPlaying`'s payload.
package struct SubsonicNowPlaying: Encodable, Sendable, Equatable {
    package var entry: [SubsonicNowPlayingEntry]
}

/// A song someone is playing: the song's fields, then who plays it, where, and since when.
package struct SubsonicNowPlayingEntry: Encodable, Sendable, Equatable {
    package var child: SubsonicChild
    package var username: String
    package var minutesAgo: Int
    package var playerId: Int
    package var playerName: String?
    package var state: String?
    package var positionMs: Int64?

    private enum CodingKeys: String, CodingKey { case username, minutesAgo, playerId, playerName, state, positionMs }

    /// The song's fields and the entry's side by side, as the spec's `allOf` has them.
    package func encode(to encoder: any Encoder) throws {
        try child.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(username, forKey: .username)
        try container.encode(minutesAgo, forKey: .minutesAgo)
        try container.encode(playerId, forKey: .playerId)
        try container.encodeIfPresent(playerName, forKey: .playerName)
        try container.encodeIfPresent(state, forKey: .state)
        try container.encodeIfPresent(positionMs, forKey: .positionMs)
    }
}
