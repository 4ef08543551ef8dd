import Foundation
import XZCatalogue
import XZHostCore
import XZPlaybackValues
import XZProtocol

/// Stored playlists: `NAME.m3u` files in the library's `playlists/` folder, with MPD 0.23's commands and
/// answers (and 0.24's `save` modes). Entries whose file vanished stay in the list and are skipped by `load`.
extension MPDCommands {
    static let storedPlaylistCommands: [MPDCommand] = [
        MPDCommand("listplaylists", 0...0, .readOnly, .blocking) { call throws(MPDError) in
            for (name, modified) in try playlistCall({ try call.host.playlists.list() }) {
                call.response.add("playlist", name)
                call.response.add("Last-Modified", timestamp: modified)
            }
        },
        MPDCommand("listplaylist", 1...1, .readOnly, .blocking) { call throws(MPDError) in
            if let sheet = sheetPlaylist(call.arguments[0], call) {
                for (item, _) in sheet { call.response.add("file", call.host.uri(of: item)) }
                return
            }
            for entry in try readPlaylist(call.arguments[0], call).entries {
                call.response.add("file", call.host.playlistURI(entry))
            }
        },
        MPDCommand("listplaylistinfo", 1...1, .readOnly, .blocking) { call throws(MPDError) in
            if let sheet = sheetPlaylist(call.arguments[0], call) {
                for (item, song) in sheet {
                    call.response.addSong(item, uri: call.host.uri(of: item), tags: call.session.tagTypes, durationMs: nil, catalogue: song)
                }
                return
            }
            let (entries, checked) = try readPlaylist(call.arguments[0], call)
            let paths = entries.map(call.host.playlistPath)
            // The catalogue's songs in one read; unreadable, the entries are listed from their files.
            let songs = (try? call.host.database.songs(localPaths: paths.compactMap { $0 })) ?? [:]
            for (index, (entry, path)) in zip(entries, paths).enumerated() {
                try call.checkDeadline(index)
                if call.response.isFull { return }
                // A catalogue song's record is the one every listing sends (find, lsinfo, playlistinfo).
                // What a list in the music folder or by URL says of a song comes first, as MPD lists it.
                if let path, let song = songs[path] {
                    call.response.addCatalogueSong(song, uri: call.host.naming.uri(of: song), tags: call.session.tagTypes,
                                                   listed: checked ? entry.tags : nil, inPlaylist: true)
                    continue
                }
                let uri = call.host.playlistURI(entry)
                // A vanished file, or a stream the list says nothing of, is listed by name only, as MPD
                // lists a song it does not know.
                guard let item = call.host.playableItem(entry, catalogueOnly: checked, listing: true),
                      !item.isStream || item.listed != nil else {
                    call.response.add("file", uri)
                    continue
                }
                call.response.addSong(item, uri: uri, tags: call.session.tagTypes, durationMs: nil)
            }
        },
        MPDCommand("load", 1...3, .changesState, .blocking) { call throws(MPDError) in
            // As MPD: the range and the position are refused before the playlist is read.
            let asked = try call.arguments.count > 1 ? MPDArgument.range(call.arguments[1]) : nil
            let position = call.arguments.count > 2 ? call.arguments[2] : nil
            if let position { _ = try insertPosition(position, call.host.snapshot()) }
            let sheet = sheetPlaylist(call.arguments[0], call)
            let (entries, checked) = sheet == nil ? try readPlaylist(call.arguments[0], call) : ([], false)
            let count = sheet?.count ?? entries.count
            var range = 0..<count
            // A range past the playlist's end loads what there is of it.
            if let asked { range = asked.clipped(to: count) ?? 0..<0 }
            let items = sheet.map { $0[range].map(\.item) } ?? entries[range].compactMap { call.host.playableItem($0, catalogueOnly: checked) }
            guard !items.isEmpty else { return }
            try enqueue(items, at: position, call)
        },
        MPDCommand("save", 1...2, .changesState, .blocking) { call throws(MPDError) in
            let name = call.arguments[0]
            let mode = call.arguments.count > 1 ? call.arguments[1] : "create"
            guard let saveMode = StoredPlaylists.SaveMode(rawValue: mode) else {
                throw MPDError.arg("Unrecognized save mode, expected one of: create, append, replace")
            }
            let queue = call.host.snapshot().entries.map { call.host.playlistEntry($0.item) }
            try playlistCall { try call.host.playlists.save(name, queue, mode: saveMode) }
            call.host.wrote(.storedPlaylists)
        },
        MPDCommand("rm", 1...1, .changesState, .blocking) { call throws(MPDError) in
            try playlistCall { try call.host.playlists.remove(call.arguments[0]) }
            call.host.wrote(.storedPlaylists)
        },
        MPDCommand("rename", 2...2, .changesState, .blocking) { call throws(MPDError) in
            try playlistCall { try call.host.playlists.rename(call.arguments[0], to: call.arguments[1]) }
            call.host.wrote(.storedPlaylists)
        },
        MPDCommand("playlistadd", 2...3, .changesState, .blocking, paths: [1]) { call throws(MPDError) in
            let name = call.arguments[0]
            _ = try playlistCall { try StoredPlaylists.validate(name) }
            let added = try items(forURI: call.arguments[1], call: call).map(call.host.playlistEntry)
            var position: Int?
            if call.arguments.count > 2 { position = try MPDArgument.unsigned(call.arguments[2]) }
            try insert(added, into: name, at: position, host: call.host)
        },
        MPDCommand("playlistclear", 1...1, .changesState, .blocking) { call throws(MPDError) in
            try playlistCall { try call.host.playlists.edit(call.arguments[0]) { $0.removeAll() } }
            call.host.wrote(.storedPlaylists)
        },
        MPDCommand("playlistdelete", 2...2, .changesState, .blocking) { call throws(MPDError) in
            let text = call.arguments[1]
            try playlistCall {
                try call.host.playlists.edit(call.arguments[0]) { entries in
                    // As MPD: a start past the end is refused, an end past it cut.
                    let range = try MPDArgument.range(text)
                    guard let removed = range.clipped(to: entries.count) else {
                        throw CatalogueError.badPosition("Bad song index")
                    }
                    entries.removeSubrange(removed)
                }
            }
            call.host.wrote(.storedPlaylists)
        },
        MPDCommand("playlistmove", 3...3, .changesState, .blocking) { call throws(MPDError) in
            let from = try MPDArgument.unsigned(call.arguments[1])
            let to = try MPDArgument.unsigned(call.arguments[2])
            try playlistCall {
                try call.host.playlists.edit(call.arguments[0]) { entries in
                    guard entries.indices.contains(from), entries.indices.contains(to) else {
                        throw CatalogueError.badPosition("Bad range")
                    }
                    let moved = entries.remove(at: from)
                    entries.insert(moved, at: to)
                }
            }
            call.host.wrote(.storedPlaylists)
        },
    ]

