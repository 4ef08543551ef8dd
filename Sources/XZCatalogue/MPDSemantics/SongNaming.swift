import Foundation
import GRDB

/// How songs are named by URI, the one rule for protocol clients, filters and ordering (`uriSQL` is the
/// same rule in SQL): a file under one of `roots` by its path inside it after the root's prefix,
/// anything else by `otherPrefix` and its absolute path.
package struct SongNaming: Sendable {
    package static let libraryPrefix = "xzmusic/"
    package static let cataloguePrefix = "xzmusic-catalogue/"

    package struct Root: Sendable, Equatable {
        package var folder: String
        package var uriPrefix: String
        package init(folder: String, uriPrefix: String) {
            self.folder = folder.hasSuffix("/") ? folder : folder + "/"
            self.uriPrefix = uriPrefix
        }
    }

    package var roots: [Root]
    package var otherPrefix: String
    /// The music folder (no trailing "/"), which names without a prefix are relative to.
    package private(set) var musicDirectory = "/"
    /// The library folder, which `xzmusic/` names are relative to.
    package private(set) var libraryDirectory = "/"
    /// Only songs with a local file (what a player can add).
    package var localOnly: Bool
    /// With `localOnly`: catalogue songs that are not offline are listed too, named by their audio URL
    /// (a host that plays them as they download). Folder listings never hold them.
    package var onlineByURL = false

    package init(roots: [Root], otherPrefix: String, localOnly: Bool) {
        self.roots = roots
        self.otherPrefix = otherPrefix
        self.localOnly = localOnly
    }

    /// Absolute paths as they are: the catalogue's own command line.
    package static let paths = SongNaming(roots: [], otherPrefix: "/", localOnly: false)

    /// How a host names songs to protocol clients, as MPD names them: a file in the music folder by its
    /// path relative to it; a file in the library folder (demo songs, downloads) under the fixed folder
    /// `xzmusic/`; a catalogue song anywhere else under `xzmusic-catalogue/` and its absolute path (so a
    /// network client can add every song the library holds); any other file by its absolute path, which
    /// only local clients may use. Only songs with a local file are listed, and with `onlineByURL` the
    /// catalogue songs that are not offline, by their audio URL.
    package init(musicDirectory: URL, library: LibraryFolder, onlineByURL: Bool = false) {
        let music = musicDirectory.standardizedFileURL.path
        self.init(roots: [Root(folder: library.url.path, uriPrefix: Self.libraryPrefix), Root(folder: music, uriPrefix: "")],
                  otherPrefix: Self.cataloguePrefix, localOnly: true)
        self.onlineByURL = onlineByURL
        self.musicDirectory = music
        libraryDirectory = library.url.path
    }

    /// The same names without the songs that are not offline: what folder listings hold.
    package var offlineOnly: SongNaming {
        var naming = self
        naming.onlineByURL = false
        return naming
    }

    /// The music folder: config `music_directory`, else `$XDG_MUSIC_DIR`, else `~/Music`.
    package static func defaultMusicDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let dir = environment["XDG_MUSIC_DIR"], dir.hasPrefix("/") { return URL(fileURLWithPath: dir) }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent("Music")
    }

    /// The name of any file or stream: a stream URL as it is; `inCatalogue`, the file is a catalogue
    /// song's (it then has a name any client may use), else outside the roots it is named by its path.
    package func uri(ofFile path: String, inCatalogue: Bool) -> String {
        if path.hasPrefix("http://") || path.hasPrefix("https://") { return path }
        return inCatalogue || roots.contains(where: { Self.relative(path, insideFolder: $0.folder) != nil }) ? uri(ofPath: path) : path
    }

    /// The name of a catalogue song: its file's, else its audio URL (`onlineByURL`), else its key's.
    package func uri(of song: Song) -> String {
        if !song.isLocal, onlineByURL, !song.audioURL.isEmpty { return song.audioURL }
        return uri(ofPath: song.isLocal ? song.localPath : song.songKey)
    }

    /// SQL keeping the songs this naming lists; nil when it lists every song.
    var listedCondition: String? {
        guard localOnly else { return nil }
        return onlineByURL ? "(song.local_path <> '' OR song.audio_url <> '')" : "song.local_path <> ''"
    }

    package func uri(ofPath path: String) -> String {
        for root in roots {
            if let relative = Self.relative(path, insideFolder: root.folder) { return root.uriPrefix + relative }
        }
        return otherPrefix + path.drop { $0 == "/" }
    }

    /// What follows `folder` (which ends in "/") in `path`, compared byte by byte as the file system
    /// compares names; nil when the path is not inside it.
    package static func relative(_ path: String, insideFolder folder: String) -> Substring? {
        let (bytes, prefix) = (path.utf8, folder.utf8)
        guard bytes.count > prefix.count else { return nil }
        let compared: Bool?? = bytes.withContiguousStorageIfAvailable { whole in
            prefix.withContiguousStorageIfAvailable { start in
                start.isEmpty || memcmp(whole.baseAddress!, start.baseAddress!, start.count) == 0
            }
        }
        let inside = (compared ?? nil) ?? bytes.starts(with: prefix)
        return inside ? path[bytes.index(bytes.startIndex, offsetBy: prefix.count)...] : nil
    }

    /// The same as SQL over the song's file (its key when it has none), every text bound.
    func uriSQL(_ arguments: inout [DatabaseValueConvertible?]) -> String {
        let path = "(CASE WHEN song.local_path <> '' THEN song.local_path ELSE song.song_key END)"
        var sql = "CASE"
        for root in roots {
            sql += " WHEN substr(\(path), 1, ?) = ? AND length(\(path)) > ? THEN ? || substr(\(path), ?)"
            let length = root.folder.unicodeScalars.count
            arguments += [length, root.folder, length, root.uriPrefix, length + 1]
        }
        arguments.append(otherPrefix)
        let other = "? || ltrim(\(path), '/')"
        let named = roots.isEmpty ? other : sql + " ELSE \(other) END"
        guard onlineByURL else { return named }
        return "CASE WHEN song.local_path = '' AND song.audio_url <> '' THEN song.audio_url ELSE \(named) END"
    }
}
