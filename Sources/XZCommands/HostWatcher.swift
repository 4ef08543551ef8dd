import Foundation
import XZCatalogue
import XZLyrics
import XZPlayback
import XZProtocol
import XZServer
import XZText
import XZHost

/// What a prompt attached to another host prints above itself: track changes and errors as the host
/// announces them (`idle`), and synced lyric lines that follow the host's position between announcements.
final class HostWatcher: LyricLinesSwitch, @unchecked Sendable {
    private let client: MPDClient
    private let database: LibraryDatabase
    private let uris: SongURIs
    private let console: Console
    private let lock = NSLock()
    private var lyricsShown: Bool
    private var stopped = false
    /// The host's state when last asked, and when.
    private var songId: String?
    private var playing = false
    private var positionMs = 0
    private var askedAt = Date()
    private var lastError: String?
    private var timeline: LyricTimeline?
    private var lyricLine: Int?

    init(client: MPDClient, folder: LibraryFolder, database: LibraryDatabase, musicDirectory: URL, console: Console) {
        self.client = client
        self.database = database
        uris = SongURIs(musicDirectory: musicDirectory, library: folder)
        self.console = console
        lyricsShown = console.stdoutIsTTY
        Thread.detachNewThread { [self] in follow() }
        Thread.detachNewThread { [self] in tick() }
    }

    var showsLyrics: Bool {
        get { lock.lock(); defer { lock.unlock() }; return lyricsShown }
        set { lock.lock(); lyricsShown = newValue; lock.unlock() }
    }

    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
        client.disconnect()
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    /// Asks, announces, waits for the next change; until the host or this prompt goes.
    private func follow() {
        do {
            while !isStopped {
                try refresh()
                try client.sendLine("idle player playlist")
                _ = try client.readResponse()
            }
        } catch {
            if !isStopped { console.announce("note: the xzmusic host has stopped") }
        }
    }

    private func refresh() throws {
        let status = Dictionary(try client.run("status").map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let current = Dictionary(try client.run("currentsong").map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let state = status["state"] ?? "stop"
        let active = state == "play" || state == "pause"
        var announcements: [String] = []
        lock.lock()
        let newSong = active && (status["songid"] != songId || !playing && songId == nil)
        if newSong, let file = current["file"] {
            let path = (try? uris.path(forURI: file, allowAbsolute: true)) ?? file
            var item = QueueItem(.file(path), database: database)
            if let key = item.songKey { item.lyricsAdjustmentMs = (try? database.lyricsAdjustment(songKey: key)) ?? 0 }
            let duration = status["duration"].flatMap(Double.init).map { Int($0 * 1000) }
            if let line = PlaybackSession.text(.started(item, durationMs: duration), lyrics: false) { announcements.append(line) }
            timeline = item.lyricsPath.flatMap { FileManager.default.contents(atPath: $0) }
                .map { LyricTimeline(LRCParser.parse(bytes: [UInt8]($0)), adjustmentMs: item.lyricsAdjustmentMs) }
            lyricLine = nil
        }
        if let error = status["error"], error != lastError { announcements.append("error: \(error.safe)") }
        lastError = status["error"]
        songId = active ? status["songid"] : nil
        playing = state == "play"
        positionMs = status["elapsed"].flatMap(Double.init).map { Int(($0 * 1000).rounded()) } ?? 0
        askedAt = Date()
        lock.unlock()
        announcements.forEach(console.announce)
    }

    /// Lyric lines as the host's position crosses them, reckoned from the last answer and the clock.
    private func tick() {
        while !isStopped {
            Thread.sleep(forTimeInterval: 0.02)
            lock.lock()
            guard playing, lyricsShown, let timeline else {
                lock.unlock()
                continue
            }
            let position = positionMs + Int(Date().timeIntervalSince(askedAt) * 1000)
            let index = timeline.lineIndex(at: position)
            let text = index != lyricLine ? index.map { timeline.lines[$0].text } : nil
            lyricLine = index
            lock.unlock()
            if let text { console.announce("♪ \(text.safe)") }
        }
    }
}
