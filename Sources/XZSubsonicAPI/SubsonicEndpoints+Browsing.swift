import Foundation
import XZCatalogue

extension SubsonicEndpoints {
    static let browsing: [SubsonicEndpoint] = [
        SubsonicEndpoint("getMusicFolders") { call in
            let tree = MusicFolderTree(library: call.library)
            return .document(SubsonicDocument("musicFolders", MusicFolders(musicFolder: [
                MusicFolder(id: MusicFolderTree.musicFolderID, name: tree.musicFolderName),
            ])))
        },
        SubsonicEndpoint("getIndexes", answer: indexes),
        SubsonicEndpoint("getMusicDirectory", answer: musicDirectory),
        SubsonicEndpoint("getArtists") { call in
            try call.checkMusicFolder()
            let artists = try ListenerAnnotations(call).artists(call.library.database.artistSummaries())
            // Each artist's sortName is its spelling, already made.
            let groups = ArtistIndexGrouping.grouped(artists, spelling: { $0.sortName ?? "" }) { $0.name }
            return .document(SubsonicDocument("artists", ArtistsID3(
                ignoredArticles: ArtistIndexGrouping.ignoredArticles,
                index: groups.map { IndexID3(name: $0.letter, artist: $0.items) })))
        },
        SubsonicEndpoint("getArtist") { call in
            let id = try call.artistID("id")
            let database = call.library.database
            guard let summary = try database.artistSummary(id: id) else { throw SubsonicError.notFound("no artist has that id") }
            let annotations = ListenerAnnotations(call)
            guard let artist = try annotations.artists([summary]).first else { throw SubsonicError.notFound }
            let albums = try annotations.albums(database.listedAlbums(singerId: id))
            return .document(SubsonicDocument("artist", ArtistWithAlbumsID3(artist: artist, album: albums)))
        },
        SubsonicEndpoint("getAlbum") { call in
            let id = try call.listedAlbum("id")
            let database = call.library.database
            let annotations = ListenerAnnotations(call)
            guard let album = try annotations.albums(database.albumSummaries([id])).first else {
                throw SubsonicError.notFound("no album has that id")
            }
            let songs = try annotations.children(of: database.songs(of: id), readingTags: true)
            return .document(SubsonicDocument("album", AlbumID3WithSongs(album: album, song: songs)))
        },
        SubsonicEndpoint("getSong") { call in
            guard case .song(let id) = try call.id("id"), let song = try call.library.database.browsableSong(id: id),
                  let child = try ListenerAnnotations(call).children(of: [song], readingTags: true).first else {
                throw SubsonicError.notFound("no song has that id")
            }
            return .document(SubsonicDocument("song", child))
        },
        SubsonicEndpoint("getGenres") { call in
            let genres = try call.library.database.genreSummaries()
            return .document(SubsonicDocument("genres", Genres(genre: genres.map {
                SubsonicGenre(value: $0.name, songCount: $0.songCount, albumCount: $0.albumCount)
            })))
        },
        SubsonicEndpoint("getArtistInfo") { call in
            let similar = try similarArtists(call)
            let artists = try ListenerAnnotations(call).folderArtists(similar)
            return .document(SubsonicDocument("artistInfo", SubsonicArtistInfo(similarArtist: artists)))
        },
        SubsonicEndpoint("getArtistInfo2") { call in
            let similar = try similarArtists(call)
            let artists = try ListenerAnnotations(call).artists(similar)
            return .document(SubsonicDocument("artistInfo2", SubsonicArtistInfo2(similarArtist: artists)))
        },
        SubsonicEndpoint("getAlbumInfo", answer: albumInfo),
        SubsonicEndpoint("getAlbumInfo2", answer: albumInfo),
    ]

    // MARK: Folders

    /// The music folder's first-level folders by letter, and the songs at its top.
    @Sendable private static func indexes(_ call: SubsonicCall) throws -> SubsonicReply {
        try call.checkMusicFolder()
        let tree = MusicFolderTree(library: call.library)
        let changedAt = try CatalogueChangeClock.lastModified(of: call.library.database)
        let lastModified = Int64(clamping: Int(clamping: changedAt.timeIntervalSince1970 * 1000))
        // Nothing changed since the client's copy: the element without its letters.
        if let since = try call.optionalInt64("ifModifiedSince", in: 0...Int64.max), since >= lastModified {
            return .document(SubsonicDocument("indexes", Indexes(ignoredArticles: ArtistIndexGrouping.ignoredArticles,
                                                                 lastModified: lastModified, index: [])))
        }
        let listing = try tree.listing(of: "") ?? MusicFolderTree.Listing()
        let folders = listing.folders.map { SubsonicArtist(id: SubsonicID.folder($0).text, name: $0) }
        let groups = ArtistIndexGrouping.grouped(folders) { $0.name }
        let songs = try call.library.database.browsableSongs(ids: listing.songIDs)
        var indexes = Indexes(ignoredArticles: ArtistIndexGrouping.ignoredArticles, lastModified: lastModified,
                              index: groups.map { SubsonicIndex(name: $0.letter, artist: $0.items) })
        if !songs.isEmpty { indexes.child = try ListenerAnnotations(call).children(of: songs) }
        return .document(SubsonicDocument("indexes", indexes))
    }

