import Foundation
import GRDB

/// Playlist files beside the music (`Sub/list.m3u`, `.pls`, `.xspf`), as MPD has them: the folder scan
/// records them, `lsinfo` and `listall` list them as `playlist:` entries, and they load by their path.
package enum FolderPlaylists {
    /// Whether the scan records a file of this name and `lsinfo` lists it as `playlist:`.
    package static func isPlaylistFileName(_ name: String) -> Bool {
        PlaylistFormat(fileName: name) != nil
    }

    /// A line of a playlist in the music folder's `folderURI` ("" for the top) as MPD reads it: a URL
    /// stays as it is; a file:// URL is its path; an absolute path inside the music folder becomes its
    /// name there, one outside stays absolute; a relative path is read against the playlist's folder,
    /// with `..` stopping at the top of the music folder.
    package static func resolve(_ location: String, folderURI: String, musicDirectory: String) -> String {
        var text = location
        if text.hasPrefix("file://") {
            text = String(text.dropFirst(7)).removingPercentEncoding ?? String(text.dropFirst(7))
        } else if text.contains("://") {
            return location
        }
        if text.hasPrefix("/") {
            let root = musicDirectory.hasSuffix("/") ? musicDirectory : musicDirectory + "/"
            let path = URL(fileURLWithPath: text).standardizedFileURL.path
            return SongNaming.relative(path, insideFolder: root).map(String.init) ?? path
        }
        var parts = folderURI.split(separator: "/").map(String.init)
        for part in text.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(String(part))
            }
        }
        return parts.joined(separator: "/")
    }

    /// The first `maxEntries` entries of the playlist file at `path`, which is `uri` in the music folder,
    /// resolved as MPD resolves them; nil when it is no playlist file (by suffix) or cannot be read.
    package static func read(path: String, uri: String, musicDirectory: String, maxEntries: Int) -> [PlaylistEntry]? {
        guard let format = PlaylistFormat(fileName: uri),
              let entries = StoredPlaylists.readCapped(atPath: path, maxEntries: maxEntries, format: format) else {
            return nil
        }
        let folder = uri.lastIndex(of: "/").map { String(uri[..<$0]) } ?? ""
        return entries.map { entry in
            var resolved = entry
            resolved.location = resolve(entry.location, folderURI: folder, musicDirectory: musicDirectory)
            return resolved
        }
    }
}

/// What the scan found of playlist files, and what listings ask of it.
extension LibraryDatabase {
    /// A playlist file in the music folder as the last scan saw it.
    package struct FolderPlaylistFile: Sendable, Hashable {
        package var path: String
        package var mtime: Int64
        package init(path: String, mtime: Int64) {
            self.path = path
            self.mtime = mtime
        }
    }

    /// The recorded playlist files whose paths start with `prefix` (a folder ending in "/"), by path.
    package func folderPlaylists(under prefix: String) throws -> [FolderPlaylistFile] {
        try pool.read { db in
            // The paths from "folder/" up to (not with) "folder0": one range of the primary key.
            try Row.fetchAll(db, sql: "SELECT path, mtime FROM folder_playlist WHERE path >= ? AND path < ? ORDER BY path",
                             arguments: Self.range(under: prefix))
                .map { FolderPlaylistFile(path: $0["path"], mtime: $0["mtime"]) }
        }
    }

    private static func range(under prefix: String) -> StatementArguments {
        let folder = prefix.hasSuffix("/") ? prefix : prefix + "/"
        return [folder, String(folder.dropLast()) + "0"]
    }

    /// Makes the recorded playlist files under `prefix` be `files`; true when that changed anything.
    @discardableResult
    package func replaceFolderPlaylists(under prefix: String, with files: [FolderPlaylistFile]) throws -> Bool {
        // Compared as sets: the database orders paths by bytes, Swift strings by characters.
        if Set(try folderPlaylists(under: prefix)) == Set(files) { return false }
        try pool.write { db in
            try db.execute(sql: "DELETE FROM folder_playlist WHERE path >= ? AND path < ?", arguments: Self.range(under: prefix))
            for file in files {
                try db.execute(sql: "INSERT OR REPLACE INTO folder_playlist (path, mtime) VALUES (?, ?)",
                               arguments: [file.path, file.mtime])
            }
        }
        return true
    }
}
