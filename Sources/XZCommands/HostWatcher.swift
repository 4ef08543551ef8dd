import Foundation
import XZSystem
import XZCatalogue
import XZLyrics
import XZPlayback
import XZProtocol
import XZServer
import XZText
import XZHost

/// What a prompt attached to another host prints above itself: track changes and errors as the host
/// announces them (`idle`), and synced lyric lines that follow the host's position between announcements.
/// Only what happens while attached: the song playing and the error standing when it attaches are known,
/// not announced.
final class HostWatcher: LyricLinesSwitch {
    private let connection: Connection
    private let database: LibraryDatabase
    private let uris: SongNaming
    private let console: Console
    private let state: Mutex<State>

    private struct State {
        var lyricsShown: Bool
        var stopped = false
        /// The host went away (not by `stop()`).
        var hostLeft = false
        /// The first answer only sets what is known.
        var attached = false
        /// The host's state when last asked, and when.
        var songId: String?
        var playing = false
        var positionMs = 0
        var askedAt = Date()
        var lastError: String?
        var timeline: LyricTimeline?
        var lyricLine: Int?
    }

    /// The socket to the host. Unchecked: only the follow thread talks over it; other threads only
    /// disconnect, which MPDClient allows from any thread.
    private struct Connection: @unchecked Sendable {
        let client: MPDClient
    }

    init(client: MPDClient, folder: LibraryFolder, database: LibraryDatabase, musicDirectory: URL, console: Console) {
        connection = Connection(client: client)
        self.database = database
        uris = SongNaming(musicDirectory: musicDirectory, library: folder)
        self.console = console
        state = Mutex(State(lyricsShown: console.stdoutIsTTY))
        Thread.detachNewThread { [self] in follow() }
        Thread.detachNewThread { [self] in tick() }
    }

    var showsLyrics: Bool {
        get { state.withLock { $0.lyricsShown } }
        set { state.withLock { $0.lyricsShown = newValue } }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        connection.client.disconnect()
    }

    private var isStopped: Bool {
        state.withLock { $0.stopped }
    }

    /// The host quit or its connection broke: the prompt needs another.
    var hostLeft: Bool {
        state.withLock { $0.hostLeft }
    }

    /// Asks, announces, waits for the next change; until the host or this prompt goes.
    private func follow() {
        let client = connection.client
        do {
            while !isStopped {
                try refresh()
                try client.sendLine("idle player playlist")
                _ = try client.readResponse()
            }
        } catch {
            let left = state.withLock { state in
                if !state.stopped { state.hostLeft = true }
                return state.hostLeft
            }
            if left { console.announce("note: the xzmusic host has stopped; the next command attaches to a new host or plays here") }
        }
    }

    private func refresh() throws {
        let client = connection.client
        let status = Dictionary(try client.run("status").map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let current = Dictionary(try client.run("currentsong").map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let state = status["state"] ?? "stop"
        let active = state == "play" || state == "pause"
        let announcements = self.state.withLock { known in
            var announcements: [String] = []
            let announcing = known.attached
            known.attached = true
            let newSong = active && (status["songid"] != known.songId || !known.playing && known.songId == nil)
            if newSong, let file = current["file"] {
                // A URI that names no file here (a stream's URL) is shown as the host names it.
                let path = (try? uris.locate(file, allowAbsolute: true, catalogue: database).path) ?? file
                var item = QueueItem(.file(path), database: database)
                // A shift that cannot be read leaves the lyric lines unshifted rather than unannounced.
                if let key = item.songKey { item.lyricsAdjustmentMs = (try? database.lyricsAdjustment(songKey: key)) ?? 0 }
                let duration = status["duration"].flatMap(Double.init).map { Int(clamping: ($0 * 1000).rounded(.down), to: 0...Int.max) }
                if announcing, let line = PlaybackSession.text(.started(item, durationMs: duration), lyrics: false) {
                    announcements.append(line)
                }
                known.timeline = item.lyricsPath.flatMap { RegularFile.contents(atPath: $0, limit: LRCParser.fileLimit) }
                    .map { LyricTimeline(LRCParser.parse(bytes: $0), adjustmentMs: item.lyricsAdjustmentMs) }
                known.lyricLine = nil
            }
            if announcing, let error = status["error"], error != known.lastError { announcements.append("error: \(error.safe)") }
            known.lastError = status["error"]
            known.songId = active ? status["songid"] : nil
            known.playing = state == "play"
            known.positionMs = status["elapsed"].flatMap(Double.init).map { Int(clamping: $0 * 1000, to: 0...Int.max) } ?? 0
            known.askedAt = Date()
            return announcements
        }
        announcements.forEach(console.announce)
    }

    /// Lyric lines as the host's position crosses them, reckoned from the last answer and the clock.
    private func tick() {
        while !isStopped {
            Thread.sleep(forTimeInterval: 0.02)
            let text: String? = state.withLock { known in
                guard known.playing, known.lyricsShown, let timeline = known.timeline else { return nil }
                let position = known.positionMs + Int(Date().timeIntervalSince(known.askedAt) * 1000)
                let index = timeline.lineIndex(at: position)
                let text = index != known.lyricLine ? index.map { timeline.lines[$0].text } : nil
                known.lyricLine = index
                return text
            }
            if let text { console.announce("♪ \(text.safe)") }
        }
    }
}
