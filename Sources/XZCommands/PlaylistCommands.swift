import ArgumentParser
import Foundation
import XZCatalogue
import XZProtocol
import XZHostAssembly
import XZSystem
import XZText
import XZHostCore
import XZPlaybackValues

struct PlaylistCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "playlist",
        abstract: "Stored playlists: list, show, save, load, add, rm, rename, import.",
        discussion: "Playlists are NAME.m3u files in the library's playlists/ folder, one song a line (relative to "
            + "the music folder, as MPD writes them), so MPD clients and other players read them too. "
            + "A song whose file vanished stays in its playlist, shown as missing and skipped when loaded.",
        subcommands: [List.self, Show.self, Save.self, Load.self, Add.self, Remove.self, Rename.self, Import.self],
        defaultSubcommand: List.self)

    struct List: LibraryCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the stored playlists.")
        @OptionGroup var global: GlobalOptions

        func run(in context: CommandContext) throws {
            let playlists = try context.playlists
            let all = try playlists.store.list()
            if all.isEmpty { context.console.line("No playlists yet: 'playlist save NAME' keeps the queue.") }
            for (name, _) in all {
                // One playlist that cannot be read is still listed, not the end of the listing.
                let count = (try? playlists.store.read(name).count) ?? 0
                context.console.line("\(name.safe)  (\(count) song\(count == 1 ? "" : "s"))")
            }
        }
    }

    struct Show: LibraryCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "List a playlist's songs.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The playlist's name.") var name: String

        func run(in context: CommandContext) throws {
            let playlists = try context.playlists
            let entries = try playlists.read(name)
            if entries.isEmpty { context.console.line("\(name.safe) is empty.") }
            for (index, entry) in entries.enumerated() {
                let number = DisplayWidth.fit("\(index + 1)", to: 3, alignRight: true)
                guard let path = playlists.path(entry), FileManager.default.fileExists(atPath: path) else {
                    context.console.line("\(number)  \(context.console.styled("missing", "31"))  \(entry.location.safe)")
                    continue
                }
                let item = QueueItem(.file(path), database: try context.database)
                let who = item.singer.isEmpty ? "" : " — \(item.singer.safe)"
                context.console.line("\(number)  \(item.title.safe)\(who)  [\(DurationText.clock(ms: item.durationMs))]")
            }
        }
    }

    struct Save: PlayerCommand {
        static let configuration = CommandConfiguration(commandName: "save", abstract: "Keep the queue as a playlist.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The playlist's name.") var name: String
        @Flag(help: "Add the queue to the end of an existing playlist.") var append = false
        @Flag(help: "Replace an existing playlist.") var replace = false

        func validate() throws {
            if append && replace { throw ValidationError("--append and --replace exclude each other") }
        }

        func run(on door: HostDoor, context: CommandContext) throws {
            let playlists = try context.playlists
            // An empty queue makes an empty playlist, as MPD's save does. The queue is read a part at a time,
            // each well under what one answer may hold.
            let count = try door.status().playlistLength
            let naming = try context.songNaming(door)
            let database = try context.database
            var songs: [Playable] = []
            for start in stride(from: 0, to: count, by: Queue.readSize) {
                songs += try door.queue(window: start..<min(count, start + Queue.readSize)).map {
                    Playable(hostURI: $0.file, naming: naming, catalogue: database)
                }
            }
            let queue = QueueItem.items(songs, database: database)
            do {
                try playlists.run {
                    try $0.save(name, queue.map(playlists.entry), mode: append ? .append : replace ? .replace : .create,
                                creatingMissing: true)
                }
            } catch CommandError.playlistExists {
                throw CommandError.playlistExists("playlist \(name.safe) exists already: --append or --replace it")
            }
            context.console.line("saved \(queue.count) song\(queue.count == 1 ? "" : "s") as \(name.safe)")
        }
    }

    struct Load: PlayerCommand {
        static let configuration = CommandConfiguration(commandName: "load", abstract: "Add a playlist's songs to the queue.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The playlist's name.") var name: String

        func run(on door: HostDoor, context: CommandContext) throws {
            let playlists = try context.playlists
            let entries = try playlists.read(name)
            let paths = entries.compactMap(playlists.path).filter { FileManager.default.isReadableFile(atPath: $0) }
            // One command list: the playlist arrives whole.
            try door.runList(MPDRequest.adds(paths.map(Playable.file)))
            let missing = entries.count - paths.count
            context.console.line("loaded \(paths.count) song\(paths.count == 1 ? "" : "s") from \(name.safe)"
                + (missing > 0 ? " (\(missing) missing, skipped)" : ""))
        }
    }

    struct Add: LibraryCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add songs to a playlist (made when new).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The playlist's name.") var name: String
        @Argument(help: ArgumentHelp("Songs to add.", valueName: "song")) var songs: [String]

        func validate() throws {
            if songs.isEmpty { throw ValidationError("name at least one song to add") }
        }

        func run(in context: CommandContext) throws {
            let playlists = try context.playlists
            _ = try playlists.checked(name)
            let database = try context.database
            let entries = try context.playables(for: songs).map {
                playlists.entry(QueueItem($0, database: database))
            }
            var count = 0
            try playlists.run {
                try $0.edit(name, create: true) { list in
                    list += entries
                    count = list.count
                }
            }
            context.console.line("added \(entries.count) to \(name.safe) (\(count) in all)")
        }
    }

    struct Remove: LibraryCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a playlist.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The playlist's name.") var name: String

        func run(in context: CommandContext) throws {
            try context.playlists.run { try $0.remove(name) }
            context.console.line("removed playlist \(name.safe)")
        }
    }

    struct Rename: LibraryCommand {
        static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a playlist.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The playlist's name.") var name: String
        @Argument(help: "Its new name.") var newName: String

        func run(in context: CommandContext) throws {
            try context.playlists.run { try $0.rename(name, to: newName) }
            context.console.line("renamed \(name.safe) to \(newName.safe)")
        }
    }

    struct Import: LibraryCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import an .m3u/.m3u8/.pls/.xspf file from another player as a playlist.",
            discussion: "Relative lines are read against the file's own folder. Songs that are not in the library "
                + "(no such file, or a file the catalogue and the music folder do not hold) are reported by line "
                + "and left out.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The .m3u, .m3u8, .pls or .xspf file (M3U unless its name says another).") var file: String
        @Option(help: "The playlist's name (default: the file's name).") var name: String?

        func run(in context: CommandContext) throws {
            let url = URL(fileURLWithPath: LibraryFolder.expandTilde(file)).standardizedFileURL
            let playlists = try context.playlists
            // One line past the cap is enough to tell the file is longer than a playlist may be.
            let cap = playlists.store.maxLength
            let format = PlaylistFormat(fileName: url.lastPathComponent) ?? .m3u
            guard let lines = StoredPlaylists.readCapped(atPath: url.path, maxEntries: cap + 1, format: format) else {
                throw CommandError.noSuchFile("cannot read \(file.safe)")
            }
            let target = name ?? url.deletingPathExtension().lastPathComponent
            let exists = CommandError.playlistExists(
                "playlist \(target.safe) exists already: --name another, or 'playlist rm' it first")
            if try playlists.checked(target) { throw exists }
            let base = url.deletingLastPathComponent().path
            let database = try context.database
            var entries: [PlaylistEntry] = []
            var left = 0
            if lines.count > cap {
                context.console.error("\(file.safe): more than \(cap) songs: only the first \(cap) are imported")
            }
            for line in lines.prefix(cap) {
                let problem: String
                if let path = StoredPlaylists.path(forLocation: line.location, base: base, climbing: true) {
                    if !FileManager.default.fileExists(atPath: path) {
                        problem = "no such file"
                    } else if playlists.isInLibrary(path, database: database) {
                        entries.append(playlists.entry(QueueItem(.file(path), database: database)))
                        continue
                    } else {
                        problem = "not in the library"
                    }
                } else {
                    problem = "not a file"
                }
                left += 1
                context.console.error("\(file.safe) line \(line.line): \(line.location.safe): \(problem)")
            }
            do {
                try playlists.run { try $0.save(target, entries, mode: .create) }
            } catch CommandError.playlistExists {
                throw exists
            }
            context.console.line("imported \(entries.count) song\(entries.count == 1 ? "" : "s") as \(target.safe)"
                + (left > 0 ? " (\(left) left out)" : ""))
        }
    }
}

