import Foundation
import XZCatalogue

/// Folder browsing (`getIndexes`, `getMusicDirectory`): the music folder's folders as the library's songs
/// make them. A folder is named by its path relative to the music folder ("" is the music folder); it is
/// only ever a bound in a read of the catalogue, never opened on disk, and a name that is not a plain
/// relative path, or not a folder the library holds songs under, is no folder.
struct MusicFolderTree {
    /// The one music folder's id (`getMusicFolders`).
    static let musicFolderID = 1

    let library: SubsonicLibrary

    /// What a folder holds: its subfolders' names (in MPD's order) and the ids of its songs in file order, a
    /// CUE sheet's tracks where the sheet is.
    struct Listing {
        var folders: [String] = []
        var songIDs: [Int64] = []
    }

    var musicDirectory: String { library.host.naming.musicDirectory }

    /// The music folder's name, as `getMusicFolders` and its top directory show it.
    var musicFolderName: String {
        let name = (musicDirectory as NSString).lastPathComponent
        return name.isEmpty || name == "/" ? "Music" : name
    }

    /// Whether `path` is a relative path of plain names: no empty, "." or ".." component, not absolute.
    static func isPlainRelative(_ path: String) -> Bool {
        if path.isEmpty { return true }
        return !path.hasPrefix("/") && path.split(separator: "/", omittingEmptySubsequences: false)
            .allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// The absolute folder `path` names inside `musicDirectory` (no trailing "/"); nil for a path that is not
    /// plain relative, which could name a folder outside it.
    static func absolute(_ path: String, in musicDirectory: String) -> String? {
        guard isPlainRelative(path) else { return nil }
        let music = musicDirectory.hasSuffix("/") ? String(musicDirectory.dropLast()) : musicDirectory
        return path.isEmpty ? music : music + "/" + path
    }

    /// The folder's listing, or nil when it is no folder the library holds songs under.
    func listing(of path: String) throws -> Listing? {
        guard let folder = Self.absolute(path, in: musicDirectory) else { return nil }
        var listing = Listing()
        var seen = Set<String>()
        for song in try library.database.browsablePaths(under: folder) {
            guard let relative = SongNaming.relative(song.localPath, insideFolder: folder + "/") else { continue }
            var components = relative.split(separator: "/", omittingEmptySubsequences: false)
            // "sheet.cue/track0001": the sheet stands in its folder like a file.
            if song.isCueTrack, components.count > 1 { components.removeLast() }
            if components.count == 1 {
                listing.songIDs.append(song.id)
            } else if let name = components.first.map(String.init), !name.isEmpty, seen.insert(name).inserted {
                listing.folders.append(name)
            }
        }
        guard path.isEmpty || !listing.folders.isEmpty || !listing.songIDs.isEmpty else { return nil }
        // In the order MPD clients see them in.
        listing.folders = SongSelection.folderNamesInOrder(listing.folders)
        return listing
    }

    /// The id of the folder holding `path` (nil for the music folder itself).
    static func parentID(of path: String) -> String? {
        guard !path.isEmpty else { return nil }
        let components = path.split(separator: "/")
        return SubsonicID.folder(components.dropLast().joined(separator: "/")).text
    }

    /// A folder's last name.
    static func name(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    static func join(_ path: String, _ name: String) -> String {
        path.isEmpty ? name : path + "/" + name
    }
}
