import Foundation
import XZAudio
import XZCatalogue

/// CUE sheets in a folder scan, as MPD's cue playlist plugin lists them (`as_directory`): each audio track
/// of `album.cue` is a song `album.cue/track0001` ..., a part of its image; the image itself is no song of
/// the listings while a sheet's tracks stand for it.
struct CueTracks {
    /// The sheets' track songs, by key.
    var inputs: [SongInput] = []
    /// Keys of tracks unchanged since the last scan.
    var unchanged: [String] = []
    /// Images whose tracks stand for them: not songs of their own.
    var images: Set<String> = []
    /// One line per sheet that could not be read, or whose lines or tracks were left out.
    var problems: [String] = []
    var failed = 0

    /// `track0001`: MPD's name of a sheet's Nth song.
    static func trackName(_ number: Int) -> String {
        let digits = String(number)
        return "track" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Reads every sheet among `files`: `known` tells which tracks are unchanged (same stamp as their
    /// sheet and image now), so their image is not read again unless `rereading`.
    init(sheets: [LibraryDatabase.ScannedFile], audio: [LibraryDatabase.ScannedFile],
         known: [String: LibraryDatabase.FileStamp], rereading: Bool) {
        let audioByPath = Dictionary(audio.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        var probed: [String: Result<TrackInfo, Error>] = [:]
        for sheetFile in sheets {
            let folder = (sheetFile.path as NSString).deletingLastPathComponent
            let sheet: CueSheet
            do {
                sheet = try CueSheet.read(path: sheetFile.path)
            } catch {
                failed += 1
                problems.append("\(sheetFile.path): \(error)")
                continue
            }
            var notes: [String] = []
            if sheet.skippedLines > 0 {
                notes.append("\(sheet.skippedLines) line\(sheet.skippedLines == 1 ? "" : "s") skipped (\(sheet.firstSkipped ?? ""))")
            }
            var missing = Set<String>()
            var made: [SongInput] = []
            var madeUnchanged: [String] = []
            var usedImages = Set<String>()
            for (index, track) in sheet.tracks.enumerated() {
                // A FILE names a file beside the sheet, or below it; never one elsewhere.
                let parts = track.file.split(separator: "/")
                guard !track.file.hasPrefix("/"), !parts.isEmpty, !parts.contains(where: { $0 == ".." || $0 == "." }),
                      let image = audioByPath[folder + "/" + parts.joined(separator: "/")] else {
                    missing.insert(track.file)
                    continue
                }
                let path = sheetFile.path + "/" + Self.trackName(index + 1)
                let key = "file:" + path
                let stamp = (size: image.size, mtime: max(image.mtime, sheetFile.mtime))
                usedImages.insert(image.path)
                if !rereading, let old = known[key], old.size == stamp.size, old.mtime == stamp.mtime {
                    madeUnchanged.append(key)
                    continue
                }
                let info: TrackInfo
                switch probed[image.path] ?? Result(catching: { try AudioDecoders.probe(path: image.path) }) {
                case .success(let value):
                    probed[image.path] = .success(value)
                    info = value
                case .failure(let error):
                    probed[image.path] = .failure(error)
                    missing.insert(track.file)
                    continue
                }
                guard let input = Self.input(track, of: sheet, image: image, info: info, path: path, stamp: stamp) else {
                    notes.append("track \(track.number) starts after the end of \(track.file)")
                    continue
                }
                made.append(input)
            }
            if !missing.isEmpty {
                notes.append("no audio file \(missing.sorted().map { "\"\($0)\"" }.joined(separator: ", "))")
            }
            if sheet.tracks.isEmpty { notes.append("no audio tracks") }
            if !notes.isEmpty { problems.append("\(sheetFile.path): " + notes.joined(separator: "; ")) }
            inputs += made
            unchanged += madeUnchanged
            // An image stands for itself again when none of its tracks could be made.
            if !made.isEmpty || !madeUnchanged.isEmpty { images.formUnion(usedImages) }
        }
    }

    /// A track as a song: the image's tags, with the sheet's in their place where it has them (as MPD
    /// merges them); nil when the track starts at or after the image's end.
    static func input(_ track: CueSheet.Track, of sheet: CueSheet, image: LibraryDatabase.ScannedFile, info: TrackInfo,
                      path: String, stamp: (size: Int64, mtime: Int64)) -> SongInput? {
        var input = LibraryDatabase.songInput(for: image, key: "file:" + path, info: info)
        let startMs = CueSheet.milliseconds(frames: track.startFrame)
        let imageMs = info.durationMs
        guard let endFrame = track.endFrame(inImageOf: imageMs) else { return nil }
        let endMs = endFrame.map(CueSheet.milliseconds) ?? imageMs
        input.durationMs = endMs.map { $0 - startMs }
        input.cuePart = CuePart(file: image.path, startFrame: track.startFrame, endFrame: endFrame)
        input.localPath = path
        input.lyricsPath = ""
        input.hasCueSheet = false
        input.size = stamp.size
        input.fileMtime = stamp.mtime
        // The sheet's names are tags: an image without its own title or artist no longer stands in for them.
        if let title = track.title, !title.isEmpty {
            input.title = title
            input.untagged.remove(.title)
        }
        if let performer = track.performer, !performer.isEmpty {
            input.singer = performer
            input.artists = []
            input.untagged.remove(.artist)
        }
        if let album = sheet.album, !album.isEmpty { input.album = album }
        if let albumArtist = sheet.albumArtist, !albumArtist.isEmpty { input.albumArtist = albumArtist }
        if let genre = sheet.genre, !genre.isEmpty { input.genres = [genre] }
        if let date = sheet.date, !date.isEmpty {
            input.date = date
            input.year = Int(date.prefix(4))
        }
        if let number = Int(track.number), number > 0 { input.track = number }
        // MPD's record: the sheet's tags in its order, then the image's of other kinds. `REM NAME` lines
        // naming another tag (REM COMPOSER) are the track's too, in place of the image's; SONGWRITER is no tag to MPD.
        input.cueTags = track.tags.compactMap { entry in
            SongTag(entry.name).flatMap { SongTags.held.contains($0) && !entry.value.isEmpty ? TagEntry($0, entry.value) : nil }
        }
        var remTags: [SongTag: [String]] = [:]
        for entry in input.cueTags where !MoreTagsColumn.ownColumns.contains(entry.tag) {
            remTags[entry.tag, default: []].append(entry.value)
        }
        input.moreTags.merge(remTags) { _, sheet in sheet }
        input.cueImageMs = imageMs
        return input
    }
}

extension CueSheet {
    /// A file the scan reads as a CUE sheet: `.cue` in any case.
    package static func isSheetName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard bytes.count > 4 else { return false }
        return bytes.suffix(4).map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }.elementsEqual(".cue".utf8)
    }
}
