import Foundation
import XZAudio
import XZCatalogue
import XZPlaybackValues
import XZSystem

/// The one way a name becomes what the queue holds: MPD's `add`, `addid`, `playlistadd`, `load`, MPRIS's
/// `OpenUri` and the prompt all resolve through it. A name is queued only as a song the library holds
/// (a file of the music or library folder, a catalogue song, a CUE sheet's tracks, a folder's songs), a
/// stream URL, or, for a local client, an absolute path. A file the library does not hold is refused
/// the same way whether or not it exists, so no name tells anything of the files behind a link.
///
/// One per request or command list, on one thread: what it resolved it keeps, so a list that adds one
/// song 10,000 times looks it up once, and the names a list will resolve are read in one query.
package final class SongResolver {
    private let host: PlayerHost
    /// A local client's (or the user's own): absolute paths and `file://` URIs of any file.
    private let allowsAbsolute: Bool
    private let deadline: Deadline
    /// Names read together on first use (a command list's adds).
    private var ahead: [String]
    /// The songs and CUE sheet images (which MPD's database holds too) among the files of the names read
    /// ahead; nil until read, or when the read failed (each name then asks for itself).
    private var held: (songs: [String: Song], images: Set<String>)?
    private var readAheadFiles: Set<String> = []
    private var locations: [String: SongLocation] = [:]
    /// What each name resolved to, by its number (`numbered`): one song added 10,000 times is one entry.
    private var resolutions: [[Playable]] = []
    private var numbers: [String: Int] = [:]

    package init(host: PlayerHost, allowsAbsolute: Bool, deadline: Deadline = .never, ahead: [String] = []) {
        self.host = host
        self.allowsAbsolute = allowsAbsolute
        self.deadline = deadline
        self.ahead = ahead
    }

    /// What `name` queues, as queue items.
    package func items(_ name: String) throws -> [QueueItem] {
        QueueItem.items(try playables(name), database: host.database)
    }

    /// What `name` queues: a stream, a song, a CUE sheet's tracks, or a folder's songs in MPD's database
    /// order. Refusals are `CatalogueError`s (`.notInLibrary` for a name the library does not hold, as
    /// MPD's "No such directory"), or `DeadlinePassed`.
    package func playables(_ name: String) throws -> [Playable] {
        resolutions[try numbered(name).number]
    }

    /// `name`'s number in this resolver (the same for the same name) and how many playables it stands for:
    /// a command list keeps its adds as these numbers, and makes their items once when they land.
    package func numbered(_ name: String) throws -> (number: Int, count: Int) {
        if let number = numbers[name] { return (number, resolutions[number].count) }
        let found = try resolve(name)
        numbers[name] = resolutions.count
        resolutions.append(found)
        return (resolutions.count - 1, found.count)
    }

    /// What the name numbered `number` stands for.
    package func playables(numbered number: Int) -> [Playable] {
        resolutions[number]
    }

    /// A file a stored playlist names (by absolute path) as a queue item: the library's song there (a
    /// CUE sheet's image too, as MPD's database holds it), else nil, as MPD skips a line its database does
    /// not hold; a song whose file has gone is skipped too.
    package func libraryItem(path: String) -> QueueItem? {
        if let song = (try? host.database.song(localPath: path)) ?? nil {
            // A CUE sheet's track is a part of its image, and no file of its own.
            guard song.cuePart != nil || FileManager.default.isReadableFile(atPath: path) else { return nil }
            return QueueItem(.song(song), database: host.database)
        }
        guard (try? host.database.cueImages(among: [path]))?.contains(path) == true else { return nil }
        return QueueItem(.file(path), database: host.database)
    }

    /// The music-folder name of a `file://` URI's path (MPRIS's `OpenUri`): its path inside the music
    /// folder as written, else with links resolved; nil outside it.
    package func musicFolderName(ofFile path: String) -> String? {
        let music = host.naming.musicDirectory
        let written = URL(fileURLWithPath: path).standardizedFileURL.path
        if let name = SongNaming.relative(written, insideFolder: music == "/" ? music : music + "/") { return String(name) }
        guard let real = Self.realPath(path), let root = Self.realPath(music) else { return nil }
        return SongNaming.relative(real, insideFolder: root == "/" ? root : root + "/").map(String.init)
    }

    private func resolve(_ name: String) throws -> [Playable] {
        if QueueItem.isStreamURL(name) {
            guard host.canStream else { throw CatalogueError.unsupportedScheme }
            // A catalogue song that is not offline is named by its URL: it plays as it downloads.
            return [.stream(name)]
        }
        let location = try locations[name] ?? locate(name)
        let path = location.path
        switch location.kind {
        case .absolute:
            return try absolute(path)
        case .catalogueSong:
            // `locate` found the catalogue's song with this file.
            return [.file(path)]
        case .musicFolder, .library:
            if path == host.naming.musicDirectory { return try folderSongs(path, kind: location.kind) }
            if let song = try catalogued(path) { return [song] }
            // A CUE sheet with tracks in the catalogue is their folder, as MPD lists it.
            if CueSheet.isSheetName(path) {
                let tracks = try host.database.cueTrackPaths(ofSheets: [path])
                if !tracks.isEmpty { return tracks.map(Playable.file) }
            }
            // A folder the library holds songs in, or one that is really in the folder (MPD's database keeps
            // folders without songs); anything else, behind a link out or not there, is refused alike.
            guard try host.database.holdsSongs(inFolder: path) || isFolderInside(path, kind: location.kind) else {
                throw CatalogueError.notInLibrary
            }
            return try folderSongs(path, kind: location.kind)
        }
    }

    /// Whether `path` is a folder whose real path (links resolved) stays in the music or library folder.
    private func isFolderInside(_ path: String, kind: SongLocation.Kind) -> Bool {
        guard case .folder? = Self.refusal(path), let real = Self.realPath(path),
              let root = Self.realPath(kind == .library ? host.naming.libraryDirectory : host.naming.musicDirectory) else { return false }
        return SongNaming.relative(real, insideFolder: root == "/" ? root : root + "/") != nil
    }

    private static func refusal(_ path: String) -> RegularFile.Refusal? {
        do { try RegularFile.check(path) } catch { return error }
        return nil
    }

    private func locate(_ name: String) throws(CatalogueError) -> SongLocation {
        try host.naming.locate(name == "/" ? "" : name, allowAbsolute: allowsAbsolute, catalogue: host.database)
    }

    /// The catalogue's song at `path` (so its items need no second lookup), or a CUE sheet's image; nil
    /// when the catalogue holds neither.
    private func catalogued(_ path: String) throws -> Playable? {
        if !ahead.isEmpty { readAhead() }
        // A file read ahead is known without another query.
        if let held, readAheadFiles.contains(path) {
            return held.songs[path].map(Playable.song) ?? (held.images.contains(path) ? .file(path) : nil)
        }
        if let song = try host.database.songs(localPaths: [path])[path] { return .song(song) }
        return try host.database.cueImages(among: [path]).contains(path) ? .file(path) : nil
    }

    /// The names read ahead: each placed, and the files among them the catalogue holds read in one query.
    private func readAhead() {
        let names = ahead
        ahead = []
        for name in names where locations[name] == nil && !QueueItem.isStreamURL(name) {
            // A name that cannot be placed is refused when it is resolved.
            if let location = try? locate(name) { locations[name] = location }
        }
        let files = Array(Set(locations.values.filter { $0.kind == .musicFolder || $0.kind == .library }.map(\.path)))
        readAheadFiles = Set(files)
        guard let songs = try? host.database.songs(localPaths: files),
              let images = try? host.database.cueImages(among: files.filter { songs[$0] == nil }) else { return }
        held = (songs, images)
    }

    /// A local client's absolute path: any regular file, a CUE sheet's tracks, or a folder's audio files.
    private func absolute(_ path: String) throws -> [Playable] {
        do {
            try RegularFile.check(path)
        } catch .folder {
            return try folderSongs(path, kind: .absolute)
        } catch .cannotOpen {
            throw CatalogueError.notInLibrary
        } catch {
            throw CatalogueError.noSuchSong
        }
        if CueSheet.isSheetName(path), let tracks = try? host.database.cueTrackPaths(ofSheets: [path]), !tracks.isEmpty {
            return tracks.map(Playable.file)
        }
        return [.file(path)]
    }

    /// A folder's audio files in MPD's database order (its walk of the folder); outside an absolute
    /// folder only those the catalogue holds, as MPD adds what its database holds.
    private func folderSongs(_ path: String, kind: SongLocation.Kind) throws -> [Playable] {
        let enumerator = FileManager.default.enumerator(at: URL(fileURLWithPath: path), includingPropertiesForKeys: nil)
        var files: [String] = []
        var visited = 0
        while let url = enumerator?.nextObject() as? URL {
            try deadline.check(every: 256, visited)
            visited += 1
            guard AudioDecoders.hasAudioSuffix(url.path) || CueSheet.isSheetName(url.path),
                  (try? RegularFile.check(url.path)) != nil else { continue }
            files.append(url.standardizedFileURL.path)
        }
        files = Self.cueTracksInPlace(files, database: host.database)
        let songs = try host.database.songs(localPaths: files)
        if kind != .absolute { files = files.filter { songs[$0] != nil } }
        DatabaseOrder.sortByKey(&files) { file in
            let song = songs[file]
            return DatabaseOrder.key(uri: file, album: song?.album, disc: song?.disc, track: song?.track)
        }
        return files.map(Playable.file)
    }

    /// A folder's files with its CUE sheets' tracks in place of the sheets and their images, as MPD's
    /// database holds them; unreadable, the files as they are (less the sheets).
    package static func cueTracksInPlace(_ files: [String], database: LibraryDatabase) -> [String] {
        let sheets = files.filter(CueSheet.isSheetName)
        guard !sheets.isEmpty else { return files }
        let audio = files.filter { !CueSheet.isSheetName($0) }
        guard let tracks = try? database.cueTrackPaths(ofSheets: sheets), let images = try? database.cueImages(among: audio) else {
            return audio
        }
        return audio.filter { !images.contains($0) } + tracks
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