    /// Puts `added` into playlist `name` (made when new) at `position`, else at its end.
    static func insert(_ added: [PlaylistEntry], into name: String, at position: Int?, host: PlayerHost) throws(MPDError) {
        try playlistCall {
            try host.playlists.edit(name, create: true) { entries in
                let at = position ?? entries.count
                guard (0...entries.count).contains(at) else { throw CatalogueError.badPosition("Bad position") }
                entries.insert(contentsOf: added, at: at)
            }
        }
        host.wrote(.storedPlaylists)
    }

    /// Runs playlist file work, its failures as MPD's ACKs.
    @discardableResult
    static func playlistCall<T>(_ body: () throws -> T) throws(MPDError) -> T {
        do {
            return try body()
        } catch let error as MPDError {
            throw error
        } catch let error as CatalogueError {
            switch error {
            case .badPlaylistName: throw MPDError.arg("Bad playlist name")
            case .noSuchPlaylist: throw MPDError.noExist("No such playlist")
            case .playlistExists: throw MPDError.exist(error.description)
            case .badPosition: throw MPDError.arg(error.description)
            case .playlistTooLarge: throw MPDError.playlistMax(error.description)
            default: throw MPDError.system(error.description)
            }
        } catch {
            throw MPDError(failure: error)
        }
    }

