import Foundation
import XZCatalogue

extension MPDCommands {
    /// The playlist files of a recursive listing (listall, listallinfo) where MPD's walk puts them: after
    /// a folder's songs and before its subfolders; a folder that holds playlist files but no songs among
    /// its siblings, in their order. The listing tells it each folder it enters and each song's folder.
    struct FolderPlaylistWalk {
        private var playlists: [String: [(uri: String, modified: Date)]]
        /// Folders with playlist files and no songs, by the folder they are in, in listing order.
        private var playlistOnly: [String: [String]] = [:]
        /// The folders entered and not yet left, the listed one first.
        private var open: [String]
        private let full: Bool

        /// `files` are the playlist files under `top`, `songURIs` the songs listed under it.
        init(_ files: [(uri: String, modified: Date)], top: String, songURIs: [String], full: Bool) {
            self.full = full
            open = [top]
            playlists = Dictionary(grouping: files) { Self.parent(of: $0.uri) }
            var songFolders: Set<String> = [top]
            for uri in songURIs {
                var folder = Self.parent(of: uri)
                while folder != top, songFolders.insert(folder).inserted { folder = Self.parent(of: folder) }
            }
            var seen = Set<String>()
            for folder in playlists.keys {
                var path = folder
                while path != top, !songFolders.contains(path), seen.insert(path).inserted {
                    playlistOnly[Self.parent(of: path), default: []].append(path)
                    path = Self.parent(of: path)
                }
            }
            playlistOnly = playlistOnly.mapValues(SongSelection.folderNamesInOrder)
        }

        /// True when the listed folder holds playlist files (it is then a folder even without songs).
        var hasPlaylists: Bool { !playlists.isEmpty }

        static func parent(of uri: String) -> String {
            uri.lastIndex(of: "/").map { String(uri[..<$0]) } ?? ""
        }

        /// Before a song in `folder`, or a subfolder of it: the folders left on the way are finished.
        mutating func move(to folder: String, _ call: inout Invocation) {
            while let last = open.last, last != folder, !folder.hasPrefix(last.isEmpty ? "" : last + "/") {
                finish(open.removeLast(), &call)
            }
        }

        /// Before the listing names `directory` (in the folder entered last): that folder's playlist
        /// files and the playlist-only folders ordered before it.
        mutating func enter(_ directory: String, _ call: inout Invocation) {
            let parent = open.last ?? ""
            listPlaylists(of: parent, &call)
            var before = playlistOnly[parent] ?? []
            while let first = before.first, SongSelection.folderNamesInOrder([first, directory]).first == first {
                before.removeFirst()
                listPlaylistOnly(first, &call)
            }
            playlistOnly[parent] = before
            open.append(directory)
        }

        /// At the end of the listing: every folder still entered is finished.
        mutating func end(_ call: inout Invocation) {
            while let last = open.popLast() { finish(last, &call) }
        }

        private mutating func finish(_ folder: String, _ call: inout Invocation) {
            listPlaylists(of: folder, &call)
            for child in playlistOnly.removeValue(forKey: folder) ?? [] { listPlaylistOnly(child, &call) }
        }

        private mutating func listPlaylistOnly(_ folder: String, _ call: inout Invocation) {
            addDirectory(folder, full: full, &call)
            finish(folder, &call)
        }

        private mutating func listPlaylists(of folder: String, _ call: inout Invocation) {
            for (uri, modified) in playlists.removeValue(forKey: folder) ?? [] {
                call.response.add("playlist", uri)
                if full { call.response.add("Last-Modified", timestamp: modified) }
            }
        }
    }

    /// A `directory:` line of a listing, with its time when `full`.
    static func addDirectory(_ path: String, full: Bool, _ call: inout Invocation) {
        call.response.add("directory", path)
        if full, let date = modificationDate(call, uri: path) {
            call.response.add("Last-Modified", timestamp: date)
        }
    }
}
