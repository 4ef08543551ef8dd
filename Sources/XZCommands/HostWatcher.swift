import Foundation
import XZSystem
import XZCatalogue
import XZLyrics
import XZProtocol
import XZHostAssembly
import XZText
import XZHostCore
import XZPlaybackValues

/// What a prompt attached to another host prints above itself: track changes and errors as the host
/// announces them (`idle`), and synced lyric lines that follow the host's position between announcements.
/// Only what happens while attached: the song playing and the error standing when it attaches are known,
/// not announced.
///
/// Two threads, both blocked while nothing happens: one waits in `idle` for the host's next change; the
/// other sleeps until the next lyric line is due, woken early by a change, by `lyrics on|off` or by
/// `stop()`, and without a deadline while nothing plays.
final class HostWatcher: LyricLinesSwitch {
    /// The watcher's own door to the host, in `idle` most of the time; other threads only hang it up.
    private let door: HostDoor
    private let folder: LibraryFolder
    private let database: LibraryDatabase
    private let console: Console
    private let state: Mutex<State>
    /// Wakes the lyric thread to look again; extra signals only cost a look.
    private let wake = DispatchSemaphore(value: 0)

    /// A host that reports changes faster than this is asked at most this often.
    static let minimumRefreshInterval = 0.1

    private struct State {
        var lyricsShown: Bool
        var stopped = false
        /// The host went away (not by `stop()`).
        var hostLeft = false
        /// The first answer only sets what is known.
        var attached = false
        /// The host's state when last asked, and when (monotonic).
        var songId: Int?
        /// What a playing stream said of itself last (`currentsong`), announced when it changes.
        var streamTitle: String?
        var playing = false
        var positionMs = 0
        var askedAt = DispatchTime.now()
        var lastError: String?
        var timeline: LyricTimeline?
        var lyricLine: Int?
    }

    init(door: HostDoor, folder: LibraryFolder, database: LibraryDatabase, console: Console) {
        self.door = door
        self.folder = folder
        self.database = database
        self.console = console
        state = Mutex(State(lyricsShown: console.stdoutIsTTY))
        Self.start("xz-host-follow") { [self] in follow() }
        Self.start("xz-host-lyrics") { [self] in showLyrics() }
    }

