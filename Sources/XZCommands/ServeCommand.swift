import ArgumentParser
import Foundation
import XZPlayback
import XZProtocol
import XZServer
import XZSystem
import XZText
import XZHost
#if canImport(Glibc)
import Glibc
#endif

extension OutputSpec: ExpressibleByArgument {
    /// The option's transform reports why a spec is bad; this form, which the protocol asks for, only says no.
    public init?(argument: String) {
        try? self.init(parsing: argument)
    }

    public static var defaultCompletionKind: CompletionKind { .list(["default", "null", "wav:", "au:", "raw:"]) }
}

struct Serve: AsyncLibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Host the player for MPD clients, prompts and one-shot commands (foreground).",
        discussion: "Listens on the library's Unix socket and on TCP (127.0.0.1:6600 unless --bind/--port or the "
            + "config keys bind_to_address/port say otherwise; another address needs 'password' in the config). "
            + "SIGTERM, SIGHUP or Ctrl-C stop the music and end the host.")

    @OptionGroup var global: GlobalOptions
    @Option(help: ArgumentHelp("Audio output: \(OutputSpec.usage) (default: $XZMUSIC_OUTPUT, else default).",
                               valueName: "output"), transform: OutputSpec.init(parsing:))
    var output: OutputSpec?
    @Option(help: "TCP port (default 6600; 0 picks a free one).") var port: Int?
    @Option(help: ArgumentHelp("Address to listen on (default 127.0.0.1).", valueName: "address")) var bind: String?
    @Flag(help: "Listen on the Unix socket only.") var noTcp = false

    func validate() throws {
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be from 0 to 65535") }
    }

    @MainActor func run(in context: CommandContext) async throws {
        // Inside a prompt that plays itself, the lock would name this very process as "another" host.
        if context.door?.isInProcess == true {
            let socket = HostEndpoint(library: context.folder).socketPath
            throw CommandError.usage(context.hostsHere
                ? "this prompt already hosts this library (socket \(socket.safe)); for MPD clients over TCP, quit and run 'xzmusic serve'"
                : "this prompt plays here without serving other programs; quit it and run 'xzmusic serve'")
        }
        var settings = try HostSettings(config: ConfigFile.load())
        if let port { settings.port = port }
        if let bind { settings.bindAddress = bind }
        try settings.validate()
        let spec = try output ?? OutputSpec(parsing: ProcessInfo.processInfo.environment["XZMUSIC_OUTPUT"] ?? "default")
        let endpoint = HostEndpoint(library: context.folder)
        let hosting = try await HostedPlayer.start(context: context, endpoint: endpoint, settings: settings,
                                                   output: spec, tcp: !noTcp, presentation: .text, recordsAhead: true)
        var addresses = [endpoint.socketPath]
        if let tcpPort = hosting.tcpPort { addresses.append("\(settings.bindAddress):\(tcpPort)") }
        context.console.line("xzmusic: hosting \(context.folder.url.path.safe) on \(addresses.joined(separator: " and "))")
        Check.warnIfDamaged(try context.database, console: context.console)
        let (signalled, arrived) = AsyncStream.makeStream(of: Int32.self)
        let signals = SignalWatch([SIGINT, SIGTERM, SIGHUP]) { arrived.yield($0) }
        for await _ in signalled { break }
        signals.cancel()
        Self.exitAnyway(after: .milliseconds(1500))
        await hosting.stop()
        context.console.line("xzmusic: host stopped")
    }

    /// A signalled host is gone within 2 s whatever still runs: a request stuck in a thread, a write
    /// waiting on a locked library. The state file is saved first thing in the stop, well before this.
    private static func exitAnyway(after delay: Duration) {
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
            FileHandle.standardOutput.write(Data("xzmusic: host stopped; work still running was abandoned\n".utf8))
            _exit(0)
        }
    }
}

