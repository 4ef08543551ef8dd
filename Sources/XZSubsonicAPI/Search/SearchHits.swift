import GRDB
import XZCatalogue
import XZSystem

/// One page of each kind a search found: artists and albums as browsing lists them, songs as rows.
struct SearchHits {
    var artists: [ArtistSummary] = []
    /// Album rows and singers' songs without an album, as the tag view lists them.
    var albums: [ListedAlbumSummary] = []
    var songs: [Song] = []

    /// A query's hits, through the catalogue's own search (pinyin, initials, traditional/simplified, and
    /// its suggestions for a query that matched nothing, which is how a typo still finds); an empty query
    /// lists every artist, album and song by row id, so pages of any size see each exactly once.
    static func find(_ request: SearchRequest, in database: LibraryDatabase) throws -> SearchHits {
        if let text = request.text {
            return try ranked(text, request: request, database: database)
        }
        return try everything(request, database: database)
    }

    /// A ranked query reaches this many hits of each kind; pages past it are empty. A person reads the
    /// first few dozen; the bound keeps a client asking for offset 1,000,000 from ranking the library.
    static let rankedReach = 5_000

    private static func ranked(_ text: String, request: SearchRequest, database: LibraryDatabase) throws -> SearchHits {
        // Albums come from the songs and artists found, so their page asks for a few more of those.
        let reach = min(rankedReach, max(request.songs.end, request.artists.end, 2 * request.albums.end))
        guard reach > 0 else { return SearchHits() }
        let result = try database.search(text, limit: reach)
        var songs = result.songs
        var singerIDs = result.singers.map(\.id)
        if songs.isEmpty && singerIDs.isEmpty {
            // Nothing matched: the songs and singers the query came close to (a typo, a wrong character).
            songs = try database.songs(ids: result.suggestions.filter { $0.kind == .song }.map(\.id))
            singerIDs = result.suggestions.filter { $0.kind == .singer }.map(\.id)
        }
        // Everything past the catalogue's search is read in one transaction, each statement prepared once.
        return try database.pool.read { db in
            let browsable = try SearchRows.browsableAlbums(db, songIDs: songs.map(\.id))
            songs = songs.filter { browsable[$0.id] != nil }
            var hits = SearchHits()
            if request.songs.count > 0 { hits.songs = page(songs, request.songs) }
            if request.artists.count > 0 {
                hits.artists = page(try LibraryDatabase.artistSummaries(db, ids: singerIDs), request.artists)
            }
            if request.albums.count > 0 {
                // The albums of the songs found, in their order, then those of the singers found.
                var seen = Set<ListedAlbum>()
                let fromSongs = songs.compactMap { song in
                    browsable[song.id].map { $0.map(ListedAlbum.album) ?? .albumless(singerId: song.singerId) }
                }
                let fromSingers = try SearchRows.albumIDs(db, singerIDs: singerIDs, limit: reach).map(ListedAlbum.album)
                    + LibraryDatabase.singersWithAlbumlessSongs(db, singerIDs).map { ListedAlbum.albumless(singerId: $0) }
                let albums = (fromSongs + fromSingers).filter { seen.insert($0).inserted }.prefix(reach)
                hits.albums = page(try LibraryDatabase.albumSummaries(db, Array(albums)), request.albums)
            }
            return hits
        }
    }

    private static func everything(_ request: SearchRequest, database: LibraryDatabase) throws -> SearchHits {
        try database.pool.read { db in
            let pages = try SearchRows.KeysetPages(db, database: database)
            var hits = SearchHits()
            if request.artists.count > 0 {
                hits.artists = try LibraryDatabase.artistSummaries(db, ids: pages.ids(.artist, window: request.artists))
            }
            if request.albums.count > 0 {
                hits.albums = try LibraryDatabase.albumSummaries(db, pages.albums(window: request.albums))
            }
            if request.songs.count > 0 {
                hits.songs = try LibraryDatabase.browsableSongs(db, ids: pages.ids(.song, window: request.songs))
            }
            return hits
        }
    }

    private static func page<Item>(_ items: [Item], _ window: SearchRequest.Window) -> [Item] {
        guard window.offset < items.count else { return [] }
        return Array(items[window.offset..<min(items.count, window.end)])
    }
}

