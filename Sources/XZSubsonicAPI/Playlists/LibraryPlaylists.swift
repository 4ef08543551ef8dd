import Foundation
import XZAccounts
import XZCatalogue
import XZHostCore
import XZPlaybackValues
import XZStats

/// The library's stored playlists, the files MPD clients load and save, as Subsonic users see them:
/// each with an owner and a public flag (`PlaylistOwnership`), its songs the library songs its lines
/// name (a line naming no song of the library is no song of the list, and is kept as it is on a change).
struct LibraryPlaylists {
    /// The longest comment kept.
    static let maxComment = 1_000

    let call: SubsonicCall
    let user: LibraryUser

    init(_ call: SubsonicCall) throws {
        self.call = call
        user = try call.signedInUser()
    }

    var library: SubsonicLibrary { call.library }

    var host: PlayerHost { library.host }
    var database: LibraryDatabase { library.database }
    /// The host's: held to the queue's cap (`max_playlist_length`), owner rows changed in the host's database.
    var files: StoredPlaylists { host.playlists }

    /// One playlist's file read: its lines, and the library song of each that names one.
    struct Read {
        var name: String
        var ownership: PlaylistOwnership
        var modified: Date
        var entries: [PlaylistEntry]
        /// One per entry; nil for a line that names no song of the library.
        var songs: [Song?]
        var listed: [Song] { songs.compactMap { $0 } }
    }

    // MARK: Reads

    /// The playlists `owner` sees: theirs and the public ones, by name (the radio stations' list, which
    /// is the stations', left out).
    func visible(to owner: LibraryUser) throws -> [Read] {
        try database.forgetPlaylistOwnerships(without: files)
        let ownerships = try database.playlistOwnerships()
        return try files.list().compactMap { name, modified in
            guard name != RadioStations.playlistName else { return nil }
            let ownership = ownerships[name] ?? .libraryOwners
            guard ownership.userId == owner.id.rawValue || ownership.isPublic else { return nil }
            // A file removed since the listing is no playlist.
            return try? read(name, ownership: ownership, modified: modified)
        }
    }

    /// A playlist the caller may see; one they may not is as one that is not there (70).
    func visible(_ name: String) throws -> Read {
        guard name != RadioStations.playlistName, (try? StoredPlaylists.validate(name)) != nil else { throw SubsonicError.notFound }
        let ownership = try database.playlistOwnership(name)
        guard ownership.userId == user.id.rawValue || ownership.isPublic || user.isAdmin else { throw SubsonicError.notFound }
        guard let status = try? FileManager.default.attributesOfItem(atPath: files.path(of: name)),
              let modified = status[.modificationDate] as? Date else { throw SubsonicError.notFound }
        return try read(name, ownership: ownership, modified: modified)
    }

    private func read(_ name: String, ownership: PlaylistOwnership, modified: Date) throws -> Read {
        let entries = try playlistCall { try files.read(name) }
        return Read(name: name, ownership: ownership, modified: modified, entries: entries, songs: try songs(of: entries))
    }

    /// The library song each line names: a file of the library, or a song by its audio URL.
    func songs(of entries: [PlaylistEntry]) throws -> [Song?] {
        let music = host.naming.musicDirectory
        let paths = entries.map { QueueItem.isStreamURL($0.location) ? nil : StoredPlaylists.path(forLocation: $0.location, base: music) }
        let byPath = try database.songs(localPaths: paths.compactMap { $0 })
        return try zip(entries, paths).map { entry, path in
            if let path { return byPath[path] }
            return try database.song(audioURL: entry.location)
        }
    }

    /// The line a song is kept as: its file as MPD writes it (or its audio URL), titled "Singer - Title".
    func entry(_ song: Song) -> PlaylistEntry {
        let location = song.isLocal
            ? StoredPlaylists.location(forPath: song.localPath, musicDirectory: host.naming.musicDirectory) : song.audioURL
        return PlaylistEntry(location: location, title: song.singer.isEmpty ? song.title : "\(song.singer) - \(song.title)",
                             durationMs: song.durationMs)
    }

    // MARK: Answers

    func summary(_ read: Read, owners: [Int64: String]) -> SubsonicPlaylist {
        let songs = read.listed
        // Lengths come from files' tags: their sum saturates rather than overflows.
        let seconds = songs.reduce(0) { total, song in
            let (sum, overflow) = total.addingReportingOverflow(max(0, song.durationMs ?? 0))
            return overflow ? Int.max : sum
        } / 1000
        let mayChange = read.ownership.userId == user.id.rawValue || user.isAdmin
        return SubsonicPlaylist(
            id: SubsonicID.playlist(read.name).text, name: read.name,
            comment: read.ownership.comment.isEmpty ? nil : read.ownership.comment,
            owner: owners[read.ownership.userId], public: read.ownership.isPublic, songCount: songs.count,
            duration: seconds, created: SubsonicDate(read.modified), changed: SubsonicDate(read.modified),
            coverArt: songs.first.map { SubsonicID.song($0.id).text }, readonly: !mayChange)
    }

    func withSongs(_ read: Read) throws -> SubsonicPlaylistWithSongs {
        let songs = read.listed
        return SubsonicPlaylistWithSongs(playlist: summary(read, owners: try ownerNames()),
                                         entry: songs.isEmpty ? nil : try ListenerAnnotations(call).children(of: songs))
    }

    /// Users' names by id; the library's owner is named even before any user is added.
    func ownerNames() throws -> [Int64: String] {
        var names = Dictionary(try library.accounts.list().map { ($0.id.rawValue, $0.name) }) { first, _ in first }
        if names[UserID.owner.rawValue] == nil { names[UserID.owner.rawValue] = "xzmusic" }
        return names
    }

    // MARK: Changes

    /// Only its owner or an admin changes a playlist (50 otherwise).
    func checkMayChange(_ read: Read) throws {
        guard read.ownership.userId == user.id.rawValue || user.isAdmin else {
            throw SubsonicError.notAuthorized("only its owner or an admin changes a playlist")
        }
    }

    /// A name for a new or renamed playlist: a stored playlist's name, not the radio stations' list.
    func checkedName(_ name: String) throws -> String {
        guard name != RadioStations.playlistName else {
            throw SubsonicError.generic("'\(RadioStations.playlistName)' is the radio stations' playlist")
        }
        return try playlistCall { try StoredPlaylists.validate(name) }
    }

    /// Runs playlist file work, its refusals as the spec's errors.
    func playlistCall<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CatalogueError {
            switch error.kind {
            case .noSuchPlaylist: throw SubsonicError.notFound("no such playlist")
            case .badPlaylistName: throw SubsonicError.generic("a playlist's name is a file name: not empty, no '/', no leading '.', no control characters")
            case .playlistExists: throw SubsonicError.generic("a playlist of that name exists")
            case .playlistTooLarge: throw SubsonicError.generic("a playlist holds at most \(files.maxLength) songs")
            case .badPosition: throw SubsonicError.generic(error.message)
            default: throw SubsonicError.generic(error.message)
            }
        }
    }
}

