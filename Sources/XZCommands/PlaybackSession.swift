import Foundation
import XZSystem
import XZText
import XZHostCore
import XZHostAssembly
import XZPlaybackValues

/// How a host of this process shows its events: inside the REPL they become lines above the prompt;
/// one-shot `play` prints them as lines, `play --json` as JSON lines (its notes on stderr).
final class PlaybackSession: LyricLinesSwitch {
    enum Presentation { case interactive, text, json }

    private let console: Console
    private let presentation: Presentation
    private let lyricsShown: Mutex<Bool>

    init(console: Console, presentation: Presentation) {
        self.console = console
        self.presentation = presentation
        lyricsShown = Mutex(presentation == .interactive && console.stdoutIsTTY)
    }

    var showsLyrics: Bool {
        get { lyricsShown.withLock { $0 } }
        set { lyricsShown.withLock { $0 = newValue } }
    }

    func handle(_ event: PlayerEvent) {
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
            return "▶ \(item.shownTitle) [\(DurationText.clock(ms: duration))]"
        case .error(let file, let message):
            return "error: \(file.safe): \(message.safe)"
        case .notice(let text):
            return "note: \(text.safe)"
        case .lyric(_, _, _, let text):
            return lyrics ? lyricLine(text) : nil
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

    /// A lyric line as the prompt shows it; none for a blank one, which only ends the line before (an
    /// instrumental break): a lone ♪ says nothing.
    static func lyricLine(_ text: String) -> String? {
        text.allSatisfy(\.isWhitespace) ? nil : "♪ \(text.safe)"
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
    /// Starts this library's host in this process, its events and notes shown by `session`.
    @MainActor func startHost(_ configuration: HostConfiguration, listening: LibraryHost.Listening,
                              showing session: PlaybackSession) async throws -> LibraryHost {
        // One download manager in this process: the player's streams and the download queue share it.
        let host = try await LibraryHost.start(configuration, library: folder, database: database, listening: listening,
                                               downloads: downloads.managerForHost,
                                               events: session.handle, notes: { session.handle(.notice($0)) })
        downloads.share(host.downloads, in: self)
        return host
    }

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
            guard song.isLocal || !Self.leadsNowhere(song.audioURL) else {
                throw CommandError.notOffline("\(song.title.safe) — \(song.singer.safe) is a demo entry with no audio; "
                    + "'search xzmusic demo' lists the songs that play")
            }
            return .song(song)
        }
    }

    /// A URL on a host under `.invalid`, which never resolves (RFC 6761): the demo catalogue's made-up entries.
    private static func leadsNowhere(_ url: String) -> Bool {
        guard let host = URLComponents(string: url)?.host?.lowercased() else { return false }
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        return name == "invalid" || name.hasSuffix(".invalid")
    }
}
