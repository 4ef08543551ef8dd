import Foundation
import XZAudio
import XZCatalogue
import XZPlayback

/// Where a song's lyrics are: its recorded LRC file, else `NAME.lrc` beside the audio, else the MP3's own tag.
public enum SongLyrics: Equatable, Sendable {
    case file(String)
    case embedded(String)

    public static func locate(for song: Song) -> SongLyrics? {
        let manager = FileManager.default
        if !song.lyricsPath.isEmpty, manager.fileExists(atPath: song.lyricsPath) { return .file(song.lyricsPath) }
        guard !song.localPath.isEmpty else { return nil }
        let audio = URL(fileURLWithPath: song.localPath)
        let sibling = audio.deletingPathExtension().appendingPathExtension("lrc").path
        if manager.fileExists(atPath: sibling) { return .file(sibling) }
        if let text = try? AudioTags.read(path: song.localPath).lyrics, !text.isEmpty { return .embedded(text) }
        return nil
    }
}

extension QueueItem {
    /// A catalogue song that has a local file, with its lyrics, the user's lyric shift and a loudness scan's gains.
    public init(song: Song, database: LibraryDatabase) {
        var lyricsPath: String?
        if case .file(let lrc) = SongLyrics.locate(for: song) { lyricsPath = lrc }
        self.init(songId: song.id, songKey: song.songKey, path: song.localPath, title: song.title, singer: song.singer,
                  album: song.album, track: song.track, year: song.year, durationMs: song.durationMs, lyricsPath: lyricsPath,
                  lyricsAdjustmentMs: (try? database.lyricsAdjustment(songKey: song.songKey)) ?? 0,
                  replayGain: database.measuredReplayGain(for: song))
    }

    /// A catalogue song from its local file, or from its audio URL as it downloads when it has none.
    public init(playing song: Song, database: LibraryDatabase) {
        self.init(song: song, database: database)
        if !song.isLocal { path = song.audioURL }
    }

    /// A URL outside the catalogue, named by its last path component until its tags are read.
    public init(url: String) {
        let name = URL(string: url).map { $0.deletingPathExtension().lastPathComponent } ?? ""
        self.init(path: url, title: name.isEmpty ? url : name.removingPercentEncoding ?? name)
    }

    /// Any audio file: its catalogue entry when it has one, else what its tags say (the file name as title).
    public init(file path: String, database: LibraryDatabase) {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        if let song = try? database.song(localPath: absolute) {
            self.init(song: song, database: database)
            return
        }
        let lyrics = URL(fileURLWithPath: absolute).deletingPathExtension().appendingPathExtension("lrc").path
        let info = try? AudioDecoders.probe(path: absolute)
        let tags = info?.tags ?? (try? AudioTags.read(path: absolute))
        let title = tags?.title.flatMap { $0.isEmpty ? nil : $0 }
            ?? URL(fileURLWithPath: absolute).deletingPathExtension().lastPathComponent
        self.init(path: absolute, title: title, singer: tags?.artist ?? "", album: tags?.album, track: tags?.track,
                  year: tags?.year, durationMs: info?.durationMs, lyricsPath: FileManager.default.fileExists(atPath: lyrics) ? lyrics : nil)
    }
}
