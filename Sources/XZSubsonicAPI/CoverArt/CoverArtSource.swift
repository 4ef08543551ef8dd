import Foundation
import GRDB
import XZCatalogue
import XZHostCore
import XZSystem

/// Where the picture of a cover art id is looked for, as MPD's `albumart` and `readpicture` look (through
/// `SongCover`): a song's own picture first, else the cover file beside it; an album's, an artist's and a
/// folder's cover file first, else the picture of one of their songs.
struct CoverArtSource: Equatable {
    /// Audio files whose tags or folder may hold the picture, in the order they are tried.
    var songPaths: [String]
    /// A folder's cover file is looked for here before any song (a folder id).
    var folder: String?
    /// The song's tag before its folder's cover file (a song id).
    var embeddedFirst: Bool

    /// How many of an album's or an artist's songs are tried for a picture.
    static let songsTried = 3

    /// The source of `id`, nil for an id that names nothing with a picture (error 70 to the client).
    static func resolve(_ id: SubsonicID, database: LibraryDatabase, musicDirectory: String) throws -> CoverArtSource? {
        let audio = "song.local_path <> ''"
        let paths: [String]
        switch id {
        case .song(let row):
            guard let song = try database.songs(ids: [row]).first, song.isLocal else { return nil }
            return CoverArtSource(songPaths: [song.audioFile], folder: nil, embeddedFirst: true)
        case .album(let row):
            paths = try database.pool.read { db in
                try String.fetchAll(db, sql: """
                    SELECT coalesce(nullif(song.cue_file, ''), song.local_path) FROM song WHERE song.album_id = ? AND \(audio)
                    ORDER BY song.disc, song.track, song.id LIMIT ?
                    """, arguments: [row, songsTried])
            }
        case .unknownAlbum(let singer):
            paths = try database.pool.read { db in
                try String.fetchAll(db, sql: """
                    SELECT coalesce(nullif(song.cue_file, ''), song.local_path) FROM song
                    WHERE song.singer_id = ? AND song.album_id IS NULL AND \(audio)
                    ORDER BY song.disc, song.track, song.id LIMIT ?
                    """, arguments: [singer, songsTried])
            }
        case .artist(let row):
            paths = try database.pool.read { db in
                try String.fetchAll(db, sql: """
                    SELECT coalesce(nullif(song.cue_file, ''), song.local_path) FROM song WHERE song.singer_id = ? AND \(audio)
                    ORDER BY song.album_id IS NULL, song.album_id, song.disc, song.track, song.id LIMIT ?
                    """, arguments: [row, songsTried])
            }
        case .folder(let relative):
            guard let folder = MusicFolderTree.absolute(relative, in: musicDirectory) else { return nil }
            // The folder is one the library holds songs in (a name from outside is only ever compared).
            paths = try database.pool.read { db in
                try String.fetchAll(db, sql: """
                    SELECT coalesce(nullif(song.cue_file, ''), song.local_path) FROM song
                    WHERE song.local_path > ? AND song.local_path < ? ORDER BY song.local_path LIMIT ?
                    """, arguments: [folder + "/", folder + "0", songsTried])
            }
            guard !paths.isEmpty else { return nil }
            return CoverArtSource(songPaths: paths, folder: folder, embeddedFirst: false)
        case .playlist, .radioStation:
            return nil
        }
        return paths.isEmpty ? nil : CoverArtSource(songPaths: paths, folder: nil, embeddedFirst: false)
    }

    /// The picture, read; nil when none of the places holds one.
    func picture() -> SongCover? {
        // SongCover looks for the cover file in the folder of the path it is given.
        if let folder, let cover = SongCover.folderFile(besides: folder + "/-") { return cover }
        for path in songPaths {
            if let cover = SongCover.find(for: path, embeddedFirst: embeddedFirst) { return cover }
        }
        return nil
    }

    /// What the picture depends on, for the cache's key: each song file's and each possible cover file's
    /// size and time, so a changed tag or a new cover.jpg is a new key, and nothing is read to know it.
    func identity() -> String {
        var folders: [String] = []
        if let folder { folders.append(folder) }
        for path in songPaths {
            let folder = (path as NSString).deletingLastPathComponent
            if !folders.contains(folder) { folders.append(folder) }
        }
        var parts = [embeddedFirst ? "song-first" : "folder-first"]
        for path in songPaths + folders.flatMap({ folder in SongCover.fileNames.map { folder + "/" + $0 } }) {
            guard let status = FileStatus(path: path, followingLinks: true) else { continue }
            parts.append("\(path)\u{1F}\(status.size)\u{1F}\(status.modified.timeIntervalSince1970)")
        }
        return parts.joined(separator: "\u{1E}")
    }
}
