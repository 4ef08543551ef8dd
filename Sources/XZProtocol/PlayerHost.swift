import Foundation
import XZCatalogue
import XZPlayback

/// What changed, in MPD's `idle` words.
public enum IdleSubsystem: String, Sendable, CaseIterable {
    case database, update, storedPlaylist = "stored_playlist", playlist, player, mixer, output, options
    case partition, sticker, subscription, message, neighbor, mount
}

/// The process that owns a library's player: the player itself, play statistics, the names songs have
/// for protocol clients, and the fan-out of changes to every client waiting in `idle`.
/// Every frontend (protocol connections, the prompt hosting the player, one-shot `play`) drives it.
public final class PlayerHost: @unchecked Sendable {
    public let player: Player
    public let folder: LibraryFolder
    public let database: LibraryDatabase
    public let uris: SongURIs
    public let startedAt = Date()
    /// Audio output as configured, for `outputs`.
    public let output: OutputSpec
    /// `update` / `rescan` jobs of the music folder.
    public let updates = DatabaseUpdates()
    /// http(s) URIs play here (the host has a downloader).
    public let canStream: Bool
    /// Listed songs kept until the database changes.
    let songRecords = SongRecords()

    private let recording: StatsRecording
    private let lock = NSLock()
    private var observers: [(PlayerEvent) -> Void] = []
    private var idleListeners: [Int: (Set<IdleSubsystem>) -> Void] = [:]
    private var nextListener = 0
    private var last: Fingerprint?
    private var playedMs = 0
    private var outputEnabled = true
    private let drained = DispatchSemaphore(value: 0)

    /// `report` hears problems that are no command's failure (statistics that could not be saved).
    public init(folder: LibraryFolder, database: LibraryDatabase, output: OutputSpec, realtime: Bool = false,
                musicDirectory: URL = SongURIs.defaultMusicDirectory(), seed: UInt64? = nil,
                streams: StreamOpener? = nil, report: @escaping @Sendable (String) -> Void) {
        self.folder = folder
        self.database = database
        self.output = output
        uris = SongURIs(musicDirectory: musicDirectory, library: folder)
        player = Player(output: output, realtime: realtime, seed: seed, streams: streams)
        canStream = streams != nil
        recording = StatsRecording(database: database, report: report)
        last = Fingerprint(player.snapshot())
        let events = player.events
        // Observers may print to a slow terminal, so events are handled off the audio thread.
        Task.detached { [weak self] in
            for await event in events { self?.handle(event) }
            self?.drained.signal()
        }
    }

    /// Hears every player event, in order, off the audio thread.
    public func observe(_ observer: @escaping (PlayerEvent) -> Void) {
        lock.lock()
        observers.append(observer)
        lock.unlock()
    }

    /// How the database commands name and choose songs: the music folder's names, and on a host that
    /// streams, the catalogue songs that are not offline by their audio URL.
    public var naming: SongNaming {
        var naming = uris.naming
        naming.onlineByURL = canStream
        return naming
    }

    /// The name protocol clients know a catalogue song by.
    public func uri(of song: Song) -> String {
        song.isLocal ? uris.uri(forPath: song.localPath, inCatalogue: true) : naming.uri(of: song)
    }

    /// The name protocol clients know a queue item by.
    public func uri(of item: QueueItem) -> String {
        uris.uri(forPath: item.path, inCatalogue: item.songKey != nil)
    }

    /// Registers a client's `idle` wake-ups; returns the token to `removeIdleListener` with.
    public func addIdleListener(_ listener: @escaping (Set<IdleSubsystem>) -> Void) -> Int {
        lock.lock()
        defer { lock.unlock() }
        nextListener += 1
        idleListeners[nextListener] = listener
        return nextListener
    }

    public func removeIdleListener(_ token: Int) {
        lock.lock()
        idleListeners[token] = nil
        lock.unlock()
    }

