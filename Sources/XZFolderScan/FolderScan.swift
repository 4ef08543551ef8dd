import Foundation
import XZAudio
import XZCatalogue
import XZSystem

extension LibraryDatabase {
    /// Scans a folder for audio files of every format a decoder reads (by suffix; the decoder is then chosen
    /// by content, and a file whose content no decoder reads is reported). Unchanged files (same size, mtime and sibling lyrics) are skipped unless
    /// `rereadingUnchanged` (MPD's `rescan`), files that vanished since the last scan of this folder are
    /// removed, and a sibling NAME.lrc is recorded as the song's lyrics. Tags are read before the write
    /// transaction opens, so readers never wait. Playlist files are recorded beside the songs, and
    /// `.mpdignore` files from `musicRoot` (the folder itself when nil) down are honoured.
    @discardableResult
    package func importFolder(at url: URL, rereadingUnchanged: Bool = false, musicRoot: String? = nil,
                             progress: ((Double) -> Void)? = nil) throws -> ImportSummary {
        // Once the scan's songs are written and released.
        defer { FreedMemory.returnToSystem() }
        return try scanFolder(at: url, rereadingUnchanged: rereadingUnchanged, musicRoot: musicRoot, progress: progress)
    }

    /// `importFolder` without giving the scan's freed memory back, for callers that scan many folders.
    func scanFolder(at url: URL, rereadingUnchanged: Bool = false, musicRoot: String? = nil,
                    progress: ((Double) -> Void)? = nil) throws -> ImportSummary {
        let root = url.standardizedFileURL.resolvingSymlinksInPath().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CatalogueError.io("\(url.path): no such folder")
        }
        let prefix = "file:" + (root.hasSuffix("/") ? root : root + "/")
        let known = try fileStamps(keyPrefix: prefix)

