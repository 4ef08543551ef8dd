import XZSystem
/// A failure of the catalogue layer, told apart by kind (`error == .noSuchPlaylist`); the message is
/// the line shown to the user (MPD's own wording for filters and playlists) and takes no part in equality.
package struct CatalogueError: KindedError {
    package enum Kind: Hashable, Sendable {
        case database, io, badFeedLine, badFilter, badPlaylistName, noSuchPlaylist, playlistExists, badPosition
        case malformedURI, climbsOut, accessDenied, unsupportedScheme, noSuchSong, notInLibrary, playlistTooLarge, damaged
    }

    package let kind: Kind
    package var message: String

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    /// The library database cannot be opened or migrated.
    package static let database = CatalogueError(kind: .database, message: "cannot open the library database")
    /// A file or folder cannot be read, created or written.
    package static let io = CatalogueError(kind: .io, message: "cannot read or write a file")
    /// A feed line that is not a song: bad JSON, a missing or malformed field.
    package static let badFeedLine = CatalogueError(kind: .badFeedLine, message: "bad feed line")
    /// A malformed song filter.
    package static let badFilter = CatalogueError(kind: .badFilter, message: "bad filter")
    package static let badPlaylistName = CatalogueError(kind: .badPlaylistName, message: "Bad playlist name")
    package static let noSuchPlaylist = CatalogueError(kind: .noSuchPlaylist, message: "No such playlist")
    package static let playlistExists = CatalogueError(kind: .playlistExists, message: "Playlist exists already")
    /// A stored playlist would pass its cap (MPD's `max_playlist_length`), in MPD's words.
    package static let playlistTooLarge = CatalogueError(kind: .playlistTooLarge, message: "Stored playlist is too large")
    /// The library database's file is damaged (SQLite's SQLITE_CORRUPT or SQLITE_NOTADB, a bad header,
    /// a file shorter than its pages): the message says which file and how to repair it.
    package static let damaged = CatalogueError(kind: .damaged, message: "the library database is damaged")
    /// A position or range outside a playlist.
    package static let badPosition = CatalogueError(kind: .badPosition, message: "Bad position")

    /// A song URI that is empty or holds a NUL.
    package static let malformedURI = CatalogueError(kind: .malformedURI, message: "Malformed URI")
    /// A song URI with a `..` or `.` component, which could name a file outside its folder.
    package static let climbsOut = CatalogueError(kind: .climbsOut, message: "Malformed URI")
    /// An absolute path from a client that may not name files by path.
    package static let accessDenied = CatalogueError(kind: .accessDenied, message: "Access denied")
    /// A catalogue name (`xzmusic-catalogue/…`) of a file the catalogue holds no song for.
    package static let noSuchSong = CatalogueError(kind: .noSuchSong, message: "No such song")
    /// A name the library holds no song or folder of, whether or not a file is there (MPD's words for a
    /// name its database does not hold).
    package static let notInLibrary = CatalogueError(kind: .notInLibrary, message: "No such directory")
    package static let unsupportedScheme = CatalogueError(kind: .unsupportedScheme, message: "Unsupported URI scheme: only files play on this host")
}