    private static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }

    var showsLyrics: Bool {
        get { state.withLock { $0.lyricsShown } }
        set {
            state.withLock { $0.lyricsShown = newValue }
            wake.signal()
        }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
        door.hangUp()
    }

    /// The host quit or its connection broke: the prompt needs another.
    var hostLeft: Bool {
        state.withLock { $0.hostLeft }
    }

    /// Asks, announces, waits in `idle` for the next change; until the host or this prompt goes. A read
    /// that fails (the host gone, or `stop()`) ends it: the connection is never tried again.
    private func follow() {
        do {
            let uris = SongNaming(musicDirectory: try musicDirectory(), library: folder)
            var lastRefresh = DispatchTime(uptimeNanoseconds: 0)
            while !state.withLock({ $0.stopped }) {
                let since = Double(DispatchTime.now().uptimeNanoseconds &- lastRefresh.uptimeNanoseconds) / 1e9
                if since < Self.minimumRefreshInterval { Thread.sleep(forTimeInterval: Self.minimumRefreshInterval - since) }
                lastRefresh = .now()
                try refresh(uris)
                try door.run("idle", ["player", "playlist"])
            }
        } catch {
            let left = state.withLock { state in
                if !state.stopped { state.hostLeft = true }
                state.stopped = true
                return state.hostLeft
            }
            wake.signal()
            if left { console.announce("note: the xzmusic host has stopped; the next command attaches to a new host or plays here") }
        }
    }

    /// How the host names songs: by their path in its music folder.
    private func musicDirectory() throws -> URL {
        do {
            return URL(fileURLWithPath: try door.musicDirectory())
        } catch HostDoor.Failure.refused {
            // A host that keeps its configuration to itself names songs from the default folder.
            return SongNaming.defaultMusicDirectory()
        }
    }

    private func refresh(_ uris: SongNaming) throws {
        let status = try door.status()
        let current = try door.currentSong()
        // Only this thread changes what is known of the host, so it is read here and the song's record and
        // lyrics are looked up outside the lock the lyric thread waits on.
        let (knownSong, wasPlaying) = state.withLock { ($0.songId, $0.playing) }
        let newSong = status.isActive && (status.songId != knownSong || !wasPlaying && knownSong == nil)
        let started: (item: QueueItem, timeline: LyricTimeline?)? = newSong ? current.map { song in
            var item = QueueItem(Playable(hostURI: song.file, naming: uris, catalogue: database), database: database)
            item.takeStreamTags(of: song)
            let timeline = item.lyricsPath.flatMap { RegularFile.contents(atPath: $0, limit: LRCParser.fileLimit) }
                .map { LyricTimeline(LRCParser.parse(bytes: $0), adjustmentMs: item.lyricsAdjustmentMs) }
            return (item, timeline)
        } : nil
        // A station's new title on the same song.
        let streamItem: QueueItem? = status.isActive ? current.flatMap { song in
            guard QueueItem.isStreamURL(song.file), song.title != nil else { return nil }
            var item = QueueItem(path: song.file)
            item.takeStreamTags(of: song)
            return item
        } : nil
        let announcements = state.withLock { known in
            var announcements: [String] = []
            let announcing = known.attached
            known.attached = true
            if let started {
                if announcing, let line = PlaybackSession.text(.started(started.item, durationMs: status.durationMs), lyrics: false) {
                    announcements.append(line)
                }
                known.timeline = started.timeline
                known.lyricLine = nil
            }
            if started == nil, announcing, let streamItem, streamItem.shownTitle != known.streamTitle {
                announcements.append("▶ \(streamItem.shownTitle)")
            }
            known.streamTitle = streamItem?.shownTitle ?? started?.item.shownTitle
            if announcing, let error = status.error, error != known.lastError { announcements.append("error: \(error.safe)") }
            known.lastError = status.error
            known.songId = status.isActive ? status.songId : nil
            known.playing = status.state == .play
            known.positionMs = status.elapsedMs ?? 0
            known.askedAt = .now()
            return announcements
        }
        wake.signal()
        announcements.forEach(console.announce)
    }

    /// Lyric lines as the host's position crosses them, reckoned from the last answer and the clock.
    /// Sleeps until the next line is due; with nothing playing (or lyrics off) until woken.
    private func showLyrics() {
        while true {
            let (text, due, stopped) = state.withLock { known -> (String?, DispatchTime?, Bool) in
                guard !known.stopped else { return (nil, nil, true) }
                guard known.playing, known.lyricsShown, let timeline = known.timeline else { return (nil, nil, false) }
                let elapsed = Int((DispatchTime.now().uptimeNanoseconds &- known.askedAt.uptimeNanoseconds) / 1_000_000)
                let (position, overflow) = known.positionMs.addingReportingOverflow(elapsed)
                guard !overflow else { return (nil, nil, false) }
                let index = timeline.lineIndex(at: position)
                let text = index != known.lyricLine ? index.map { timeline.lines[$0].text } : nil
                known.lyricLine = index
                // The line after the current one starts later than `position` (lineIndex takes the last at or before it).
                let next = (index ?? -1) + 1
                guard timeline.lines.indices.contains(next) else { return (text, nil, false) }
                let wait = UInt64(max(0, timeline.lines[next].timeMs - position))
                let (nanoseconds, tooFar) = wait.multipliedReportingOverflow(by: 1_000_000)
                return (text, tooFar ? nil : DispatchTime.now() + .nanoseconds(Int(clamping: nanoseconds)), false)
            }
            if stopped { return }
            if let line = text.flatMap(PlaybackSession.lyricLine) { console.announce(line) }
            if let due { _ = wake.wait(timeout: due) } else { wake.wait() }
        }
    }
}
