import Foundation

/// A file or folder a client named, confined: inside the music folder, a file the library owns, a song
/// the catalogue holds, or (for local clients only) an absolute path. The only way to get one is
/// `SongNaming.locate`, so no command can touch a path it did not check.
package struct SongLocation: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// In the music folder (its root included), symbolic links followed as MPD follows them.
        case musicFolder
        /// Under the library folder (`xzmusic/…`), its real path inside it.
        case library
        /// A `xzmusic-catalogue/` name of a song the catalogue holds.
        case catalogueSong
        /// An absolute path or `file://` URL, from a local client.
        case absolute
    }

    package let kind: Kind
    /// The absolute path, without `.` or `..` components.
    package let path: String

    fileprivate init(_ kind: Kind, _ path: String) {
        self.kind = kind
        self.path = path
    }
}

extension SongNaming {
    /// The location a client's name stands for, or why it stands for none. `""` is the music folder;
    /// absolute paths and `file://` URLs only when `allowAbsolute` (local clients); a `xzmusic-catalogue/`
    /// name only when `catalogue` holds a song with that file; a `xzmusic/` name only when its real path
    /// stays in the library folder. No name climbs out with `..`.
    package func locate(_ uri: String, allowAbsolute: Bool, catalogue: LibraryDatabase) throws(CatalogueError) -> SongLocation {
        guard !uri.utf8.contains(0) else { throw .malformedURI }
        if uri.isEmpty { return SongLocation(.musicFolder, musicDirectory) }
        var text = Substring(uri)
        if text.hasPrefix("file://") {
            text = text.dropFirst(7)
            guard text.hasPrefix("/") else { throw .malformedURI }
        }
        if text.hasPrefix("/") {
            guard allowAbsolute else { throw .accessDenied }
            return SongLocation(.absolute, URL(fileURLWithPath: String(text)).standardizedFileURL.path)
        }
        if text.contains("://") { throw .unsupportedScheme }
        let components = text.split(separator: "/", omittingEmptySubsequences: true)
        guard !components.contains(where: { $0 == ".." || $0 == "." }) else { throw .climbsOut }
        if text.hasPrefix(Self.cataloguePrefix) || text == Self.cataloguePrefix.dropLast() {
            let path = "/" + components.dropFirst().joined(separator: "/")
            // A catalogue name is a song's name, never a way to any folder: a read failure confirms nothing.
            guard components.count > 1, (try? catalogue.song(localPath: path)) != nil else { throw .noSuchSong }
            return SongLocation(.catalogueSong, path)
        }
        if text.hasPrefix(Self.libraryPrefix) || text == Self.libraryPrefix.dropLast() {
            let path = ([Substring(libraryDirectory)] + components.dropFirst()).joined(separator: "/")
            guard Self.staysInside(path, folder: libraryDirectory) else { throw .climbsOut }
            return SongLocation(.library, path)
        }
        return SongLocation(.musicFolder, ([Substring(musicDirectory == "/" ? "" : musicDirectory)] + components).joined(separator: "/"))
    }

    /// Whether `path`'s real path (links resolved) is `folder`'s or below it; a path that is not there
    /// (nothing to open) stays where it is named.
    private static func staysInside(_ path: String, folder: String) -> Bool {
        guard let real = realPath(path) else { return true }
        guard let root = realPath(folder) else { return false }
        return real == root || relative(real, insideFolder: root == "/" ? root : root + "/") != nil
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
