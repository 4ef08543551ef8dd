/// A failure of the catalogue layer, told apart by kind (`error == .noSuchPlaylist`); the message is
/// the line shown to the user (MPD's own wording for filters and playlists) and takes no part in equality.
public struct CatalogueError: Error, Hashable, CustomStringConvertible, Sendable {
    private enum Code: Hashable, Sendable {
        case database, io, badFeedLine, badFilter, badPlaylistName, noSuchPlaylist, playlistExists, badPosition
        case malformedURI, climbsOut, accessDenied, unsupportedScheme, noSuchSong, playlistTooLarge, damaged
    }

    private let code: Code
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    public static func == (a: CatalogueError, b: CatalogueError) -> Bool { a.code == b.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The library database cannot be opened or migrated.
    public static let database = CatalogueError(.database, "cannot open the library database")
    /// A file or folder cannot be read, created or written.
    public static let io = CatalogueError(.io, "cannot read or write a file")
    /// A feed line that is not a song: bad JSON, a missing or malformed field.
    public static let badFeedLine = CatalogueError(.badFeedLine, "bad feed line")
    /// A malformed song filter.
    public static let badFilter = CatalogueError(.badFilter, "bad filter")
    public static let badPlaylistName = CatalogueError(.badPlaylistName, "Bad playlist name")
    public static let noSuchPlaylist = CatalogueError(.noSuchPlaylist, "No such playlist")
    public static let playlistExists = CatalogueError(.playlistExists, "Playlist exists already")
    /// A stored playlist would pass its cap (MPD's `max_playlist_length`), in MPD's words.
    public static let playlistTooLarge = CatalogueError(.playlistTooLarge, "Stored playlist is too large")
    /// The library database's file is damaged (SQLite's SQLITE_CORRUPT or SQLITE_NOTADB, a bad header,
    /// a file shorter than its pages): the message says which file and how to repair it.
    public static let damaged = CatalogueError(.damaged, "the library database is damaged")
    /// A position or range outside a playlist.
    public static let badPosition = CatalogueError(.badPosition, "Bad position")

    /// A song URI that is empty or holds a NUL.
    public static let malformedURI = CatalogueError(.malformedURI, "Malformed URI")
    /// A song URI with a `..` or `.` component, which could name a file outside its folder.
    public static let climbsOut = CatalogueError(.climbsOut, "Malformed URI")
    /// An absolute path from a client that may not name files by path.
    public static let accessDenied = CatalogueError(.accessDenied, "Access denied")
    /// A catalogue name (`xzmusic-catalogue/…`) of a file the catalogue holds no song for.
    public static let noSuchSong = CatalogueError(.noSuchSong, "No such song")
    public static let unsupportedScheme = CatalogueError(.unsupportedScheme, "Unsupported URI scheme: only files play on this host")

    public static func database(_ message: String) -> CatalogueError { CatalogueError(.database, message) }
    public static func io(_ message: String) -> CatalogueError { CatalogueError(.io, message) }
    public static func badFeedLine(_ message: String) -> CatalogueError { CatalogueError(.badFeedLine, message) }
    public static func badFilter(_ message: String) -> CatalogueError { CatalogueError(.badFilter, message) }
    public static func playlistExists(_ message: String) -> CatalogueError { CatalogueError(.playlistExists, message) }
    public static func badPosition(_ message: String) -> CatalogueError { CatalogueError(.badPosition, message) }
    public static func damaged(_ message: String) -> CatalogueError { CatalogueError(.damaged, message) }
}
