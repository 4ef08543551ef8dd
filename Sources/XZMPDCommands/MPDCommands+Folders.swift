import Foundation
import XZAudio
import XZCatalogue
import XZHostCore
import XZPlaybackValues
import XZProtocol
import XZSystem

/// The folder listings of MPD's database commands: lsinfo, listall, listallinfo and listfiles, with the
/// playlist files and CUE sheets a folder holds where MPD lists them.
extension MPDCommands {

    /// A database folder URI without slashes around it; "" is the root.
    static func folderURI(_ argument: String?) throws(MPDError) -> String {
        var uri = argument ?? ""
        while uri.hasPrefix("/") { uri.removeFirst() }
        while uri.hasSuffix("/") { uri.removeLast() }
        guard FilterParser.isSafeLocalURI(uri) else { throw MPDError.noExist("No such directory") }
        return uri
    }

    /// listall / listallinfo: the folder and everything below it, in MPD's walk order.
    static func listTree(_ call: inout Invocation, full: Bool) throws(MPDError) {
        let folder = try folderURI(call.arguments.first)
        let filters: [SongFilter] = folder.isEmpty ? [] : [.base(folder)]
        // Files only, as lsinfo: a song that is not offline has no file and no folder to be listed in.
        let naming = call.host.naming.offlineOnly
        let found: [Song]
        do {
            found = try call.host.database.songs(SongSelection(filters: filters), naming: naming)
        } catch {
            throw MPDError(failure: error)
        }
        let prefix = folder.isEmpty ? "" : folder + "/"
        let named = found.map { (naming.uri(of: $0), $0) }.filter { $0.0.hasPrefix(prefix) || $0.0 == folder }
        var playlists = FolderPlaylistWalk(folderPlaylists(call, under: folder), top: folder, songURIs: named.map(\.0), full: full)
        if named.isEmpty, !folder.isEmpty, !playlists.hasPlaylists {
            throw MPDError.noExist("No such directory")
        }
        if named.count == 1, named[0].0 == folder {
            // A song's own URI: that song.
            call.response.addCatalogueSong(named[0].1, uri: named[0].0, tags: call.session.tagTypes)
            return
        }
        var listedFolders = Set<String>()
        var sheetFolders = sheetFoldersByParent(named.map(\.0))
        if !folder.isEmpty {
            // A recursive listing names its own folder first, as MPD's walk visits it.
            addDirectory(folder, full: full, &call)
        }
        for (index, (songURI, song)) in named.enumerated() {
            try call.checkDeadline(index)
            if call.response.isFull { return }
            let inside = songURI.dropFirst(prefix.count).split(separator: "/").map(String.init)
            // Folders on the way to the song, each listed once, as MPD's walk meets them.
            let folders = inside.dropLast()
            playlists.move(to: folders.isEmpty ? folder : prefix + folders.joined(separator: "/"), &call)
            for depth in folders.indices {
                let path = prefix + folders[...depth].joined(separator: "/")
                guard listedFolders.insert(path).inserted else { continue }
                playlists.enter(path, &call)
                // A folder's sheets come before its first subfolder.
                let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
                if let sheets = sheetFolders.removeValue(forKey: parent) { addSheetPlaylists(&call, folders: sheets, full: full) }
                addDirectory(path, full: full, &call)
            }
            if full {
                call.response.addCatalogueSong(song, uri: songURI, tags: call.session.tagTypes)
            } else {
                call.response.add("file", songURI)
                if song.hasCueSheet { call.response.add("playlist", songURI) }
            }
        }
        playlists.end(&call)
    }