    /// A playlist to read, as MPD opens one by name: a URL is fetched (MPD's playlist plugins); else the
    /// stored playlist of that name, else the playlist file of that path in the music folder
    /// (`Sub/list.m3u`), its lines resolved as MPD resolves them. `checked`: lines that are no catalogue
    /// song are skipped by `load`, as MPD skips what its database does not hold.
    static func readPlaylist(_ name: String, _ call: Invocation) throws(MPDError)
        -> (entries: [PlaylistEntry], checked: Bool) {
        if QueueItem.isStreamURL(name) {
            do {
                return (try call.host.remotePlaylist(name, maxEntries: call.host.maxQueueLength), true)
            } catch {
                // MPD's answer, with why: nothing is queued.
                throw MPDError.noExist("No such playlist: \(error)")
            }
        }
        if (try? StoredPlaylists.validate(name)) != nil {
            do {
                return (try playlistCall { try call.host.playlists.read(name) }, false)
            } catch let error where error.code == .noExist {}
        }
        guard FolderPlaylists.isPlaylistFileName(name), FilterParser.isSafeLocalURI(name),
              let location = try? call.location(name), location.kind == .musicFolder,
              let entries = FolderPlaylists.read(path: location.path, uri: name, musicDirectory: call.host.naming.musicDirectory,
                                                 maxEntries: call.host.maxQueueLength) else {
            throw MPDError.noExist("No such playlist")
        }
        return (entries, true)
    }
}

extension PlayerHost {
    /// The file a stored playlist entry names (relative entries are in the music folder).
    package func playlistPath(_ entry: PlaylistEntry) -> String? {
        StoredPlaylists.path(forLocation: entry.location, base: naming.musicDirectory)
    }

    /// The name clients know an entry by: its song's URI, or the line as written when it names no file here.
    package func playlistURI(_ entry: PlaylistEntry) -> String {
        guard let path = playlistPath(entry) else { return entry.location }
        // Unreadable, the entry is named as a file outside the catalogue (by path), which it may be.
        return naming.uri(ofFile: path, inCatalogue: (try? database.song(localPath: path)) != nil)
    }

    /// The entry as a queue item, or nil when it is skipped: a file that is no song of the library
    /// (`/etc/passwd` in a list, a file behind a link), as MPD skips a song its database does not hold.
    /// A stream URL is queued where the host streams, as MPD loads one.
    /// With `catalogueOnly` the item carries what the list says of it (`listed`), as MPD's queue does.
    /// `listing`: the item is only listed, so a stream is one even where the host cannot play it.
    package func playableItem(_ entry: PlaylistEntry, catalogueOnly: Bool = false, listing: Bool = false) -> QueueItem? {
        var item: QueueItem
        if QueueItem.isStreamURL(entry.location) {
            guard canStream || listing else { return nil }
            item = QueueItem(.stream(entry.location), database: database)
        } else {
            // Only a song the library holds (a CUE sheet's track too), as MPD loads what its database holds:
            // never a file behind a link out of the music folder.
            guard let path = playlistPath(entry),
                  let song = SongResolver(host: self, allowsAbsolute: false).libraryItem(path: path) else { return nil }
            item = song
        }
        // Stored playlists are ours: their `#EXTINF` lines only repeat the song's tags, which MPD never writes.
        if catalogueOnly, !entry.tags.isEmpty {
            item.listed = QueueItem.ListedTags(tags: entry.tags.items.map { ($0.tag.name, $0.value) }, durationMs: entry.tags.durationMs)
        }
        return item
    }

    package func playlistEntry(_ item: QueueItem) -> PlaylistEntry {
        PlaylistEntry(item: item, musicDirectory: naming.musicDirectory)
    }
}

extension PlaylistEntry {
    /// A queue item as a playlist line, with its `#EXTINF` title ("Singer - Title") and length.
    package init(item: QueueItem, musicDirectory: String) {
        self.init(location: StoredPlaylists.location(forPath: item.path, musicDirectory: musicDirectory),
                  title: item.singer.isEmpty ? item.title : "\(item.singer) - \(item.title)", durationMs: item.durationMs)
    }
}
