import XZCatalogue

extension SubsonicEndpoints {
    static let search: [SubsonicEndpoint] = [
        SubsonicEndpoint("search2") { call in
            let (hits, annotations) = try searchHits(call)
            return .document(SubsonicDocument("searchResult2", SearchResult2(
                artist: try annotations.folderArtists(hits.artists), album: try annotations.albumFolders(hits.albums),
                song: try annotations.children(of: hits.songs))))
        },
        SubsonicEndpoint("search3") { call in
            let (hits, annotations) = try searchHits(call)
            return .document(SubsonicDocument("searchResult3", SearchResult3(
                artist: try annotations.artists(hits.artists), album: try annotations.albums(hits.albums),
                song: try annotations.children(of: hits.songs))))
        },
    ]

    /// The page of each kind `call` asks for, and the caller's marks to put on them.
    private static func searchHits(_ call: SubsonicCall) throws -> (SearchHits, ListenerAnnotations) {
        let request = try SearchRequest(call)
        do {
            return (try SearchHits.find(request, in: call.library.database), ListenerAnnotations(call))
        } catch let error as SubsonicError {
            throw error
        } catch {
            // The library's own failure (a locked or damaged database): one line, never a statement's text.
            throw SubsonicError.generic("the library cannot be searched right now")
        }
    }
}

/// `search2`'s payload: artists and albums of the folder view, songs.
package struct SearchResult2: Encodable, Sendable, Equatable {
    package var artist: [SubsonicArtist]
    package var album: [SubsonicChild]
    package var song: [SubsonicChild]
}

/// `search3`'s payload: artists and albums of the tag view, songs.
package struct SearchResult3: Encodable, Sendable, Equatable {
    package var artist: [ArtistID3]
    package var album: [AlbumID3]
    package var song: [SubsonicChild]
}
