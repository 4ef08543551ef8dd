import XZCatalogue
import XZHostCore
import XZProtocol
import XZSystem

/// One row of the command table: the name, how many arguments, who may run it, and what it does.
/// A class: a request's lookup then takes one reference, not one for each of the row's parts.
final class MPDCommand: Sendable {
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
        /// Reads a bounded part of the catalogue: the queue's songs, one song or folder, stickers. On a
        /// small pool of its own that heavy requests never take, the connection's next requests waiting.
        case lookup
        /// May take long: searches, listings, updates, files. On the pool for heavy work, the
        /// connection's next requests waiting for it.
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
    /// Runs whole in the host's turn (`PlayerHost.exclusively`): a quick state change. A state change of other
    /// work takes it only around the part that reads and acts on the player (`Invocation.exclusively`), so no
    /// other client waits for its files, database or waits.
    var runsExclusively: Bool { access == .changesState && work == .quick }

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
    /// Runs `body` as the only change to the player under way host-wide (`PlayerHost.exclusively`), in the
    /// turn this command already holds when it holds one (a quick one, or one of a command list that does).
    func exclusively<Result>(_ body: (PlayerTurn) throws(MPDError) -> Result) throws(MPDError) -> Result {
        try host.exclusively(holding: heldTurn, body)
    }

    /// For a loop over songs or values: stops the command once its request is past its budget, the
    /// clock read every 256th turn (`count` the turns so far).
    func checkDeadline(_ count: Int) throws(MPDError) {
        do { try deadline.check(every: 256, count) } catch { throw MPDError(failure: error) }
    }

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
