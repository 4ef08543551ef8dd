import ArgumentParser
import Foundation
import XZSystem
import XZText
import XZHostAssembly
import XZPlaybackValues
#if canImport(Glibc)
import Glibc
#endif

extension OutputSpec: ExpressibleByArgument {
    /// The option's transform reports why a spec is bad; this form, which the protocol asks for, only says no.
    package init?(argument: String) {
        try? self.init(parsing: argument)
    }

    package static var defaultCompletionKind: CompletionKind { .list(["default", "null", "wav:", "au:", "raw:"]) }
}

struct Serve: AsyncLibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Host the player for MPD clients, prompts and one-shot commands (foreground).",
        discussion: "Listens on the library's Unix socket and on TCP (127.0.0.1:6600 unless --bind/--port or the "
            + "config keys bind_to_address/port say otherwise; another address needs 'password' in the config), "
            + "and the Subsonic API for phones when --subsonic-port or subsonic_port is set. "
            + "SIGTERM, SIGHUP or Ctrl-C stop the music and end the host.")

    @OptionGroup var global: GlobalOptions
    @Option(help: ArgumentHelp("Audio output: \(OutputSpec.usage) (default: $XZMUSIC_OUTPUT, else default).",
                               valueName: "output"), transform: OutputSpec.init(parsing:))
    var output: OutputSpec?
    @Option(help: "TCP port (default 6600; 0 picks a free one).") var port: Int?
    @Option(help: ArgumentHelp("Address to listen on (default 127.0.0.1).", valueName: "address")) var bind: String?
    @Flag(help: "Listen on the Unix socket only.") var noTcp = false
    @Option(help: ArgumentHelp("Also answer the Subsonic API on this TCP port (default: the config's subsonic_port, else off; 0 picks a free one).",
                               valueName: "port")) var subsonicPort: Int?

    func validate() throws {
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be from 0 to 65535") }
        if let subsonicPort, !(0...65535).contains(subsonicPort) { throw ValidationError("--subsonic-port must be from 0 to 65535") }
    }

    @MainActor func run(in context: CommandContext) async throws {
        // Inside a prompt that plays itself, the lock would name this very process as "another" host.
        if context.door?.isInProcess == true {
            let socket = LibraryHost.socketPath(of: context.folder)
            throw CommandError.usage(context.hostsHere
                ? "this prompt already hosts this library (socket \(socket.safe)); for MPD clients over TCP, quit and run 'xzmusic serve'"
                : "this prompt plays here without serving other programs; quit it and run 'xzmusic serve'")
        }
        var configuration = try HostConfiguration.load(output: output)
        if let port { configuration.settings.port = port }
        if let bind { configuration.settings.bindAddress = bind }
        if let subsonicPort { configuration.settings.subsonic.port = subsonicPort }
        // Its work is answering clients.
        configuration.makesRecordsAhead = true
        configuration.notesMissingSessionBus = true
        let hosting = try await context.startHost(configuration, listening: noTcp ? .socket : .socketAndTCP,
                                                  showing: PlaybackSession(console: context.console, presentation: .text))
        var addresses = hosting.socketPath.map { [$0] } ?? []
        if let tcpPort = hosting.tcpPort { addresses.append("\(configuration.settings.bindAddress):\(tcpPort)") }
        if let subsonicPort = hosting.subsonicPort {
            addresses.append("the Subsonic API at http://\(Self.urlHost(configuration.settings.subsonic.bindAddress)):\(subsonicPort)/rest")
        }
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

    /// An address as a URL's host: IPv6 in brackets.
    private static func urlHost(_ address: String) -> String {
        address.contains(":") ? "[\(address)]" : address
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
