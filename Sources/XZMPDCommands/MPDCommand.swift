import XZCatalogue
import XZHost
import XZProtocol

/// One row of the command table: the name, how many arguments, who may run it, and what it does.
struct MPDCommand: Sendable {
    enum Access: Equatable, Sendable {
        /// Allowed before the `password` command; changes nothing of the host.
        case beforePassword
        /// Changes nothing of the host, so no observer hears of it.
        case readOnly
        /// May change the player, the queue or the library.
        case changesState
    }

    /// Where it runs: SQLite and file work never on a connection's event loop.
    enum Work: Equatable, Sendable {
        /// Reads or sets the player's state in memory: on the event loop, answered at once.
        case quick
        /// Reads the catalogue or files: on a thread of the blocking pool, the connection's next
        /// requests waiting for it.
        case blocking
    }

    let name: String
    let arguments: ClosedRange<Int>
    let access: Access
    let work: Work
    /// Which arguments name a file or folder (by index): each is resolved through `Invocation.location`
    /// or is a folder name the catalogue holds, never used as a path as it is. The confinement test sends
    /// every argument marked here its escaping names.
    let paths: Set<Int>
    let run: @Sendable (inout MPDCommands.Invocation) throws(MPDError) -> Void

    init(_ name: String, _ arguments: ClosedRange<Int>, _ access: Access, _ work: Work = .quick, paths: Set<Int> = [],
         _ run: @escaping @Sendable (inout MPDCommands.Invocation) throws(MPDError) -> Void) {
        self.name = name
        self.arguments = arguments
        self.access = access
        self.work = work
        self.paths = paths
        self.run = run
    }
}

extension MPDCommands.Invocation {
    /// What a client's name stands for, through the host's one resolver (absolute names for local
    /// clients only), its refusal as MPD's.
    func location(_ uri: String) throws(MPDError) -> SongLocation {
        do {
            return try host.naming.locate(uri, allowAbsolute: session.peer == .local, catalogue: host.database)
        } catch {
            throw MPDError(uri: error)
        }
    }
}
