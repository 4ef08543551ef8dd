import Foundation
import XZAudio
import XZCatalogue
import XZPlaybackValues

/// What a user or client names to play: every way into the queue goes through `QueueItem(_:database:)`.
package enum Playable: Sendable, Equatable {
    /// A catalogue song: its local file, else its audio URL as it downloads.
    case song(Song)
    /// Any audio file, by absolute path.
    case file(String)
    /// An http(s) URL: the catalogue song with that audio URL, else a stream of its own.
    case stream(String)
}

extension Playable {
    /// A song as a host names it (`currentsong`, `playlistinfo`), as this library plays it: the file its name
    /// stands for in the host's music folder or this library, a stream's URL as a stream. A name this library
    /// cannot place is kept as the host gave it.
    package init(hostURI uri: String, naming: SongNaming, catalogue: LibraryDatabase) {
        let path = QueueItem.isStreamURL(uri) ? uri : (try? naming.locate(uri, allowAbsolute: true, catalogue: catalogue).path) ?? uri
        self = QueueItem.isStreamURL(path) ? .stream(path) : .file(path)
    }
}

extension Playable {
    /// What the same thing named twice shares.
    fileprivate enum Identity: Hashable {
        case song(Int64), file(String), stream(String)
    }

    fileprivate var identity: Identity {
        switch self {
        case .song(let song): .song(song.id)
        case .file(let path): .file(path)
        case .stream(let url): .stream(url)
        }
    }
}

extension QueueItem {
    /// The one place queue items are made from what was named: the catalogue's lyric shifts and
    /// loudness of all the songs are read at once.
    package static func items(_ playables: [Playable], database: LibraryDatabase) -> [QueueItem] {
        // A list that names one song many times (a command list's adds) makes its item once.
        var slots: [Playable.Identity: Int] = [:]
        var unique: [Playable] = []
        let picks = playables.map { playable in
            let key = playable.identity
            if let slot = slots[key] { return slot }
            slots[key] = unique.count
            unique.append(playable)
            return unique.count - 1
        }
        if unique.count < playables.count {
            let made = items(unique, database: database)
            return picks.map { made[$0] }
        }
        // A file of the catalogue is its song; all are looked up at once. Unreadable, the files' own
        // tags name them.
        let files = playables.compactMap { playable -> String? in
            if case .file(let path) = playable { return URL(fileURLWithPath: path).standardizedFileURL.path }
            return nil
        }
        let catalogued = files.isEmpty ? [:] : (try? database.songs(localPaths: files)) ?? [:]
        let resolved = playables.map { playable -> Playable in
            guard case .file(let path) = playable,
                  let song = catalogued[URL(fileURLWithPath: path).standardizedFileURL.path] else { return playable }
            return .song(song)
        }
        let keys = Array(Set(resolved.compactMap { playable -> String? in
            if case .song(let song) = playable { return song.songKey }
            return nil
        }))
        // Without the stored shifts or gains the songs still play, as if none had been set.
        let shifts = keys.isEmpty ? [:] : (try? database.lyricsAdjustments(songKeys: keys)) ?? [:]
        let loudness = keys.isEmpty ? [:] : (try? database.loudnessRecords(songKeys: keys)) ?? [:]
        // Unreadable, fetched lyrics are not shown; the songs play.
        let fetched = keys.isEmpty ? [:] : (try? database.fetchedLyrics(songKeys: keys)) ?? [:]
        return resolved.map { playable in
            switch playable {
            case .song(let song):
                var item = QueueItem(playing: song, lyricsShiftMs: shifts[song.songKey] ?? 0,
                                     loudness: loudness[song.songKey].flatMap { $0.measures(path: song.localPath) ? $0 : nil })
                if item.lyricsPath == nil, let lyrics = fetched[song.songKey], lyrics.kind == .synced { item.lyricsText = lyrics.text }
                return item
            case .file(let path): return QueueItem(uncatalogued: path)
            case .stream(let url): return QueueItem(stream: url, database: database)
            }
        }
    }

    package init(_ playable: Playable, database: LibraryDatabase) {
        self = Self.items([playable], database: database)[0]
    }

    /// A catalogue song from its local file, else from its audio URL as it downloads, with its LRC file,
    /// the user's lyric shift and a loudness scan's gains.
    private init(playing song: Song, lyricsShiftMs: Int, loudness: LoudnessRecord?) {
        self.init(songId: song.id, songKey: song.songKey, path: song.isLocal ? song.localPath : song.audioURL,
                  title: song.title, singer: song.singer, album: song.album, track: song.track, year: song.year,
                  durationMs: song.durationMs, lyricsPath: SongLyrics.lrcFile(for: song),
                  lyricsAdjustmentMs: lyricsShiftMs, replayGain: song.isLocal ? loudness?.replayGain : nil)
        // A CUE sheet's track plays its part of the image, to the sample.
        if let part = song.cuePart {
            audioFile = part.file
            let part = PlayRange(cdFrames: PlayRange.CDFrames(start: part.startFrame, end: part.endFrame))
            range = part
            // The queue's length is the whole file's, of which the range is a part.
            durationMs = song.durationMs.map { part.startMs + $0 }
        }
    }

    /// The catalogue song with that audio URL, else a stream of its own.
    private init(stream url: String, database: LibraryDatabase) {
        // A lookup failure plays the URL untagged: nothing is lost but its tags.
        if let song = try? database.song(audioURL: url) {
            self.init(.song(song), database: database)
        } else {
            self.init(url: url)
        }
    }

    /// A URL outside the catalogue: untitled until it says its own title (a station's ICY title, its
    /// stream's tags), as MPD lists it; the prompt shows its URL meanwhile.
    private init(url: String) {
        self.init(path: url)
    }

    /// An audio file the catalogue does not hold (or could not be read): what its tags say (the file
    /// name as title).
    private init(uncatalogued path: String) {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let lyrics = URL(fileURLWithPath: absolute).deletingPathExtension().appendingPathExtension("lrc").path
        // A file no decoder or tag reader takes still gets a queue entry named after it; playing it
        // then says what is wrong.
        let info = try? AudioDecoders.probe(path: absolute)
        let tags = info?.tags ?? (try? AudioTags.read(path: absolute))
        let title = tags?.title.flatMap { $0.isEmpty ? nil : $0 }
            ?? URL(fileURLWithPath: absolute).deletingPathExtension().lastPathComponent
        self.init(path: absolute, title: title, singer: tags?.artist ?? "", album: tags?.album, track: tags?.track,
                  year: tags?.year, durationMs: info?.durationMs, lyricsPath: FileManager.default.fileExists(atPath: lyrics) ? lyrics : nil)
        fileInfo = info
    }
}

extension LoudnessRecord {
    /// A loudness scan's measurement as the gains a file's tags would carry.
    var replayGain: ReplayGainTags {
        ReplayGainTags(trackGain: trackGain, trackPeak: trackPeak, albumGain: albumGain, albumPeak: albumPeak)
    }
}