/// A player host of this process that serves the library's socket (and TCP for `serve`).
final class HostedPlayer: Sendable {
    let session: PlaybackSession
    /// Nil for a player that serves no socket.
    let server: ProtocolServer?
    let tcpPort: Int?
    private let lock: HostLock?
    private let socketPath: String?

    private init(session: PlaybackSession, server: ProtocolServer?, tcpPort: Int?, lock: HostLock?, socketPath: String?) {
        self.session = session
        self.server = server
        self.tcpPort = tcpPort
        self.lock = lock
        self.socketPath = socketPath
    }

    /// Takes the library's host lock (failing with the running host's name), then listens and watches
    /// the catalogue and the music folder. `recordsAhead`: a headless host, whose work is answering
    /// clients, makes every song's record before the first listing (`MPDService.watchCatalogue`); a
    /// prompt keeps its memory.
    @MainActor static func start(context: CommandContext, endpoint: HostEndpoint, settings: HostSettings,
                                 output: OutputSpec, tcp: Bool, presentation: PlaybackSession.Presentation,
                                 recordsAhead: Bool) async throws -> HostedPlayer {
        let description = "pid \(getpid()), socket \(endpoint.socketPath)"
            + (tcp ? ", tcp \(settings.bindAddress):\(settings.port)" : "")
        // Opening the library first also makes its folder, where the lock lives.
        let database = try context.database
        let lock = try HostLock(path: endpoint.lockPath, description: description)
        let session = PlaybackSession(folder: context.folder, database: database, output: output,
                                      realtime: false, musicDirectory: settings.musicDirectory, console: context.console,
                                      presentation: presentation)
        session.host.player.maxQueueLength = settings.maxPlaylistLength
        // Restored before anyone can connect, so no client sees the empty queue first; kept only by a
        // host that serves, which holds the lock.
        let stateFile = settings.stateFile(library: context.folder)
        if let stateFile {
            // A state file kept outside the library has its own folder to clear of half-written copies.
            let url = URL(fileURLWithPath: stateFile)
            AtomicFile.removeLeftovers(in: url.deletingLastPathComponent().path, of: url.lastPathComponent)
        }
        if let stateFile { session.host.restoreState(from: stateFile, paused: settings.restorePaused) }
        let server = ProtocolServer(host: session.host, password: settings.password, limits: settings.limits)
        do {
            try server.listen(unixPath: endpoint.socketPath)
            let port = tcp ? try server.listen(host: settings.bindAddress, port: settings.port) : nil
            server.service.watchCatalogue(makingRecordsAhead: recordsAhead)
            if let stateFile { session.host.keepState(at: stateFile) }
            session.host.watchLibrary(settings.libraryWatch)
            return HostedPlayer(session: session, server: server, tcpPort: port, lock: lock, socketPath: endpoint.socketPath)
        } catch {
            server.shutdown()
            await session.close()
            throw CommandError.cannotListen(error)
        }
    }

    /// A player of this process that no other program can reach.
    static func unlistened(context: CommandContext, settings: HostSettings, output: OutputSpec) throws -> HostedPlayer {
        let session = PlaybackSession(folder: context.folder, database: try context.database, output: output,
                                      realtime: false, musicDirectory: settings.musicDirectory, console: context.console,
                                      presentation: .interactive)
        session.host.player.maxQueueLength = settings.maxPlaylistLength
        return HostedPlayer(session: session, server: nil, tcpPort: nil, lock: nil, socketPath: nil)
    }

    /// Closes every connection, stops the music (the play session saved) and removes the socket.
    @MainActor func stop() async {
        // Briefly: what is stuck is left behind, so the state is saved (first in `close`) soon after a signal.
        server?.shutdown(patience: .milliseconds(500))
        await session.close()
        if let socketPath { unlink(socketPath) }
        _ = lock
    }

    /// As `stop()`, for a program that leaves right after, from any thread: the downloads the player
    /// started are not waited for, and the next run resumes them from their .part.
    func stopForExit() {
        server?.shutdown()
        session.stopPlaying()
        if let socketPath { unlink(socketPath) }
    }
}