    /// A folder's subfolders and songs; an artist's albums or an album's songs for clients that browse
    /// the tag view's ids as folders.
    @Sendable private static func musicDirectory(_ call: SubsonicCall) throws -> SubsonicReply {
        let database = call.library.database
        let annotations = ListenerAnnotations(call)
        let id = try call.id("id")
        switch id {
        case .folder(let path):
            let tree = MusicFolderTree(library: call.library)
            guard let listing = try tree.listing(of: path) else { throw SubsonicError.notFound("no folder has that id") }
            let id = SubsonicID.folder(path).text
            let folders = listing.folders.map {
                SubsonicChild(folderID: SubsonicID.folder(MusicFolderTree.join(path, $0)).text, parent: id, title: $0)
            }
            let songs = try annotations.children(of: database.browsableSongs(ids: listing.songIDs), readingTags: true)
            let name = path.isEmpty ? tree.musicFolderName : MusicFolderTree.name(of: path)
            return .document(SubsonicDocument("directory", Directory(id: id, parent: MusicFolderTree.parentID(of: path),
                                                                     name: name, child: folders + songs)))
        case .artist(let artistID):
            guard let artist = try database.artistSummary(id: artistID) else { throw SubsonicError.notFound("no artist has that id") }
            let albums = try annotations.albumFolders(database.listedAlbums(singerId: artistID))
            return .document(SubsonicDocument("directory", Directory(id: SubsonicID.artist(artistID).text, parent: nil,
                                                                     name: artist.name, child: albums)))
        case .album, .unknownAlbum:
            guard let listed = id.listedAlbum, let album = try database.albumSummaries([listed]).first?.summary else {
                throw SubsonicError.notFound("no album has that id")
            }
            let songs = try annotations.children(of: database.songs(of: listed), readingTags: true)
            return .document(SubsonicDocument("directory", Directory(id: id.text, parent: SubsonicID.artist(album.singerId).text,
                                                                     name: album.title, child: songs)))
        default:
            throw SubsonicError.notFound("no folder has that id")
        }
    }

    // MARK: Information

    /// The artists sharing listeners with the artist `id` (`count` of them, default 20); none for a
    /// folder. The library holds no biography and fetches none.
    private static func similarArtists(_ call: SubsonicCall) throws -> [ArtistSummary] {
        let count = try call.clampedInt("count", default: 20, in: 0...500)
        switch try call.id("id") {
        case .artist(let id):
            guard try call.library.database.artistSummary(id: id) != nil else { throw SubsonicError.notFound("no artist has that id") }
            return try call.library.database.artistsSharingListeners(singerId: id, limit: count)
        case .folder(let path):
            guard try MusicFolderTree(library: call.library).listing(of: path) != nil else {
                throw SubsonicError.notFound("no folder has that id")
            }
            return []
        default:
            throw SubsonicError.notFound("no artist has that id")
        }
    }

    /// What the library knows of an album beyond its rows: nothing it would fetch from the network.
    @Sendable private static func albumInfo(_ call: SubsonicCall) throws -> SubsonicReply {
        let database = call.library.database
        let known: Bool
        let id = try call.id("id")
        switch id {
        case .album, .unknownAlbum: known = try !database.albumSummaries(id.listedAlbum.map { [$0] } ?? []).isEmpty
        case .song(let id): known = try database.browsableSong(id: id) != nil
        case .folder(let path): known = try MusicFolderTree(library: call.library).listing(of: path) != nil
        default: known = false
        }
        guard known else { throw SubsonicError.notFound("no album has that id") }
        return .document(SubsonicDocument("albumInfo", SubsonicAlbumInfo()))
    }
}

/// `getArtistInfo`'s payload: no biography or pictures (nothing is fetched), similar artists from the
/// library's own plays.
package struct SubsonicArtistInfo: Encodable, Sendable, Equatable {
    package var similarArtist: [SubsonicArtist]?

    init(similarArtist: [SubsonicArtist]) {
        self.similarArtist = similarArtist.isEmpty ? nil : similarArtist
    }
}

/// `getArtistInfo2`'s payload.
package struct SubsonicArtistInfo2: Encodable, Sendable, Equatable {
    package var similarArtist: [ArtistID3]?

    init(similarArtist: [ArtistID3]) {
        self.similarArtist = similarArtist.isEmpty ? nil : similarArtist
    }
}

/// `getAlbumInfo`'s payload: every field is optional and the library has none of them.
package struct SubsonicAlbumInfo: Encodable, Sendable, Equatable {
    package var notes: String?
}

extension SubsonicCall {
    /// `musicFolderId`, when given, names the one music folder (error 70 for any other number).
    func checkMusicFolder() throws {
        guard let folder = try optionalInt64("musicFolderId", in: Int64.min...Int64.max) else { return }
        guard folder == Int64(MusicFolderTree.musicFolderID) else { throw SubsonicError.notFound("no music folder has that id") }
    }

    /// The artist row of the id `name` (error 70 for an id of another kind).
    func artistID(_ name: String) throws -> Int64 {
        guard case .artist(let id) = try self.id(name) else { throw SubsonicError.notFound("no artist has that id") }
        return id
    }

    /// The album the id `name` names, a row or a singer's songs without one (error 70 for an id of another kind).
    func listedAlbum(_ name: String) throws -> ListedAlbum {
        guard let album = try self.id(name).listedAlbum else { throw SubsonicError.notFound("no album has that id") }
        return album
    }
}
