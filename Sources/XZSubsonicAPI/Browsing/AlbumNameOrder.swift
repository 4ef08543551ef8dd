import Foundation
import XZCatalogue
import XZSystem

/// Albums in the order of their names' spellings (`alphabeticalByName`) or their artists' then theirs
/// (`alphabeticalByArtist`), kept until the catalogue changes: a client paging through every album 500 at
/// a time has them spelt and sorted once, not once a page.
enum AlbumNameOrder {
    enum Kind: Hashable { case byName, byArtist }

    private struct Kept {
        var version: Int64
        var ids: [Kind: [ListedAlbum]] = [:]
    }

    private static let kept = Mutex<[String: Kept]>([:])
    /// Libraries one process serves are few; past this many the table starts again.
    private static let maxLibraries = 16

    /// Every listed album in `kind`'s order.
    static func ids(_ kind: Kind, database: LibraryDatabase) throws -> [ListedAlbum] {
        let version = try database.catalogueVersion()
        if let ids = kept.withLock({ $0[database.path].flatMap { $0.version == version ? $0.ids[kind] : nil } }) { return ids }
        let named = try database.listedAlbumNames().map { album in
            (id: album.album, title: (spelling: ArtistIndexGrouping.spelling(of: album.title), name: album.title),
             artist: (spelling: ArtistIndexGrouping.spelling(of: album.singer), name: album.singer))
        }
        let ids = named.sorted { left, right in
            if kind == .byArtist, left.artist != right.artist { return ArtistIndexGrouping.areInIncreasingOrder(left.artist, right.artist) }
            if left.title != right.title { return ArtistIndexGrouping.areInIncreasingOrder(left.title, right.title) }
            return ListedAlbum.areInIncreasingOrder(left.id, right.id)
        }.map(\.id)
        kept.withLock { kept in
            if kept[database.path]?.version != version {
                if kept.count >= maxLibraries { kept.removeAll() }
                kept[database.path] = Kept(version: version)
            }
            kept[database.path]?.ids[kind] = ids
        }
        return ids
    }
}