/// The library's stored playlists as commands see them: the files, and the music folder their relative
/// lines are read against (the host's, else the config's).
struct PlaylistFiles {
    let store: StoredPlaylists
    let musicDirectory: String
    let libraryDirectory: String

    /// The store's failures as one-line command errors.
    func run<T>(_ body: (StoredPlaylists) throws -> T) throws -> T {
        do {
            return try body(store)
        } catch let error as CatalogueError {
            // Named in full: a bare `.noSuchPlaylist` would match CommandError's kind of that name.
            switch error {
            case CatalogueError.badPlaylistName:
                throw CommandError.usage("bad playlist name: not empty, no '/', no control characters, not starting with '.'")
            case CatalogueError.noSuchPlaylist: throw CommandError.noSuchPlaylist
            case CatalogueError.playlistExists: throw CommandError.playlistExists(error.description)
            case CatalogueError.playlistTooLarge:
                throw CommandError.failed("a playlist holds at most \(store.maxLength) songs (max_playlist_length)")
            default: throw CommandError.failed(error.description)
            }
        }
    }

    /// Whether a playlist of a valid `name` exists.
    func checked(_ name: String) throws -> Bool {
        try run { try $0.exists(name) }
    }

    func read(_ name: String) throws -> [PlaylistEntry] {
        do {
            return try run { try $0.read(name) }
        } catch CommandError.noSuchPlaylist {
            throw CommandError.noSuchPlaylist(named: name)
        }
    }

