import Foundation
import XZCatalogue
import XZDownloader
import XZHostCore
import XZMPDCommands
import XZMPRIS
import XZPlaybackEngine
import XZPlaybackValues
import XZServer
import XZStreamOutput
import XZAccounts
import XZSubsonicAPI
import XZSubsonicServer
import XZSystem
import XZZeroconf
#if canImport(Glibc)
import Glibc
#endif

/// One library's host, assembled in one place for `serve`, a hosting prompt and `play --output` alike:
/// the player with its streams, ReplayGain and crossfade, the catalogue and statistics, and, for a host
/// others reach, the library's lock, its state file, the library's watch and the protocol server.
package final class LibraryHost: Sendable {
    /// Who else reaches the host.
    package enum Listening: Sendable, Equatable {
        /// Nobody: a player of this process alone (`play --output`, a prompt that cannot serve). It takes
        /// no lock and keeps no state file.
        case nowhere
        /// The library's Unix socket, where prompts and one-shot commands find it (a hosting prompt).
        case socket
        /// The socket, and TCP at the settings' address and port for MPD clients (`serve`).
        case socketAndTCP
    }

    package let host: PlayerHost
    /// The command table over this host, shared by its connections and by sessions in this process.
    package let service: MPDService
    /// Nil for a host that listens nowhere.
    package let socketPath: String?
    /// The TCP port listened on (the one picked, for port 0); nil without TCP.
    package let tcpPort: Int?
    private let server: ProtocolServer?
    /// The Subsonic API's server, for a host that listens with `subsonic_port` set.
    private let subsonic: SubsonicServer?
    /// The port the Subsonic API listens on (the one picked, for port 0); nil when it is off.
    package let subsonicPort: Int?
    /// Fetches what the player streams, and the download queue of the process that hosts: one manager per
    /// process, so a song that plays as it downloads has one writer. Shut down with the host.
    package let downloads: DownloadManager
    /// Held while the host runs; freed by `stop()`, or by the kernel when the process ends.
    private let lock: Mutex<HostLock?>
    /// The host on the session bus; nil with `mpris = no`, without a bus, or for a host of this process alone.
    package let mpris: MPRISService?
    /// Zeroconf, for a host others reach; nil for one that listens nowhere.
    private let announcement: HostAnnouncement?

    private init(host: PlayerHost, service: MPDService, server: ProtocolServer?, socketPath: String?, tcpPort: Int?,
                 subsonic: SubsonicServer?, subsonicPort: Int?,
                 downloads: DownloadManager, lock: HostLock?, mpris: MPRISService?, announcement: HostAnnouncement?) {
        self.host = host
        self.subsonic = subsonic
        self.subsonicPort = subsonicPort
        self.mpris = mpris
        self.service = service
        self.server = server
        self.socketPath = socketPath
        self.tcpPort = tcpPort
        self.downloads = downloads
        self.lock = Mutex(lock)
        self.announcement = announcement
    }

    /// The socket a host of `library` listens on.
    package static func socketPath(of library: LibraryFolder) -> String {
        HostEndpoint(library: library).socketPath
    }

    /// Starts the host of `library`. A host on TCP needs a password for an address that is no loopback.
    /// A host that listens takes the library's lock first (failing with the running host's name),
    /// restores the state file before anyone can connect, so no client sees the empty queue first, and
    /// keeps it; then watches the catalogue and the music folder, and announces itself with Zeroconf.
    /// `events` hears every player event from the start, off the audio thread; `notes` hears one line
    /// for each key left at its default and each problem that is no command's failure. `downloads` is the
    /// process's download manager when it has one already (a prompt's queue), which the host then uses and
    /// shuts down; without it the host makes its own.
    /// On the main actor, as the commands run: the lock, the state file and the binds block.
    @MainActor package static func start(_ configuration: HostConfiguration, library: LibraryFolder,
                                        database: LibraryDatabase, listening: Listening,
                                        downloads shared: DownloadManager? = nil,
                                        events: @escaping @Sendable (PlayerEvent) -> Void = { _ in },
                                        notes: @escaping @Sendable (String) -> Void = { _ in }) async throws -> LibraryHost {
        let settings = configuration.settings
        if listening == .socketAndTCP { try settings.validate() }
        let endpoint = listening == .nowhere ? nil : HostEndpoint(library: library)
        let lock = try endpoint.map { endpoint in
            let description = "pid \(getpid()), socket \(endpoint.socketPath)"
                + (listening == .socketAndTCP ? ", tcp \(settings.bindAddress):\(settings.port)" : "")
            return try HostLock(path: endpoint.lockPath, description: description)
        }
        let downloads = shared ?? DownloadManager(database: database, library: library, settings: configuration.downloads)
        let outputs = try configuration.makeOutputs()
        let host = PlayerHost(folder: library, database: database, output: outputs.output, outputs: outputs.outputs,
                              musicDirectory: settings.musicDirectory,
                              streams: streamOpener(downloads, database: database, cache: configuration.downloads.onlineCache,
                                                    keepURLs: configuration.keepsURLs),
                              fetchPlaylist: playlistFetcher(downloads), report: notes)
        host.exclusively { player in
            player.prebufferSeconds = configuration.downloads.prebufferSeconds
            player.replayGain = configuration.replayGain
            player.crossfade = configuration.crossfade
            player.maxQueueLength = settings.maxPlaylistLength
        }
        host.observe(events)
        var server: ProtocolServer?
        var tcpPort: Int?
        var subsonic: SubsonicServer?
        var subsonicPort: Int?
        if let endpoint {
            // Kept only by a host that serves, which holds the lock.
            let stateFile = settings.stateFile(library: library)
            if let stateFile {
                // A state file kept outside the library has its own folder to clear of half-written copies.
                let url = URL(fileURLWithPath: stateFile)
                AtomicFile.removeLeftovers(in: url.deletingLastPathComponent().path, of: url.lastPathComponent)
                host.restoreState(from: stateFile, paused: settings.restorePaused)
            }
            // One count of wrong credentials per address: guessing MPD's password slows the API too, and back.
            let credentials = CredentialThrottle()
            let listener = ProtocolServer(host: host, password: settings.password, limits: settings.limits,
                                          credentials: credentials)
            do {
                try listener.listen(unixPath: endpoint.socketPath)
                if listening == .socketAndTCP { tcpPort = try listener.listen(host: settings.bindAddress, port: settings.port) }
            } catch {
                listener.shutdown()
                host.shutdown()
                // The process's manager goes on serving its queue, or another host started in its place.
                if shared == nil { await downloads.shutdown() }
                throw HostingError.cannotListen(error)
            }
            if settings.subsonic.port != nil {
                do {
                    (subsonic, subsonicPort) = try await startSubsonic(settings.subsonic, host: host, library: library,
                                                                       database: database, credentials: credentials, notes: notes)
                } catch {
                    listener.shutdown()
                    host.shutdown()
                    if shared == nil { await downloads.shutdown() }
                    throw HostingError.cannotListen(error)
                }
            }
            listener.service.watchCatalogue(makingRecordsAhead: configuration.makesRecordsAhead)
            if let stateFile { host.keepState(at: stateFile) }
            host.watchLibrary(settings.libraryWatch)
            host.scanMusicFolderIfUnscanned()
            server = listener
        }
        configuration.notes.forEach(notes)
        outputs.notes.forEach(notes)
        // On the port the listener bound (the one picked, for port 0).
        let announcement = endpoint.map { _ in HostAnnouncement(settings: settings, tcpPort: tcpPort, notes: notes) }
        // The stream outputs on the ports they bound, for phones' `_http._tcp` browsers.
        announcement?.announce(httpStreams: outputs.outputs.compactMap { named in
            (named.output as? HTTPStreamOutput).map { ListeningPort(address: $0.settings.address, port: $0.port) }
        })
        let service = server?.service ?? MPDService(host: host, password: settings.password, limits: settings.limits.session)
        var mpris: MPRISService?
        if endpoint != nil, settings.mpris {
            // Without a session bus the host runs on: one line says so where asked (`serve`), not at every prompt.
            do {
                mpris = try MPRISService.start(host: host, settings: configuration.mpris, report: notes)
            } catch where error.kind == .noSessionBus && !configuration.notesMissingSessionBus {
                // A prompt on a machine without a desktop session: nothing worth a line at every start.
            } catch {
                notes("\(error)")
            }
        }
        return LibraryHost(host: host, service: service, server: server, socketPath: endpoint?.socketPath, tcpPort: tcpPort,
                           subsonic: subsonic, subsonicPort: subsonicPort, downloads: downloads, lock: lock, mpris: mpris, announcement: announcement)
    }

    /// The Subsonic API on `settings`' address and port, over the library's users (their passwords sealed
    /// under the library folder's `accounts.key`) and its caches in `cache/subsonic`.
    @MainActor private static func startSubsonic(_ settings: SubsonicSettings, host: PlayerHost, library: LibraryFolder,
                                                 database: LibraryDatabase, credentials: CredentialThrottle,
                                                 notes: @escaping @Sendable (String) -> Void) async throws -> (SubsonicServer, Int) {
        var settings = settings
        settings.cacheFolder = SubsonicSettings.cacheFolder(of: library)
        let accounts = AccountStore(library: library, database: database)
        let server = SubsonicServer(library: SubsonicLibrary(host: host, accounts: accounts, settings: settings),
                                    credentials: credentials)
        let port: Int
        do {
            port = try await server.start(address: settings.bindAddress, port: settings.port ?? 0)
        } catch {
            await server.stop()
            throw error
        }
        if !HostSettings.isLoopback(settings.bindAddress) {
            notes("the Subsonic API on \(settings.bindAddress):\(port) is reachable from other machines; every request is authenticated")
        }
        if (try? accounts.list().isEmpty) == true {
            notes("the Subsonic API has no user yet: add one with 'xzmusic user add NAME'")
        }
        return (server, port)
    }

    /// Announces the HTTP stream outputs listening at `httpStreams` (`_http._tcp`) beside the protocol port,
    /// replacing those announced before; none that listens on loopback only. Nothing for a host that
    /// listens nowhere or with `zeroconf_enabled = no`.
    package func announce(httpStreams: [ListeningPort]) {
        announcement?.announce(httpStreams: httpStreams)
    }

    /// The services Zeroconf has established on the network, each with the name it is announced by.
    package var announced: [ZeroconfService: String] {
        announcement?.announced ?? [:]
    }

    /// Clients connected to the host (its sockets' and its sessions in process).
    package var clientCount: Int { host.clientCount }

    /// Plays `items` from the first, replacing the queue: a player of one command (`play --output`), which
    /// waits for them rather than driving the host through its table; a change like any other client's.
    package func play(_ items: [QueueItem]) {
        host.play(items)
    }

    /// Stops the music, the track ending as stopped; from any thread (a signal's).
    package func stopPlaying() {
        host.stop()
    }

    /// Blocks until nothing plays (the queue done, or stopped); false when `timeout` seconds passed first.
    @discardableResult
    package func waitUntilFinished(timeout: TimeInterval? = nil) -> Bool {
        host.waitUntilFinished(timeout: timeout)
    }

    /// Tracks that ended with an error so far (a one-shot command's exit status).
    package var failedTrackCount: Int { host.failedTrackCount }

    /// Catalogue songs stream through their download (kept as the offline copy unless `cache` is none);
    /// other URLs stream without being kept, unless `keepURLs`.
    private static func streamOpener(_ downloads: DownloadManager, database: LibraryDatabase, cache: OnlineCache,
                             keepURLs: Bool) -> StreamOpener {
        { item in
            // A song the catalogue cannot look up now streams as a plain URL: played, not kept.
            if item.songKey != nil, let song = try? database.song(audioURL: item.path) {
                return try downloads.openStream(song: song, cache: cache)
            }
            return try downloads.openStream(url: item.path, keep: keepURLs)
        }
    }

    /// Remote playlists through the downloader's client, for the host's blocking lane to wait on.
    private static func playlistFetcher(_ downloads: DownloadManager) -> PlaylistFetcher {
        { url, maxBytes, seconds in
            let result = Mutex<Result<FetchedPlaylist, any Error>?>(nil)
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                do {
                    let (data, type) = try await downloads.fetchPlaylist(url, maxBytes: maxBytes, seconds: seconds)
                    result.withLock { $0 = .success(FetchedPlaylist(data: data, contentType: type)) }
                } catch {
                    result.withLock { $0 = .failure(error) }
                }
                done.signal()
            }
            done.wait()
            return try result.withLock { $0! }.get()
        }
    }

    /// Closes every connection, stops the music (the play session and the state saved), lets streams
    /// worth keeping land in the library, removes the socket and frees the library for another host.
    /// On the main actor: the host's shutdown blocks until its events are handled.
    @MainActor package func stop() async {
        // Phones stop being told of a host that is going.
        announcement?.stop()
        // Briefly: what is stuck is left behind, so the state is saved (first in the host's shutdown) soon after a signal.
        server?.shutdown(patience: .milliseconds(500))
        await subsonic?.stop()
        mpris?.stop()
        host.shutdown()
        await downloads.finishKeptStreams()
        await downloads.finishWholeStreams()
        await downloads.shutdown()
        if let socketPath { unlink(socketPath) }
        lock.withLock { $0 = nil }
    }

    /// As `stop()`, for a program that leaves right after, from any thread: the downloads the player
    /// started are not waited for, and the next run resumes them from their .part. The music stops (and
    /// the state is saved) before the connections close, so a request stuck in the server cannot hold
    /// up the save.
    package func stopForExit() {
        mpris?.stop()
        host.shutdown()
        announcement?.stop()
        server?.shutdown()
        subsonic?.stopForExit()
        if let socketPath { unlink(socketPath) }
    }
}
