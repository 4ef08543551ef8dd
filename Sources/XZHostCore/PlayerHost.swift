import Foundation
import XZSystem
import XZCatalogue
import XZPlaybackEngine
import XZPlaybackValues

/// The process that owns a library's player: the player itself, play statistics, the names songs have
/// for protocol clients, and the fan-out of changes to every client waiting in `idle`.
/// Every frontend (protocol connections, MPRIS, the prompt hosting the player, one-shot `play`) drives the
/// player through its verbs (PlayerTurn.swift), one change at a time; the player itself stays inside.
package final class PlayerHost: Sendable {
    let player: Player
    /// One change to the player at a time, whoever asks (`exclusively`).
    let turns = Mutex(())
    /// The thread inside `exclusively` (0: none).
    let turnHolder = Atomic<pthread_t>(0)
    package let folder: LibraryFolder
    package let database: LibraryDatabase
    /// How clients know its songs: the music folder's names, and on a host that streams, the catalogue
    /// songs that are not offline by their audio URL.
    package let naming: SongNaming
    package let startedAt = Date()
    /// The one output played to when the config has no `audio_output` blocks (`--output`, or the null output).
    package let output: NamedOutput
    /// The config's `audio_output` blocks, each switched on and off by clients; nil for the one `output`.
    package let outputSet: OutputSet?
    /// `update` / `rescan` jobs of the music folder.
    package let updates = DatabaseUpdates()
    /// http(s) URIs play here (the host has a downloader).
    package let canStream: Bool
    /// Fetches playlists by URL (`load http://…/list.m3u`); nil on a host without a downloader.
    package let fetchPlaylist: PlaylistFetcher?

    /// The music folder's watch (`watchLibrary`).
    let libraryWatch = LibraryWatch()
    private let recording: StatsRecording
    let report: @Sendable (String) -> Void
    /// Saves the state file once `keepState` was asked for.
    let stateKeeper = Mutex<HostStateKeeper?>(nil)
    private struct State {
        var observers: [@Sendable (PlayerEvent) -> Void] = []
        var playedMs = 0
        var outputEnabled = true
    }

    private let state = Mutex(State())
    private let changeListeners: ChangeListeners
    /// Signalled when the player's events have all been handled, which `shutdown` waits for.
    private let drained = DispatchSemaphore(value: 0)

    /// MPD's `max_playlist_length` default, the queue's cap until the config sets another.
    package static let defaultMaxQueueLength = PlayerStateMachine.defaultMaxLength

    /// `report` hears problems that are no command's failure (statistics that could not be saved).
    /// `outputs`: the config's outputs, played to instead of `output` when there are any.
    package init(folder: LibraryFolder, database: LibraryDatabase, output: NamedOutput, outputs: [NamedOutput] = [],
                musicDirectory: URL = SongNaming.defaultMusicDirectory(), seed: UInt64? = nil,
                streams: StreamOpener? = nil, fetchPlaylist: PlaylistFetcher? = nil,
                report: @escaping @Sendable (String) -> Void) {
        self.folder = folder
        self.database = database
        self.output = output
        naming = SongNaming(musicDirectory: musicDirectory, library: folder, onlineByURL: streams != nil)
        let changeListeners = ChangeListeners()
        self.changeListeners = changeListeners
        // What a command changed is told before the command returns (on its thread), not when the
        // event stream below gets to it: a client that changed something and then waits in `idle`
        // must not hear its own change afterwards.
        let onEvent: @Sendable (PlayerEvent) -> Void = { event in
            if case .changed(let changes) = event { changeListeners.announce(HostChanges(changes)) }
        }
        let outputSet = outputs.isEmpty ? nil : OutputSet(outputs)
        self.outputSet = outputSet
        if let outputSet {
            player = Player(output: outputSet, seed: seed, streams: streams, onEvent: onEvent)
        } else {
            player = Player(output: output.output, seed: seed, streams: streams, onEvent: onEvent)
        }
        canStream = streams != nil
        self.fetchPlaylist = fetchPlaylist
        let player = player
        recording = StatsRecording(database: database, report: report, playingStation: { player.snapshot().current.map { ($0.path, $0.name) } })
        self.report = report
        let events = player.events
        // An output that failed (a device unplugged) was disabled by the set; the others play on, as in MPD.
        // Music with every output off waits paused, as in MPD. Told on the audio thread: the pause is sent from another.
        // Reached through the host, held weakly: the set must not keep the player that holds it.
        outputSet?.onEvent { [weak self] event in
            guard let self, let outputSet = self.outputSet else { return }
            if case .failed(_, let message) = event {
                report(message)
                announce(.output)
            }
            if !outputSet.enabled.contains(true) { DispatchQueue.global().async { [weak self] in self?.pause() } }
        }
        // Observers may print to a slow terminal, so events are handled off the audio thread.
        Task.detached { [weak self] in
            for await event in events { self?.handle(event) }
            self?.drained.signal()
        }
    }

    /// A host let go of without `shutdown` ends its state file's thread, which sleeps until told.
    deinit {
        stateKeeper.withLock { $0.take() }?.finish()
    }

    /// Hears every player event, in order, off the audio thread.
    package func observe(_ observer: @escaping @Sendable (PlayerEvent) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// The name protocol clients know a queue item by.
    package func uri(of item: QueueItem) -> String {
        naming.uri(ofFile: item.path, inCatalogue: item.songKey != nil)
    }

    /// Registers someone who hears every change (a client waiting in `idle`); returns the token to
    /// `stopObserving` with.
    package func observeChanges(_ listener: @escaping @Sendable (HostChanges) -> Void) -> Int {
        observeChanges(listener, client: true)
    }

    func observeChanges(_ listener: @escaping @Sendable (HostChanges) -> Void, client: Bool) -> Int {
        changeListeners.add(listener, client: client)
    }

    package func stopObserving(_ token: Int) {
        changeListeners.remove(token)
    }

    package var clientCount: Int { changeListeners.clientCount }

    /// Tells every observer about `changes` (things the player's state does not show, e.g. outputs).
    package func announce(_ changes: HostChanges) {
        changeListeners.announce(changes)
    }

    /// Milliseconds of audio played since the host started (MPD's `playtime`).
    package var playTimeMs: Int {
        state.withLock { $0.playedMs }
    }

    /// What `outputs` lists: the config's outputs, or the one chosen by `--output` (id 0).
    package var outputStatuses: [OutputStatus] {
        if let outputSet {
            return zip(outputSet.members, outputSet.enabled).enumerated().map { id, member in
                OutputStatus(id: id, name: member.0.name, plugin: member.0.plugin, enabled: member.1)
            }
        }
        return [OutputStatus(id: 0, name: output.name, plugin: output.plugin, enabled: state.withLock { $0.outputEnabled })]
    }

    /// Whether some output takes audio; with none, playback pauses, as MPD's does.
    package var isOutputEnabled: Bool {
        outputStatuses.contains(where: \.enabled)
    }

    /// Switches output `id` inside a turn (`PlayerTurn.setOutputEnabled`, `toggleOutput`).
    func switchOutput(_ id: Int, mixerHeardOnEnabling: Bool, _ next: (Bool) -> Bool) -> Bool {
        let switched: (was: Bool, now: Bool, anyOn: Bool)?
        if let outputSet {
            switched = outputSet.switchOutput(id, next)
        } else {
            switched = id != 0 ? nil : state.withLock { state in
                let was = state.outputEnabled
                state.outputEnabled = next(was)
                return (was, state.outputEnabled, state.outputEnabled)
            }
        }
        guard let switched else { return false }
        guard switched.was != switched.now else { return true }
        // With every output off nothing is heard: the music waits, paused, as in MPD.
        if !switched.anyOn { player.pause() }
        // The one output's software volume is its mixer's, heard with it; the config's outputs have no
        // mixer, and MPD tells only `output` for such an output.
        let mixerHeard = outputSet == nil && (!switched.now || mixerHeardOnEnabling)
        announce(mixerHeard ? [.output, .volume] : .output)
        return true
    }

    /// Queues an import of `folder` (everything re-read when `rescan`); returns its job number at once.
    /// Observers hear `update` when it starts and ends, and `database` when it changed songs.
    package func startUpdate(of folder: URL, rescan: Bool) -> Int {
        // A folder of the music folder heeds the `.mpdignore` files above it too.
        let music = naming.musicDirectory
        let inMusic = folder.standardizedFileURL.path == music || folder.standardizedFileURL.path.hasPrefix(music + "/")
        return updates.start(folder: folder, rescan: rescan, musicRoot: inMusic ? music : nil, database: database,
                             playlists: playlistsFolder,
                             announce: { [weak self] changes in self?.announce(changes) }, report: report)
    }

    /// As MPD with no database: a music folder none of whose songs the catalogue holds (never scanned, or
    /// scanned empty) is updated now, in the background; returns the job's number, nil when there was
    /// nothing to do. Clients are answered meanwhile, `status` showing `updating_db`.
    @discardableResult
    package func scanMusicFolderIfUnscanned() -> Int? {
        let folder = URL(fileURLWithPath: naming.musicDirectory)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue,
              (try? database.holdsSongs(inFolder: folder.path)) == false else { return nil }
        return startUpdate(of: folder, rescan: false)
    }

    /// Watches the library while clients may list it: songs, stickers and stored playlists changed by
    /// another process are announced (`database` as after `update`, `stickers`, `storedPlaylists`), heard
    /// through inotify (polled every `interval` only where inotify cannot watch); `afterSongsChange` runs on
    /// the watch's thread at its first check and after every change of songs.
    package func watchCatalogue(polling interval: DispatchTimeInterval = .seconds(1),
                               afterSongsChange: (@Sendable () -> Void)? = nil) {
        updates.watch(database, playlists: playlistsFolder, polling: interval) { [weak self] changes, byOtherProcess in
            guard let self else { return }
            if byOtherProcess { announce(changes) }
            if changes.isEmpty || changes.contains(.database) { afterSongsChange?() }
        }
    }

    /// A client changed stickers or stored playlists through this host: observers hear it now, and the
    /// watch does not tell them again.
    package func wrote(_ changes: HostChanges) {
        updates.takeAsSeen(database, playlists: playlistsFolder)
        announce(changes)
    }

    var playlistsFolder: URL { StoredPlaylists(library: folder).folder }

    /// The library's stored playlists, held to the queue's cap (`max_playlist_length`) as MPD holds them,
    /// their owner rows kept in the host's database.
    package var playlists: StoredPlaylists { StoredPlaylists(library: folder, maxLength: maxQueueLength, database: database) }

    /// Stops the music (the play session saved as ended by leaving), closes the output and writes statistics.
    package func shutdown() {
        // Saved before the player stops, which would forget what was playing.
        stateKeeper.withLock { $0.take() }?.finish()
        updates.stopWatching()
        libraryWatch.stop()
        player.shutdown()
        drained.wait()
        drained.signal()  // a second shutdown returns at once
        recording.flush()
    }

    private func handle(_ event: PlayerEvent) {
        recording.receive(event)
        let observers = state.withLock { state in
            if case .position = event { state.playedMs += 250 }
            return state.observers
        }
        for observer in observers { observer(event) }
        // `status` shows the error.
        if case .error = event { announce(.playback) }
    }

}

extension HostChanges {
    /// What the player said its action changed.
    init(_ changes: PlayerChanges) {
        self = []
        if changes.contains(.queue) { insert(.queue) }
        if changes.contains(.playback) { insert(.playback) }
        if changes.contains(.volume) { insert(.volume) }
        if changes.contains(.options) { insert(.options) }
    }
}

/// Who hears the host's changes: clients waiting in `idle`, and keepers inside the host.
final class ChangeListeners: Sendable {
    private struct Listeners {
        var byToken: [Int: @Sendable (HostChanges) -> Void] = [:]
        /// Listeners inside the host (the state file's keeper), which are no clients.
        var own: Set<Int> = []
        var lastToken = 0
    }

    private let listeners = Mutex(Listeners())

    func add(_ listener: @escaping @Sendable (HostChanges) -> Void, client: Bool) -> Int {
        listeners.withLock { listeners in
            listeners.lastToken += 1
            listeners.byToken[listeners.lastToken] = listener
            if !client { listeners.own.insert(listeners.lastToken) }
            return listeners.lastToken
        }
    }

    func remove(_ token: Int) {
        listeners.withLock { listeners in
            listeners.byToken.removeValue(forKey: token)
            listeners.own.remove(token)
        }
    }

    var clientCount: Int {
        listeners.withLock { $0.byToken.count - $0.own.count }
    }

    /// Listeners must not block: they run on the thread that made the change.
    func announce(_ changes: HostChanges) {
        guard !changes.isEmpty else { return }
        let heard = listeners.withLock { Array($0.byToken.values) }
        for listener in heard { listener(changes) }
    }
}
