import Foundation
import XZAudio
import XZCatalogue

/// Where a song's lyrics are: its recorded LRC file, else `NAME.lrc` beside the audio, else the MP3's own tag.
package enum SongLyrics: Equatable, Sendable {
    case file(String)
    case embedded(String)

    package static func locate(for song: Song) -> SongLyrics? {
        if let file = lrcFile(for: song) { return .file(file) }
        guard !song.localPath.isEmpty else { return nil }
        // A file whose tags cannot be read has no lyrics to show; playing it says what is wrong.
        if let text = try? AudioTags.read(path: song.localPath).lyrics, !text.isEmpty { return .embedded(text) }
        return nil
    }

    /// The song's LRC file: the recorded one, else `NAME.lrc` beside the audio. Looks at names only,
    /// never inside the audio, so a queue of thousands is made without opening their files.
    package static func lrcFile(for song: Song) -> String? {
        let manager = FileManager.default
        if !song.lyricsPath.isEmpty, manager.fileExists(atPath: song.lyricsPath) { return song.lyricsPath }
        guard !song.localPath.isEmpty else { return nil }
        let sibling = lrcSibling(of: song.localPath)
        return manager.fileExists(atPath: sibling) ? sibling : nil
    }

    /// `NAME.lrc` beside `NAME.EXT`, by the name alone: a queue of thousands builds no URL for each.
    static func lrcSibling(of path: String) -> String {
        let name = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        guard let dot = path[name...].lastIndex(of: "."), dot != name else { return path + ".lrc" }
        return path[..<dot] + ".lrc"
    }
}


extension SongLyrics {
    /// Which lyrics a song has, as `info`, `now` and the `lyrics` sticker tell it: the best of its own
    /// (an LRC file is synced, tags by their time stamps) and those fetched; nil when it has none.
    package static func kind(for song: Song, fetched: FetchedLyrics?) -> FetchedLyricsKind? {
        var own: FetchedLyricsKind?
        switch locate(for: song) {
        case .file: return .synced
        case .embedded(let text): own = LyricStamps.isSynced(text) ? .synced : .plain
        case nil: own = nil
        }
        let candidates = [own, fetched?.kind].compactMap { $0 }
        for kind in [FetchedLyricsKind.synced, .plain, .instrumental] where candidates.contains(kind) { return kind }
        return nil
    }

    /// The same, reading what was fetched from the library; a failed read counts as nothing fetched.
    package static func kind(for song: Song, database: LibraryDatabase) -> FetchedLyricsKind? {
        kind(for: song, fetched: try? database.fetchedLyrics(songKey: song.songKey))
    }
}