        var summary = ImportSummary()
        var inputs: [SongInput] = []
        var seen = Set<String>()
        let musicRoot = musicRoot.map { URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path } ?? root
        // An ignored folder holds no music: what it held vanishes.
        let (found, playlists) = IgnoreList.inherited(by: root, root: musicRoot).map { Self.audioFiles(under: root, ignoring: $0) } ?? ([], [])
        if try replaceFolderPlaylists(under: String(prefix.dropFirst(5)), with: playlists) { summary.playlistsChanged = true }
        // CUE sheets' tracks are songs; an image they stand for is not (as MPD lists them).
        let sheets = found.filter { CueSheet.isSheetName($0.path) }
        var files = found.filter { !CueSheet.isSheetName($0.path) }
        let cue = CueTracks(sheets: sheets, audio: files, known: known, rereading: rereadingUnchanged)
        if !cue.images.isEmpty { files.removeAll { cue.images.contains($0.path) } }
        seen.formUnion(cue.unchanged)
        seen.formUnion(cue.inputs.map(\.key))
        inputs += cue.inputs
        summary.skipped += cue.unchanged.count
        summary.failed += cue.failed
        summary.problems += cue.problems
        for (index, file) in files.enumerated() {
            let key = "file:" + file.path
            seen.insert(key)
            // Unchanged audio is skipped unless its sibling .lrc came or went.
            if !rereadingUnchanged, let stamp = known[key], stamp.size == file.size, stamp.mtime == file.mtime,
               stamp.lyricsPath == file.lyricsPath ?? "" {
                summary.skipped += 1
                continue
            }
            do {
                inputs.append(try Self.songInput(for: file, key: key))
            } catch {
                summary.failed += 1
                summary.problems.append("\(error)")
            }
            progress?(Double(index + 1) / Double(max(files.count, 1)) * 0.9)
        }
        let vanished = known.keys.filter { !seen.contains($0) }
        // Nothing changed: no write transaction at all.
        if inputs.isEmpty && vanished.isEmpty {
            progress?(1)
            return summary
        }
        summary = try applyFolderScan(inputs, removing: vanished, into: summary)
        progress?(1)
        return summary
    }

    struct ScannedFile {
        let path: String
        let size: Int64
        let mtime: Int64
        /// The sibling NAME.lrc (or NAME.LRC), if there is one.
        var lyricsPath: String?
    }

    /// Every regular audio file (by suffix) and CUE sheet under `root`, sorted by path, with size and mtime from one lstat each
    /// and sibling lyrics from the names the walk saw: no per-file lookups beyond that; and the playlist
    /// files beside them. Symbolic links are neither followed into folders nor taken as songs. Names an
    /// `.mpdignore` in force matches are passed over, as MPD passes them.
    static func audioFiles(under root: String, ignoring: IgnoreList = IgnoreList())
        -> (files: [ScannedFile], playlists: [FolderPlaylistFile]) {
        var files: [ScannedFile] = []
        var playlists: [FolderPlaylistFile] = []
        var lyrics = Set<String>()
        var folders = [(root.hasSuffix("/") ? String(root.dropLast()) : root, ignoring)]
        while let (folder, inherited) = folders.popLast() {
            guard let dir = opendir(folder.isEmpty ? "/" : folder) else { continue }
            defer { closedir(dir) }
            let ignoring = inherited.adding(folder: folder)
            while let entry = readdir(dir) {
                let name = withUnsafePointer(to: &entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                if name == "." || name == ".." || ignoring.ignores(name) { continue }
                let path = folder + "/" + name
                var type = entry.pointee.d_type
                let isAudio = LibraryFolder.isSongFileName(name) || CueSheet.isSheetName(name)
                let isPlaylist = !isAudio && FolderPlaylists.isPlaylistFileName(name)
                var info = stat()
                if type == UInt8(DT_UNKNOWN) || ((isAudio || isPlaylist) && type == UInt8(DT_REG)) {
                    guard fstatat(dirfd(dir), name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                    switch info.st_mode & S_IFMT {
                    case S_IFDIR: type = UInt8(DT_DIR)
                    case S_IFREG: type = UInt8(DT_REG)
                    case S_IFLNK: type = UInt8(DT_LNK)
                    default: continue
                    }
                }
                if type == UInt8(DT_DIR) {
                    folders.append((path, ignoring))
                } else if isPlaylist {
                    guard type == UInt8(DT_REG) else { continue }
                    playlists.append(FolderPlaylistFile(path: path, mtime: Int64(info.st_mtim.tv_sec)))
                } else if isAudio {
                    guard type == UInt8(DT_REG) else { continue }
                    files.append(ScannedFile(path: path, size: Int64(info.st_size), mtime: Int64(info.st_mtim.tv_sec)))
                } else if name.hasSuffix(".lrc") || name.hasSuffix(".LRC") {
                    // A regular file, or a link to one; a FIFO named like lyrics would hold whoever reads it.
                    guard type == UInt8(DT_REG) || type == UInt8(DT_LNK) && (try? RegularFile.check(path)) != nil else { continue }
                    lyrics.insert(path)
                }
            }
        }
        for i in files.indices {
            let path = files[i].path
            let base = path.lastIndex(of: ".").map { String(path[..<$0]) } ?? path
            files[i].lyricsPath = [base + ".lrc", base + ".LRC"].first(where: lyrics.contains)
        }
        return (files.sorted { $0.path < $1.path }, playlists)
    }

    /// `name` ends in `ext` (lower-case ASCII, in any case) after at least one other character.
    private static func hasExtension(_ name: String, _ ext: String) -> Bool {
        let bytes = name.utf8
        guard bytes.count > ext.utf8.count else { return false }
        return bytes.suffix(ext.utf8.count).map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }.elementsEqual(ext.utf8)
    }

    static func songInput(for file: ScannedFile, key: String) throws -> SongInput {
        try songInput(for: file, key: key, info: try AudioDecoders.probe(path: file.path))
    }

    static func songInput(for file: ScannedFile, key: String, info: TrackInfo) -> SongInput {
        let url = URL(fileURLWithPath: file.path)
        let baseName = url.deletingPathExtension().lastPathComponent
        // The prompt names an untagged song by its file and "Unknown"; `untagged` keeps these out of MPD's records.
        let title = info.tags.title.flatMap { $0.isEmpty ? nil : $0 }
        let singer = info.tags.artist.flatMap { $0.isEmpty ? nil : $0 }
        var input = SongInput(key: key, title: title ?? baseName, singer: singer ?? "Unknown")
        if title == nil { input.untagged.insert(.title) }
        if singer == nil { input.untagged.insert(.artist) }
        input.album = info.tags.album.flatMap { $0.isEmpty ? nil : $0 }
        input.track = info.tags.track
        input.year = info.tags.year
        if info.tags.artists.count > 1 { input.artists = info.tags.artists }
        input.albumArtist = info.tags.albumArtist
        input.genres = info.tags.genres
        input.disc = info.tags.disc
        input.date = info.tags.date
        input.moreTags = moreTags(of: info.tags)
        input.hasCueSheet = info.tags.hasCueSheet
        input.sampleRate = info.format.sampleRate
        input.channels = info.format.channels
        input.sampleFormat = info.format.sample == .float32 ? "f" : "\(info.format.bits)"
        input.durationMs = info.durationMs
        input.localPath = file.path
        input.lyricsPath = file.lyricsPath ?? ""
        input.size = file.size
        input.fileMtime = file.mtime
        return input
    }

    /// The tags without a field of their own, under the catalogue's tag names; those MPD has no name
    /// for (TitleSort) are left out.
    static func moreTags(of tags: TrackTags) -> [SongTag: [String]] {
        var more: [SongTag: [String]] = [:]
        if !tags.composers.isEmpty { more[.composer] = tags.composers }
        if !tags.performers.isEmpty { more[.performer] = tags.performers }
        for (name, id) in tags.musicBrainz { if let tag = SongTag(name) { more[tag] = [id] } }
        for (name, values) in tags.more { if let tag = SongTag(name) { more[tag] = values } }
        return more
    }
}

extension LibraryFolder {
    /// True when a folder scan takes a file of this name as a song: its suffix is one some decoder reads.
    package static func isSongFileName(_ path: String) -> Bool {
        AudioDecoders.hasAudioSuffix(path)
    }
}