/// The statements search reads beside the catalogue's search, each for a whole page at once.
enum SearchRows {
    /// The browsable ones of `songIDs`, each with its album (nil for a song without one).
    static func browsableAlbums(_ db: Database, songIDs: [Int64]) throws -> [Int64: Int64?] {
        guard !songIDs.isEmpty else { return [:] }
        var albums: [Int64: Int64?] = [:]
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT song.id, song.album_id FROM json_each(?) AS wanted CROSS JOIN song ON song.id = wanted.value
            WHERE \(LibraryDatabase.browsableSong)
            """), arguments: [LibraryDatabase.jsonArray(songIDs)])
        while let row = try rows.next() { albums[row[0]] = row[1] as Int64? }
        return albums
    }

    /// The albums filed under `singerIDs`, singer by singer in that order, each singer's by title.
    static func albumIDs(_ db: Database, singerIDs: [Int64], limit: Int) throws -> [Int64] {
        guard !singerIDs.isEmpty else { return [] }
        return try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT album.id FROM json_each(?) AS wanted CROSS JOIN album ON album.singer_id = wanted.value
            ORDER BY wanted.key, album.title LIMIT ?
            """), arguments: [LibraryDatabase.jsonArray(singerIDs), limit])
    }

    // An empty query's pages: every row with a browsable song, by row id; past the album rows, the singers
    // with songs without an album, by row id, for their "[Unknown Album]".

    enum Kind: Hashable {
        case artist, album, albumless, song

        /// The kind's rows with a browsable song, from row id `?1` on, by row id, `?2` of them from the `?3`th.
        var sql: String {
            switch self {
            case .artist: """
                SELECT singer.id FROM singer WHERE singer.id > ?1
                  AND EXISTS (SELECT 1 FROM song WHERE song.singer_id = singer.id AND \(LibraryDatabase.browsableSong))
                ORDER BY singer.id LIMIT ?2 OFFSET ?3
                """
            case .album: """
                SELECT album.id FROM album WHERE album.id > ?1
                  AND EXISTS (SELECT 1 FROM song WHERE song.album_id = album.id AND \(LibraryDatabase.browsableSong))
                ORDER BY album.id LIMIT ?2 OFFSET ?3
                """
            case .albumless: """
                SELECT singer.id FROM singer WHERE singer.id > ?1
                  AND EXISTS (SELECT 1 FROM song WHERE song.singer_id = singer.id AND \(LibraryDatabase.albumlessSong))
                ORDER BY singer.id LIMIT ?2 OFFSET ?3
                """
            case .song: """
                SELECT song.id FROM song WHERE song.id > ?1 AND \(LibraryDatabase.browsableSong) ORDER BY song.id LIMIT ?2 OFFSET ?3
                """
            }
        }
    }

    /// Where a page ended: the row id after which the item at `offset` comes, in the catalogue as it was.
    struct Anchor: Hashable {
        var library: String
        var kind: Kind
        var offset: Int
        var catalogueVersion: Int64
    }

    /// The last pages' ends. A client syncing asks for the page after the last one, so its offset starts
    /// from the row id the last page ended at instead of walking every row before it; any change to the
    /// catalogue bumps its version and so retires every anchor.
    static let anchors = Mutex<[Anchor: Int64]>([:])
    static let maxAnchors = 256

    /// The pages of one read, anchored to the catalogue's version in that read.
    struct KeysetPages {
        let db: Database
        let library: String
        let catalogueVersion: Int64

        init(_ db: Database, database: LibraryDatabase) throws {
            self.db = db
            library = database.path
            catalogueVersion = try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM catalogue_version")) ?? 0
        }

        /// The album rows of the window, then, past the last row, the singers' songs without an album.
        func albums(window: SearchRequest.Window) throws -> [ListedAlbum] {
            let rows = try ids(.album, window: window)
            guard rows.count < window.count else { return rows.map(ListedAlbum.album) }
            // Where the album rows end: just past this page's, or, for a page past them all, counted.
            let rowCount = !rows.isEmpty ? window.offset + rows.count : try Int.fetchOne(db.cachedStatement(sql: """
                SELECT count(*) FROM album WHERE EXISTS (SELECT 1 FROM song WHERE song.album_id = album.id AND \(LibraryDatabase.browsableSong))
                """)) ?? 0
            let rest = SearchRequest.Window(count: window.count - rows.count, offset: max(0, window.offset - rowCount))
            return rows.map(ListedAlbum.album) + (try ids(.albumless, window: rest)).map { ListedAlbum.albumless(singerId: $0) }
        }

        func ids(_ kind: Kind, window: SearchRequest.Window) throws -> [Int64] {
            let key = Anchor(library: library, kind: kind, offset: window.offset, catalogueVersion: catalogueVersion)
            let anchor = window.offset == 0 ? nil : SearchRows.anchors.withLock { $0[key] }
            let ids = try Int64.fetchAll(db.cachedStatement(sql: kind.sql), arguments: [
                anchor ?? Int64.min, window.count, anchor == nil ? window.offset : 0])
            if ids.count == window.count, let last = ids.last {
                let next = Anchor(library: library, kind: kind, offset: window.end, catalogueVersion: catalogueVersion)
                SearchRows.anchors.withLock { anchors in
                    if anchors.count >= SearchRows.maxAnchors { anchors.removeAll() }
                    anchors[next] = last
                }
            }
            return ids
        }
    }
}
