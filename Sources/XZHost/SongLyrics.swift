import Foundation
import XZAudio
import XZCatalogue

/// Where a song's lyrics are: its recorded LRC file, else `NAME.lrc` beside the audio, else the MP3's own tag.
public enum SongLyrics: Equatable, Sendable {
    case file(String)
    case embedded(String)

    public static func locate(for song: Song) -> SongLyrics? {
        if let file = lrcFile(for: song) { return .file(file) }
        guard !song.localPath.isEmpty else { return nil }
        // A file whose tags cannot be read has no lyrics to show; playing it says what is wrong.
        if let text = try? AudioTags.read(path: song.localPath).lyrics, !text.isEmpty { return .embedded(text) }
        return nil
    }

    /// The song's LRC file: the recorded one, else `NAME.lrc` beside the audio. Looks at names only,
    /// never inside the audio, so a queue of thousands is made without opening their files.
    public static func lrcFile(for song: Song) -> String? {
        let manager = FileManager.default
        if !song.lyricsPath.isEmpty, manager.fileExists(atPath: song.lyricsPath) { return song.lyricsPath }
        guard !song.localPath.isEmpty else { return nil }
        let sibling = URL(fileURLWithPath: song.localPath).deletingPathExtension().appendingPathExtension("lrc").path
        return manager.fileExists(atPath: sibling) ? sibling : nil
    }
}