    /// lsinfo: the folder's songs, then its subfolders, reading whole songs only for the songs listed.
    static func listOneFolder(_ call: inout Invocation) throws(MPDError) {
        let folder = try folderURI(call.arguments.first)
        let filters: [SongFilter] = folder.isEmpty ? [] : [.base(folder)]
        let database = call.host.database, naming = call.host.naming.offlineOnly
        let named: [(id: Int64, uri: String)]
        do {
            named = try database.songURIs(filters, naming: naming, deadline: call.deadline)
        } catch {
            throw MPDError(failure: error)
        }
        let prefix = folder.isEmpty ? "" : folder + "/"
        var songIds: [Int64] = []
        var subfolders = Set<String>()
        var isSong = false
        for (id, songURI) in named {
            if songURI == folder {
                // A song's own URI: that song.
                songIds = [id]
                subfolders = []
                isSong = true
                break
            }
            guard songURI.hasPrefix(prefix) else { continue }
            let inside = songURI.dropFirst(prefix.count)
            if let slash = inside.firstIndex(of: "/") {
                subfolders.insert(prefix + inside[..<slash])
            } else {
                songIds.append(id)
            }
        }
        // Playlist files are listed after the songs, and make a folder that holds nothing else a folder.
        var playlists: [(uri: String, modified: Date)] = []
        for file in isSong ? [] : folderPlaylists(call, under: folder) {
            let inside = file.uri.dropFirst(prefix.count)
            if let slash = inside.firstIndex(of: "/") {
                subfolders.insert(prefix + inside[..<slash])
            } else {
                playlists.append(file)
            }
        }
        guard !songIds.isEmpty || !subfolders.isEmpty || !playlists.isEmpty || folder.isEmpty else {
            throw MPDError.noExist("No such directory")
        }
        let songs: [Song]
        do {
            songs = try database.songs(ids: songIds, naming: naming, deadline: call.deadline)
        } catch {
            throw MPDError(failure: error)
        }
        for song in songs {
            call.response.addCatalogueSong(song, uri: uri(call, song), tags: call.session.tagTypes)
        }
        for (playlist, modified) in playlists {
            call.response.add("playlist", playlist)
            call.response.add("Last-Modified", timestamp: modified)
        }
        let ordered = SongSelection.folderNamesInOrder(Array(subfolders))
        addSheetPlaylists(&call, folders: ordered, full: true)
        for path in ordered {
            call.response.add("directory", path)
            if let date = modificationDate(call, uri: path) {
                call.response.add("Last-Modified", timestamp: date)
            }
        }
        // The root also lists the stored playlists, as MPD does (mpc lsplaylists reads them here).
        if folder.isEmpty {
            for (name, modified) in try playlistCall({ try call.host.playlists.list() }) {
                call.response.add("playlist", name)
                call.response.add("Last-Modified", timestamp: modified)
            }
        }
    }

    /// The playlist files the last scan found in the music folder's `folder` ("" the top) and below, by
    /// URI in path order. Unreadable, there are none to list.
    static func folderPlaylists(_ call: Invocation, under folder: String) -> [(uri: String, modified: Date)] {
        let root = call.host.naming.musicDirectory
        let prefix = (root.hasSuffix("/") ? root : root + "/") + (folder.isEmpty ? "" : folder + "/")
        let files = (try? call.host.database.folderPlaylists(under: prefix)) ?? []
        return files.map { (call.host.naming.uri(ofPath: $0.path), Date(timeIntervalSince1970: TimeInterval($0.mtime))) }
    }

    static func modificationDate(_ call: Invocation, uri: String) -> Date? {
        // A name that cannot be followed, or a file that cannot be asked, has no time to give; a catalogue
        // folder is no song, so it is not asked.
        guard !uri.hasPrefix(SongNaming.cataloguePrefix), let location = try? call.location(uri) else { return nil }
        return FileStatus(path: location.path)?.modified
    }

    /// The files in a folder of the music directory, as they are on disk (MPD's storage listing); a local
    /// client may name any folder by a `file://` URL, as MPD lets it.
    static func listFiles(_ call: inout Invocation) throws(MPDError) {
        let text = call.arguments.first ?? ""
        // An absolute name is refused to a network client, as MPD refuses it; a relative one is a folder.
        let location = try call.location(text.hasPrefix("file://") || text.hasPrefix("/") ? text : try folderURI(text))
        // Catalogue names are songs, library names the library's own: neither is a folder to list.
        guard location.kind == .musicFolder || location.kind == .absolute else {
            throw MPDError.noExist("No such directory")
        }
        let path = location.path
        // An unreadable folder is no folder to the client, as MPD answers.
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            throw MPDError.noExist("No such directory")
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let full = path + "/" + name
            // An entry that vanished or cannot be asked is left out of the listing.
            guard let status = FileStatus(path: full) else { continue }
            if status.kind == .folder {
                call.response.add("directory", name)
            } else if status.kind == .regular {
                call.response.add("file", name)
                call.response.add("size", Int(status.size))
            } else {
                continue
            }
            call.response.add("Last-Modified", timestamp: status.modified)
        }
    }
}
