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

/// What a user or client names to play: every way into the queue goes through `QueueItem(_:database:)`.
public enum Playable: Sendable, Equatable {
    /// A catalogue song: its local file, else its audio URL as it downloads.
    case song(Song)
    /// Any audio file, by absolute path.
    case file(String)
    /// An http(s) URL: the catalogue song with that audio URL, else a stream of its own.
    case stream(String)
}

extension QueueItem {
    /// The one place a queue item is made from what was named.
    public init(_ playable: Playable, database: LibraryDatabase) {
        switch playable {
        case .song(let song): self.init(playing: song, database: database)
        case .file(let path): self.init(file: path, database: database)
        case .stream(let url):
            // A lookup failure plays the URL as a stream of its own, untagged: nothing is lost but its tags.
            if let song = try? database.song(audioURL: url) {
                self.init(playing: song, database: database)
            } else {
                self.init(url: url)
            }
        }
    }

    /// A catalogue song that has a local file, with its lyrics, the user's lyric shift and a loudness scan's gains.
    init(song: Song, database: LibraryDatabase) {
        var lyricsPath: String?
        if case .file(let lrc) = SongLyrics.locate(for: song) { lyricsPath = lrc }
        self.init(songId: song.id, songKey: song.songKey, path: song.localPath, title: song.title, singer: song.singer,
                  album: song.album, track: song.track, year: song.year, durationMs: song.durationMs, lyricsPath: lyricsPath,
                  // Without the stored shift or gains the song still plays, as if none had been set.
                  lyricsAdjustmentMs: (try? database.lyricsAdjustment(songKey: song.songKey)) ?? 0,
                  replayGain: (try? database.measuredLoudness(for: song))?.replayGain)
    }

    /// A catalogue song from its local file, or from its audio URL as it downloads when it has none.
    init(playing song: Song, database: LibraryDatabase) {
        self.init(song: song, database: database)
        if !song.isLocal { path = song.audioURL }
    }

    /// A URL outside the catalogue, named by its last path component until its tags are read.
    init(url: String) {
        let name = URL(string: url).map { $0.deletingPathExtension().lastPathComponent } ?? ""
        self.init(path: url, title: name.isEmpty ? url : name.removingPercentEncoding ?? name)
    }

    /// Any audio file: its catalogue entry when it has one, else what its tags say (the file name as title).
    init(file path: String, database: LibraryDatabase) {
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

extension LoudnessRecord {
    /// A loudness scan's measurement as the gains a file's tags would carry.
    var replayGain: ReplayGainTags {
        ReplayGainTags(trackGain: trackGain, trackPeak: trackPeak, albumGain: albumGain, albumPeak: albumPeak)
    }
}
