import Foundation
import XZAudio
import XZCatalogue
import XZDownloader
import XZLyrics
import XZPlayback
import XZProtocol
import XZServer
import XZSystem
import XZText
import XZHost

/// A player host in this process plus the presentation of its events: inside the REPL events become
/// lines above the prompt; one-shot `play --json` prints them as JSON lines.
final class PlaybackSession: LyricLinesSwitch {
    enum Presentation { case interactive, text, json }

    let host: PlayerHost
    /// Fetches what the player streams; shut down with the session.
    private let downloads: DownloadManager?
    var player: Player { host.player }
    private let console: Console
    private let presentation: Presentation
    private let lyricsShown: Mutex<Bool>

    /// `keepURLs`: plain URLs played here are kept in the library too (`play --keep`).
    convenience init(folder: LibraryFolder, database: LibraryDatabase, output: OutputSpec, realtime: Bool,
                     musicDirectory: URL = SongNaming.defaultMusicDirectory(), console: Console, presentation: Presentation,
                     keepURLs: Bool = false) {
        // A config file the downloader cannot read must not stop playing files: its defaults stream.
        let settings = (try? DownloadSettings.load()) ?? DownloadSettings()
        let downloads = DownloadManager(database: database, library: folder, settings: settings)
        let host = PlayerHost(folder: folder, database: database, output: output, realtime: realtime,
                              musicDirectory: musicDirectory,
                              streams: Self.streamOpener(downloads, database: database, cache: settings.onlineCache,
                                                         keepURLs: keepURLs)) { message in
            console.announce("note: \(message)")
        }
        host.player.prebufferSeconds = settings.prebufferSeconds
        do {
            host.player.replayGain = try ReplayGainSettings(config: ConfigFile.load())
        } catch {
            console.announce("note: \(error); ReplayGain stays off")
        }
        do {
            host.player.crossfade = try host.player.crossfade.reading(ConfigFile.load())
        } catch {
            console.announce("note: \(error); crossfade keys ignored")
        }
        self.init(host: host, console: console, presentation: presentation, downloads: downloads)
    }

    init(host: PlayerHost, console: Console, presentation: Presentation, downloads: DownloadManager? = nil) {
        self.host = host
        self.downloads = downloads
        self.console = console
        self.presentation = presentation
        lyricsShown = Mutex(presentation == .interactive && console.stdoutIsTTY)
        host.observe { [weak self] event in self?.handle(event) }
    }

    var showsLyrics: Bool {
        get { lyricsShown.withLock { $0 } }
        set { lyricsShown.withLock { $0 = newValue } }
    }

    /// Stops playback (the play session saved as ended by leaving) once every event has been handled.
    /// For a program about to leave at once; downloads the player started are left to the next run.
    func stopPlaying() {
        host.shutdown()
    }

    /// Stops playback, then lets streams worth keeping land in the library before the downloader stops.
    /// On the main actor: the host's shutdown blocks until its events are handled.
    @MainActor func close() async {
        host.shutdown()
        guard let downloads else { return }
        await downloads.finishKeptStreams()
        await downloads.finishWholeStreams()
        await downloads.shutdown()
    }

    /// Catalogue songs stream through their download (kept as the offline copy unless `cache` is none);
    /// other URLs stream without being kept, unless `keepURLs`.
    static func streamOpener(_ downloads: DownloadManager, database: LibraryDatabase, cache: OnlineCache,
                             keepURLs: Bool) -> StreamOpener {
        { item in
            // A song the catalogue cannot look up now streams as a plain URL: played, not kept.
            if item.songKey != nil, let song = try? database.song(audioURL: item.path) {
                return try downloads.openStream(song: song, cache: cache)
            }
            return try downloads.openStream(url: item.path, keep: keepURLs)
        }
    }

    private func handle(_ event: PlayerEvent) {
        let lyrics = showsLyrics
        switch presentation {
        case .json:
            if let line = Self.json(event) { console.line(line) }
            if case .notice(let text) = event { console.error("xzmusic: \(text.safe)") }
        case .text, .interactive:
            if let line = Self.text(event, lyrics: lyrics) {
                presentation == .interactive ? console.announce(line) : console.line(line)
            }
        }
    }

    static func text(_ event: PlayerEvent, lyrics: Bool) -> String? {
        switch event {
        case .started(let item, let duration):
            let who = item.singer.isEmpty ? "" : " — \(item.singer.safe)"
            return "▶ \(item.title.safe)\(who) [\(DurationText.clock(ms: duration))]"
        case .error(let file, let message):
            return "error: \(file.safe): \(message.safe)"
        case .notice(let text):
            return "note: \(text.safe)"
        case .lyric(_, _, _, let text):
            return lyrics ? "♪ \(text.safe)" : nil
        case .queueFinished:
            return "■ queue finished"
        case .queueUnplayable:
            return "■ stopped: no song in the queue could be played"
        case .buffering:
            return "… buffering"
        case .position, .paused, .resumed, .seeked, .ended, .buffered, .changed:
            return nil
        }
    }

    static func json(_ event: PlayerEvent) -> String? {
        var line = ""
        let json = StreamingJSONEncoder(chunkSize: .max) { line += $0 }
        func put(_ key: String, _ value: String) { json.key(key); json.string(value) }
        func put<N: BinaryInteger>(_ key: String, _ value: N?) {
            json.key(key)
            if let value { json.int(value) } else { json.null() }
        }
        json.beginObject()
        switch event {
        case .started(let item, let duration):
            put("event", "started"); put("song", item.songId); put("title", item.title); put("singer", item.singer)
            put("path", item.path); put("duration_ms", duration)
        case .position(let ms): put("event", "position"); put("position_ms", ms)
        case .paused(let ms): put("event", "paused"); put("position_ms", ms)
        case .resumed(let ms): put("event", "resumed"); put("position_ms", ms)
        case .seeked(let ms): put("event", "seeked"); put("position_ms", ms)
        case .buffering(let ms): put("event", "buffering"); put("position_ms", ms)
        case .buffered(let ms): put("event", "buffered"); put("position_ms", ms)
        case .ended(let item, let reason, let position):
            put("event", "ended"); put("song", item.songId); put("reason", reason.rawValue); put("position_ms", position)
        case .error(let file, let message): put("event", "error"); put("file", file); put("message", message)
        case .lyric(_, let time, let position, let text):
            put("event", "lyric"); put("time_ms", time); put("position_ms", position); put("text", text)
        case .queueUnplayable: put("event", "queue_unplayable")
        case .notice, .queueFinished, .changed:
            return nil
        }
        json.end()
        json.finish()
        return line
    }
}


extension CommandContext {
    /// Files for SONG arguments: catalogue songs (their audio URL when not offline), audio files, or URLs.
    func playables(for arguments: [String]) throws -> [Playable] {
        try arguments.map { argument in
            let trimmed = argument.trimmingCharacters(in: .whitespaces)
            if QueueItem.isStreamURL(trimmed) { return .stream(trimmed) }
            let reference = SongReference(argument, listing: lastListing)
            if case .file(let path) = reference { return .file(URL(fileURLWithPath: path).standardizedFileURL.path) }
            let song = try reference.resolve(in: self)
            // Not offline: it plays from its URL as it downloads.
            guard song.isLocal || !song.audioURL.isEmpty else {
                throw CommandError.notOffline("\(song.title.safe) — \(song.singer.safe) is not offline and has no audio URL to play from")
            }
            return .song(song)
        }
    }
}