    func path(_ entry: PlaylistEntry) -> String? {
        StoredPlaylists.path(forLocation: entry.location, base: musicDirectory)
    }

    func entry(_ item: QueueItem) -> PlaylistEntry {
        PlaylistEntry(item: item, musicDirectory: musicDirectory)
    }

    /// A catalogue song's file, or a file in the music or library folder (which the host plays by name).
    func isInLibrary(_ path: String, database: LibraryDatabase) -> Bool {
        // A lookup that fails finds no catalogue song; the folders below still decide.
        if (try? database.song(localPath: path)) != nil { return true }
        return [musicDirectory, libraryDirectory].contains { path.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }
    }
}

extension CommandContext {
    var playlists: PlaylistFiles {
        get throws {
            let music: String
            // Names relative to the music folder need no valid config: its defaults stand in.
            let settings = (try? ConfigFile.load()).flatMap { try? HostSettings(config: $0) } ?? HostSettings()
            if let door {
                // A host that cannot say where its music is gets the default, as a host without a config would.
                music = (try? door.musicDirectory()) ?? SongNaming.defaultMusicDirectory().standardizedFileURL.path
            } else {
                music = settings.musicDirectory.standardizedFileURL.path
            }
            // The owner rows change in the library's open database, as the host's playlists change them in its
            // own; a library without a database yet has no rows, and none is made for a playlist command.
            let database = FileManager.default.fileExists(atPath: folder.databasePath) ? try self.database : nil
            return PlaylistFiles(store: StoredPlaylists(library: folder, maxLength: settings.maxPlaylistLength, database: database),
                                 musicDirectory: music, libraryDirectory: folder.url.path)
        }
    }
}
