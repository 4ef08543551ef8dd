import Foundation
import GRDB
import XZSystem
#if canImport(Glibc)
import Glibc
#endif

/// One line of a playlist: where the song is, as written in the file (a path relative to the music
/// folder, as MPD writes it, or an absolute path), and what `#EXTINF` said of it.
package struct PlaylistEntry: Sendable, Equatable {
    package var location: String
    package var title: String?
    package var durationMs: Int?
    /// 1-based line in the file it was read from (0 for entries not read from a file).
    package var line: Int
    /// What the file says of the song in MPD's terms, as its playlist plugin reads the format.
    package var tags = PlaylistTags()

    package init(location: String, title: String? = nil, durationMs: Int? = nil, line: Int = 0) {
        self.location = location
        self.title = title
        self.durationMs = durationMs
        self.line = line
    }
}

/// The tags and length a playlist file gives one song, as MPD's playlist plugins read them (an extended
/// M3U's `#EXTINF` title is `Name`, a PLS `TitleN` is `Title`, an XSPF track's title, creator, album and
/// trackNum are `Title`, `Artist`, `Album`, `Track`). MPD lists them before the song's own tags, which
/// they replace kind by kind, and the length replaces the song's.
package struct PlaylistTags: Sendable, Equatable {
    package var items: [TagEntry] = []
    package var durationMs: Int?

    package init() {}

    package var isEmpty: Bool { items.isEmpty && durationMs == nil }

    /// Adds a value as MPD's tag builder does: an empty one is none; control characters become spaces.
    package mutating func add(_ tag: SongTag, _ value: some StringProtocol) {
        guard !value.isEmpty else { return }
        let clean = String(value).unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
            ? String(String.UnicodeScalarView(value.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
            : String(value)
        items.append(TagEntry(tag, clean))
    }
}

/// The extended M3U format every player reads: `#EXTM3U`, then `#EXTINF:SECONDS,TITLE` before each location.
package enum M3U {
    /// Entries of an .m3u/.m3u8 file from any player: UTF-8 (a byte-order mark skipped), LF or CRLF line ends,
    /// comments and blank lines ignored; `#EXTINF` describes the next location.
    /// At most `limit` entries are read; the lines after them are left unread.
    package static func parse(_ data: Data, limit: Int = .max) -> [PlaylistEntry] {
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var entries: [PlaylistEntry] = []
        var pending: (title: String?, durationMs: Int?)?
        var pendingTags = PlaylistTags()
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        // As MPD: `#EXTINF` gives tags only in a file whose first line is `#EXTM3U`.
        let extended = lines.first?.trimmingCharacters(in: .whitespaces) == "#EXTM3U"
        for (index, raw) in lines.enumerated() where entries.count < limit {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                if line.hasPrefix("#EXTINF:") {
                    pending = extinf(line.dropFirst(8))
                    if extended { pendingTags = mpdTags(ofEXTINF: line.dropFirst(8)) }
                }
                continue
            }
            var entry = PlaylistEntry(location: line, title: pending?.title, durationMs: pending?.durationMs, line: index + 1)
            entry.tags = pendingTags
            entries.append(entry)
            pending = nil
            pendingTags = PlaylistTags()
        }
        return entries
    }

    /// "SECONDS,NAME" as MPD's extm3u plugin reads it: whole seconds right before the comma (else the
    /// line gives nothing), a negative length is 0 (which MPD lists as `Time: 0`), the rest is `Name`.
    static func mpdTags(ofEXTINF text: Substring) -> PlaylistTags {
        var tags = PlaylistTags()
        guard let comma = text.firstIndex(of: ",") else { return tags }
        var number = text[..<comma].drop { $0 == " " || $0 == "\t" }
        let negative = number.first == "-"
        if number.first == "-" || number.first == "+" { number = number.dropFirst() }
        guard !number.isEmpty, number.count <= 9, number.allSatisfy({ ("0"..."9").contains($0) }), let seconds = Int(number) else { return tags }
        let name = text[text.index(after: comma)...].drop { $0 == " " || $0 == "\t" }
        let durationMs = negative ? 0 : seconds * 1000
        guard !name.isEmpty || durationMs != 0 else { return tags }
        tags.durationMs = durationMs
        tags.add(.name, name)
        return tags
    }

    /// "SECONDS[ attributes],TITLE"; -1 or junk seconds mean unknown.
    private static func extinf(_ text: Substring) -> (String?, Int?) {
        guard let comma = text.firstIndex(of: ",") else { return (nil, nil) }
        let head = text[..<comma].split(separator: " ").first.map(String.init) ?? ""
        let seconds = Double(head).flatMap { $0 >= 0 && $0 < 1e7 ? Int(($0 * 1000).rounded()) : nil }
        let title = text[text.index(after: comma)...].trimmingCharacters(in: .whitespaces)
        return (title.isEmpty ? nil : title, seconds)
    }

    /// The file's text. Titles are one line each: a line break in a tag cannot start a new entry.
    package static func render(_ entries: [PlaylistEntry]) -> String {
        var text = "#EXTM3U\n"
        for entry in entries {
            let title = (entry.title ?? "").map { $0.isNewline || $0 == "\0" ? " " : $0 }
            let seconds = entry.durationMs.map { ($0 + 500) / 1000 } ?? -1
            text += "#EXTINF:\(seconds),\(String(title))\n\(entry.location)\n"
        }
        return text
    }
}

/// The library's stored playlists: `NAME.m3u` files in `playlists/` under the library folder, which
/// real MPD reads too when its playlist_directory points there. Every write replaces the whole file
/// atomically, and every change holds the folder's lock, so edits by the host and by other programs
/// of the library (the CLI) happen one after another and none is lost. Each playlist holds at most
/// `maxLength` songs (MPD's `max_playlist_length`). Names are data: nothing a client sends can name a
/// file outside the folder. A playlist's owner row (`PlaylistOwnership`) follows its file: renamed with
/// it, removed with it, and a playlist made anew has none (the library owner's, public), whoever
/// changes it (an MPD client, the prompt, the CLI, the Subsonic API).
package struct StoredPlaylists: Sendable, Equatable {
    package static let suffix = ".m3u"
    /// MPD's default `max_playlist_length`.
    package static let defaultMaxLength = 16_384
    /// Bytes of a playlist file read per song of the cap: MPD's longest path and an `#EXTINF` line fit.
    static let bytesPerEntry = 8_192

    package let folder: URL
    /// The most songs a playlist holds: longer files are read up to it, and a change past it is refused.
    package let maxLength: Int
    /// Where the owner rows are kept: the host's open database, else the library's file, opened for a
    /// change that moves rows (a library without one has no rows to keep).
    private let database: LibraryDatabase?
    private let databasePath: String

    package init(library: LibraryFolder, maxLength: Int = defaultMaxLength, database: LibraryDatabase? = nil) {
        folder = library.url.appendingPathComponent("playlists")
        self.maxLength = max(0, maxLength)
        self.database = database
        databasePath = library.databasePath
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.folder == rhs.folder && lhs.maxLength == rhs.maxLength
    }

    /// How `save` treats a playlist of the name: `create` refuses an existing one, `append` keeps its
    /// songs before the new ones, `replace` drops them.
    package enum SaveMode: String, Sendable, CaseIterable {
        case create, append, replace
    }

    /// A name that stays a plain file name in the folder: not empty, no `/`, no NUL or other control
    /// character, no leading dot (hidden files and `..`), short enough for the file system.
    package static func validate(_ name: String) throws -> String {
        let valid = !name.isEmpty && !name.hasPrefix(".") && !name.contains("/")
            && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
            && name.utf8.count + suffix.utf8.count <= 255
        guard valid else { throw CatalogueError.badPlaylistName }
        return name
    }

    package func path(of name: String) throws -> String {
        folder.appendingPathComponent(try Self.validate(name) + Self.suffix).path
    }

    package func exists(_ name: String) throws -> Bool {
        FileManager.default.fileExists(atPath: try path(of: name))
    }

    /// Every playlist with its file's modification time, by name.
    package func list() throws -> [(name: String, modified: Date)] {
        let manager = FileManager.default
        // No folder means none saved yet; an unreadable one lists as empty rather than failing every client.
        guard let files = try? manager.contentsOfDirectory(atPath: folder.path) else { return [] }
        return files.compactMap { file -> (name: String, modified: Date)? in
            guard file.hasSuffix(Self.suffix), !file.hasPrefix(".") else { return nil }
            let name = String(file.dropLast(Self.suffix.count))
            // Files no playlist name could give, and files gone since the listing, are no playlists.
            guard (try? Self.validate(name)) != nil else { return nil }
            guard let status = FileStatus(path: folder.appendingPathComponent(file).path), status.kind == .regular else { return nil }
            return (name, status.modified)
        }.sorted { $0.name < $1.name }
    }

    /// The playlist's first `maxLength` songs (MPD reads no more of a longer file).
    package func read(_ name: String) throws -> [PlaylistEntry] {
        guard let entries = Self.readCapped(atPath: try path(of: name), maxEntries: maxLength) else {
            throw CatalogueError.noSuchPlaylist
        }
        return entries
    }

    /// The first `maxEntries` entries of the playlist file at `path` (M3U unless `format` says another),
    /// reading no more of it than they can take; nil when it is no regular file that can be read (a FIFO
    /// is never waited on).
    package static func readCapped(atPath path: String, maxEntries: Int, format: PlaylistFormat = .m3u) -> [PlaylistEntry]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let (product, overflow) = max(1, maxEntries).multipliedReportingOverflow(by: bytesPerEntry)
        let budget = overflow ? Int.max : product
        guard var data = try? handle.read(upToCount: budget) ?? Data() else { return nil }
        // Cut short, the last line may be half a location: it is no entry.
        if data.count == budget, let lastBreak = data.lastIndex(of: UInt8(ascii: "\n")) {
            data = data[..<lastBreak]
        }
        return format.parse(data, limit: maxEntries)
    }

    /// Writes the whole playlist, creating the folder when needed.
    package func write(_ name: String, _ entries: [PlaylistEntry]) throws {
        let path = try path(of: name)
        try exclusively { try store(entries, at: path) }
    }

    /// Keeps `entries` as playlist `name` by `mode`; a playlist that `append` or `replace` does not find
    /// is made when `creatingMissing` (as the CLI does), else it is `noSuchPlaylist` (as MPD answers).
    package func save(_ name: String, _ entries: [PlaylistEntry], mode: SaveMode, creatingMissing: Bool = false) throws {
        let path = try path(of: name)
        try exclusively {
            let exists = FileManager.default.fileExists(atPath: path)
            if mode == .create, exists { throw CatalogueError.playlistExists("Playlist already exists") }
            if mode != .create, !exists, !creatingMissing { throw CatalogueError.noSuchPlaylist }
            let kept = mode == .append && exists ? try read(name) : []
            if exists {
                try store(kept + entries, at: path)
            } else {
                try storeNew(name, kept + entries, at: path)
            }
        }
    }

    /// Reads, changes and writes back an existing playlist (or a new one when `create`), holding the
    /// lock throughout: an edit made meanwhile by another client or program is never overwritten.
    package func edit(_ name: String, create: Bool = false, _ change: (inout [PlaylistEntry]) throws -> Void) throws {
        let path = try path(of: name)
        try exclusively {
            var entries: [PlaylistEntry] = []
            var exists = true
            do {
                entries = try read(name)
            } catch let error as CatalogueError where error == .noSuchPlaylist && create {
                exists = false
            }
            try change(&entries)
            if exists {
                try store(entries, at: path)
            } else {
                try storeNew(name, entries, at: path)
            }
        }
    }

    package func remove(_ name: String) throws {
        let path = try path(of: name)
        try exclusively {
            // A file that cannot be removed keeps its row; a row that cannot be removed is left for the
            // next playlist of the name to drop (`storeNew`).
            try changingOwnerRows({ try PlaylistOwnership.forget($0, name) }) {
                guard unlink(path) == 0 else {
                    if errno == ENOENT { throw CatalogueError.noSuchPlaylist }
                    throw CatalogueError.io("cannot remove \(path): \(String(cString: strerror(errno)))")
                }
            }
        }
    }

    package func rename(_ name: String, to newName: String) throws {
        let from = try path(of: name)
        let to = try path(of: newName)
        try exclusively {
            let manager = FileManager.default
            guard manager.fileExists(atPath: from) else { throw CatalogueError.noSuchPlaylist }
            guard !manager.fileExists(atPath: to) else { throw CatalogueError.playlistExists }
            try changingOwnerRows({ try PlaylistOwnership.move($0, from: name, to: newName) }) {
                guard Glibc.rename(from, to) == 0 else {
                    throw CatalogueError.io("cannot rename \(from): \(String(cString: strerror(errno)))")
                }
            } undo: {
                _ = Glibc.rename(to, from)
            }
        }
    }

    /// Writes a playlist that had no file: a row its name kept from a playlist whose file is gone
    /// (removed by another program) is dropped, so the new one is the library owner's, public.
    private func storeNew(_ name: String, _ entries: [PlaylistEntry], at path: String) throws {
        try changingOwnerRows({ try PlaylistOwnership.forget($0, name) }) {
            try store(entries, at: path)
        } undo: {
            _ = unlink(path)
        }
    }

    /// Runs the file change `change` inside the write transaction that changes the owner rows (`rows`):
    /// the rows change only with the file, and a file change whose rows cannot be written is undone
    /// (`undo`). The caller holds the lock.
    private func changingOwnerRows(_ rows: (Database) throws -> Void, file change: () throws -> Void,
                                   undo: () -> Void = {}) throws {
        guard let database = try ownersDatabase() else { return try change() }
        var changed = false
        do {
            try database.pool.write { db in
                try rows(db)
                try change()
                changed = true
            }
        } catch let error as DatabaseError {
            if changed { undo() }
            throw CatalogueError(error)
        }
    }

    private func ownersDatabase() throws -> LibraryDatabase? {
        if let database { return database }
        guard FileManager.default.fileExists(atPath: databasePath) else { return nil }
        return try LibraryDatabase(path: databasePath)
    }

    /// Replaces the file at `path` whole; the caller holds the lock.
    private func store(_ entries: [PlaylistEntry], at path: String) throws {
        guard entries.count <= maxLength else { throw CatalogueError.playlistTooLarge }
        do {
            try AtomicFile.write(Data(M3U.render(entries).utf8), toPath: path)
        } catch {
            throw CatalogueError.io(error.description)
        }
    }

    /// Runs `body` holding an exclusive `flock` on the playlists folder, which every process of the
    /// library takes before it changes a playlist (the lock goes with the process, even at `kill -9`).
    /// It may wait for another writer: callers run on a blocking thread, never an event loop. Not
    /// reentrant: `body` must not call another locking method.
    private func exclusively<T>(_ body: () throws -> T) throws -> T {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw CatalogueError.io("cannot create \(folder.path): \((error as NSError).localizedDescription)")
        }
        let fd = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw CatalogueError.io("cannot open \(folder.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw CatalogueError.io("cannot lock \(folder.path): \(String(cString: strerror(errno)))")
            }
        }
        return try body()
    }

    // MARK: Locations

    /// How a file is written in a playlist: relative to the music folder when inside it (as MPD writes
    /// it), else its absolute path (which MPD and other players read as it is).
    package static func location(forPath path: String, musicDirectory: String) -> String {
        let prefix = musicDirectory.hasSuffix("/") ? musicDirectory : musicDirectory + "/"
        if path.hasPrefix(prefix), path.count > prefix.count { return String(path.dropFirst(prefix.count)) }
        return path
    }

    /// The file a playlist location names, or nil for one that is no file here (a URL, or a relative
    /// path that climbs out of its folder when `climbing` is not allowed). Relative locations are read
    /// against `base`: the music folder for stored playlists, the playlist's own folder for an imported
    /// file (whose `../Music/x.mp3` lines are usual).
    package static func path(forLocation location: String, base: String, climbing: Bool = false) -> String? {
        var text = location
        if text.hasPrefix("file://") {
            text = String(text.dropFirst(7)).removingPercentEncoding ?? String(text.dropFirst(7))
        }
        guard !text.isEmpty, !text.contains("://"), !text.utf8.contains(0) else { return nil }
        if text.hasPrefix("/") { return URL(fileURLWithPath: text).standardizedFileURL.path }
        let components = text.split(separator: "/", omittingEmptySubsequences: true)
        guard climbing || !components.contains("..") else { return nil }
        return URL(fileURLWithPath: base).appendingPathComponent(text).standardizedFileURL.path
    }
}
