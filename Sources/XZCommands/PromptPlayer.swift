import Foundation
import XZHostAssembly
import XZSystem

/// Who plays for a prompt: the library's running host, followed for the lines above the prompt, or a
/// host of the prompt's own. When the followed host quits, the next command finds a new one or hosts here.
final class PromptPlayer: Sendable {
    private let context: CommandContext
    private let state = Mutex<Attachment>(Attachment())

    private struct Attachment {
        /// This prompt's own host; nil while it follows another.
        var hosted: LibraryHost?
        var watcher: HostWatcher?
    }

    init(context: CommandContext) {
        self.context = context
    }

    /// Following another process's host.
    var isAttached: Bool { state.withLock { $0.watcher != nil } }

    /// Attaches to the library's running host, or makes this prompt the host.
    @MainActor func start() async throws {
        if try attach() { return }
        try await host()
    }

    /// After the followed host has gone: attaches to the host running now, or hosts here; says which.
    /// A failure is one line and leaves the prompt as it was, to try again at the next command: one
    /// attempt per command typed, never a loop of its own.
    @MainActor func replaceLostHost() async {
        guard let watcher = state.withLock({ $0.watcher }), watcher.hostLeft else { return }
        watcher.stop()
        state.withLock { $0.watcher = nil }
        do {
            if try attach() {
                context.console.line("note: attached to the xzmusic host now running for this library")
            } else {
                try await host()
                context.console.line("note: no other xzmusic host runs: this prompt hosts the player now (the queue is empty)")
            }
        } catch {
            state.withLock { $0.watcher = watcher }
            context.console.error("error: no player for this prompt: \(error)")
        }
    }

    /// Attaches to a host that answers on the library's socket; false when none does.
    private func attach() throws -> Bool {
        guard let door = try context.connectToHost() else { return false }
        let watcher = try HostDoor.connect(library: context.folder).map { watching in
            HostWatcher(door: watching, folder: context.folder, database: try context.database, console: context.console)
        }
        context.door = door
        context.lyricLines = watcher
        context.hostsHere = false
        state.withLock { $0.watcher = watcher }
        return true
    }

    @MainActor private func host() async throws {
        let configuration = try HostConfiguration.load()
        let session = PlaybackSession(console: context.console, presentation: .interactive)
        let host: LibraryHost
        do {
            host = try await context.startHost(configuration, listening: .socket, showing: session)
            context.hostsHere = true
        } catch {
            // The prompt still plays when it cannot be the host (a host that does not answer, a socket
            // folder it may not write); other programs then cannot reach its player.
            context.console.error("note: \(error); this prompt's player serves no other program")
            host = try await context.startHost(configuration, listening: .nowhere, showing: session)
        }
        context.door = HostDoor(service: host.service)
        context.lyricLines = session
        state.withLock { $0.hosted = host }
    }

    /// From the thread of a prompt that leaves at once (PromptExit): stops following, or stops this
    /// prompt's host as `quit` does, the state saved first.
    func stopForExit() {
        let (hosted, watcher) = state.withLock { ($0.hosted, $0.watcher) }
        watcher?.stop()
        hosted?.stopForExit()
    }

    /// Stops following, or stops this prompt's music (saying so when other clients hear it).
    @MainActor func close() async {
        let (hosted, watcher) = state.withLock { ($0.hosted, $0.watcher) }
        watcher?.stop()
        guard let hosted else { return }
        let clients = hosted.clientCount
        if clients > 0 { context.console.line("note: stopping the music for \(clients) attached client\(clients == 1 ? "" : "s")") }
        await hosted.stop()
    }
}
