import ArgumentParser
import XZProtocol
import XZHostAssembly

/// Commands that act on the player: the prompt's own host, or the library's running host, through its door.
protocol PlayerCommand: LibraryCommand {
    var global: GlobalOptions { get }
    func run(on door: HostDoor, context: CommandContext) throws
}

extension PlayerCommand {
    func run(in context: CommandContext) throws {
        try context.withPlayer { try run(on: $0, context: context) }
    }

    /// pause, next, prev and stop mean nothing without a queue; saying so beats a silent no-op.
    /// The status, for the command to go on with.
    @discardableResult
    func requireQueue(_ door: HostDoor) throws -> PlayerStatus {
        let status = try door.status()
        guard status.playlistLength > 0 else { throw CommandError.emptyQueue }
        return status
    }
}
