import Foundation
import XZAudio
import XZCatalogue
import XZLyrics
import XZPlayback
import XZText

/// A player plus the consumer of its events: inside the REPL events become lines above the prompt;
/// one-shot `play --json` prints them as JSON lines. Hooks let other layers (stats) see every event.
final class PlaybackSession: @unchecked Sendable {
    enum Presentation { case interactive, text, json }

    let player: Player
    private let console: Console
    private let presentation: Presentation
    private let lock = NSLock()
    private var lyricsShown: Bool
    private var observers: [(PlayerEvent) -> Void] = []
    private let drained = DispatchSemaphore(value: 0)

    init(output: OutputSpec, realtime: Bool, console: Console, presentation: Presentation) {
        player = Player(output: output, realtime: realtime)
        self.console = console
        self.presentation = presentation
        lyricsShown = presentation == .interactive && console.stdoutIsTTY
        let events = player.events
        // Printing may block on a slow terminal, so events are consumed off the audio thread.
        Task.detached { [weak self] in
            for await event in events { self?.handle(event) }
            self?.drained.signal()
        }
    }

    var showsLyrics: Bool {
        get { lock.lock(); defer { lock.unlock() }; return lyricsShown }
        set { lock.lock(); lyricsShown = newValue; lock.unlock() }
    }

    func observe(_ observer: @escaping (PlayerEvent) -> Void) {
        lock.lock()
        observers.append(observer)
        lock.unlock()
    }

    /// Stops playback, ends the event stream and waits until every event has been handled.
    func close() {
        player.shutdown()
        drained.wait()
    }

    private func handle(_ event: PlayerEvent) {
        lock.lock()
        let observers = self.observers
        let lyrics = lyricsShown
        lock.unlock()
        for observer in observers { observer(event) }
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
        case .position, .paused, .resumed, .seeked, .ended:
            return nil
        }
    }

    static func json(_ event: PlayerEvent) -> String? {
        var line = ""
        let json = JSONWriter(chunkSize: .max) { line += $0 }
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
        case .ended(let item, let reason, let position):
            put("event", "ended"); put("song", item.songId); put("reason", reason.rawValue); put("position_ms", position)
        case .error(let file, let message): put("event", "error"); put("file", file); put("message", message)
        case .lyric(_, let time, let position, let text):
            put("event", "lyric"); put("time_ms", time); put("position_ms", position); put("text", text)
        case .notice, .queueFinished:
            return nil
        }
        json.end()
        json.finish()
        return line
    }
}

extension CommandContext {
    /// The REPL's player, created on first use. `XZMUSIC_OUTPUT` picks its output (default: the sound card).
    func playbackSession() throws -> PlaybackSession {
        if let session = playback { return session }
        guard isInteractive else { throw CommandError("nothing is playing: this command works inside the xzmusic prompt") }
        let spec = try OutputSpec(parsing: ProcessInfo.processInfo.environment["XZMUSIC_OUTPUT"] ?? "default")
        let session = PlaybackSession(output: spec, realtime: false, console: console, presentation: .interactive)
        playback = session
        startRecording(session)
        return session
    }

    /// Queue items for SONG arguments: catalogue songs that are offline, or audio files.
    func queueItems(for arguments: [String]) throws -> [QueueItem] {
        try arguments.map { argument in
            let reference = SongReference(argument, interactive: isInteractive)
            if case .file(let path) = reference {
                let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
                let lyrics = URL(fileURLWithPath: absolute).deletingPathExtension().appendingPathExtension("lrc").path
                let tags = try? MP3Probe.readTags(path: absolute)
                let title = tags?.title.flatMap { $0.isEmpty ? nil : $0 }
                    ?? URL(fileURLWithPath: absolute).deletingPathExtension().lastPathComponent
                return QueueItem(path: absolute, title: title, singer: tags?.artist ?? "",
                                 lyricsPath: FileManager.default.fileExists(atPath: lyrics) ? lyrics : nil)
            }
            let song = try reference.resolve(in: self)
            guard song.isLocal else {
                throw CommandError("\(song.title.safe) — \(song.singer.safe) is not offline yet (download it first)")
            }
            var lyricsPath: String?
            if case .file(let lrc) = SongLyrics.locate(for: song) { lyricsPath = lrc }
            return QueueItem(songId: song.id, songKey: song.songKey, path: song.localPath, title: song.title,
                             singer: song.singer, durationMs: song.durationMs, lyricsPath: lyricsPath,
                             lyricsAdjustmentMs: (try? database.lyricsAdjustment(songKey: song.songKey)) ?? 0)
        }
    }
}