    public var clientCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return idleListeners.count
    }

    /// Tells every listener about `subsystems` (things the player's state does not show, e.g. outputs).
    public func announce(_ subsystems: Set<IdleSubsystem>) {
        guard !subsystems.isEmpty else { return }
        lock.lock()
        let listeners = Array(idleListeners.values)
        lock.unlock()
        for listener in listeners { listener(subsystems) }
    }

    /// Compares the player with what listeners last heard and announces what changed; called after
    /// every command and every player event.
    public func noticeChanges(also extra: Set<IdleSubsystem> = []) {
        let now = Fingerprint(player.snapshot())
        lock.lock()
        let before = last
        last = now
        lock.unlock()
        var changed = extra
        if let before {
            if before.queueVersion != now.queueVersion { changed.insert(.playlist) }
            if before.state != now.state || before.currentId != now.currentId { changed.insert(.player) }
            if before.volume != now.volume { changed.insert(.mixer) }
            if before.options != now.options { changed.insert(.options) }
        }
        announce(changed)
    }

    /// Milliseconds of audio played since the host started (MPD's `playtime`).
    public var playTimeMs: Int {
        lock.lock()
        defer { lock.unlock() }
        return playedMs
    }

    /// Whether the output takes audio; a disabled output pauses playback, as MPD's only output would.
    public var isOutputEnabled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return outputEnabled
    }

    public func setOutputEnabled(_ enabled: Bool) {
        lock.lock()
        let changed = outputEnabled != enabled
        outputEnabled = enabled
        lock.unlock()
        guard changed else { return }
        if !enabled { player.pause() }
        noticeChanges(also: [.output])
    }

    /// Stops the music (the play session saved as ended by leaving), closes the output and writes statistics.
    /// Watches the catalogue while clients may list it: a change made by another process is announced
    /// (`changed: database`, as after `update`). `makingRecordsAhead`: after every change, the songs'
    /// records are made again in the background (`SongRecords.warm`), a few MB for a small catalogue.
    public func watchCatalogue(every interval: DispatchTimeInterval = .seconds(1), makingRecordsAhead: Bool) {
        updates.watch(database, every: interval) { [weak self] byOtherProcess in
            guard let self else { return }
            if byOtherProcess { announce([.database]) }
            if makingRecordsAhead { try? songRecords.warm(host: self) }
        }
    }

    public func shutdown() {
        updates.stopWatching()
        player.shutdown()
        drained.wait()
        drained.signal()  // a second shutdown returns at once
        recording.flush()
    }

    private func handle(_ event: PlayerEvent) {
        recording.receive(event)
        lock.lock()
        let observers = self.observers
        if case .position = event { playedMs += 250 }
        lock.unlock()
        for observer in observers { observer(event) }
        switch event {
        case .started, .seeked, .paused, .resumed, .buffering, .buffered, .queueFinished, .error:
            noticeChanges(also: [.player])
        case .ended, .notice:
            noticeChanges()
        case .position, .lyric:
            break
        case .changed(let changes):
            var subsystems: Set<IdleSubsystem> = []
            if changes.contains(.queue) { subsystems.insert(.playlist) }
            if changes.contains(.playback) { subsystems.insert(.player) }
            if changes.contains(.volume) { subsystems.insert(.mixer) }
            if changes.contains(.options) { subsystems.insert(.options) }
            announce(subsystems)
        }
    }
}

/// The parts of the player's state whose change clients are told about.
private struct Fingerprint: Equatable {
    struct Options: Equatable {
        var repeats: Bool
        var single: SingleMode
        var consume: Bool
        var random: Bool
        var replayGainMode: ReplayGainMode
    }

    var state: PlayerState
    var currentId: Int?
    var queueVersion: Int
    var volume: Int
    var options: Options

    init(_ status: PlayerSnapshot) {
        // The protocol has no "idle": an empty queue is stopped too.
        state = status.state == .idle ? .stopped : status.state
        currentId = status.currentId
        queueVersion = status.queueVersion
        volume = status.volume
        options = Options(repeats: status.repeats, single: status.single, consume: status.consume,
                          random: status.shuffle, replayGainMode: status.replayGainMode)
    }
}
