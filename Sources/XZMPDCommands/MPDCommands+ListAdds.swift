import XZCatalogue
import XZHost
import XZPlaybackTerms
import XZProtocol
import XZSystem

extension MPDCommands {
    /// A command list's resolver and its queue changes still to land: the rows `add URI` and `clear` run
    /// as rows, but what they change lands in one step when a row of another kind comes or the list ends.
    /// Each insert is a pass over the queue, and the catalogue is read once for all the songs, so a list
    /// of 10,000 adds stays linear; a `clear` and the adds after it land as one change, so no other client
    /// sees the queue empty or half built.
    final class ListQueue {
        let resolver: SongResolver
        private let host: PlayerHost
        /// The host's turn the list holds when it changes the player (`ClientSession.run`).
        private let turn: PlayerTurn?
        private let database: LibraryDatabase
        private var appending: [Playable] = []
        private var clearing = false
        /// The queue's room when the run of adds began: an add that passes it is the one refused.
        private var room = 0

        init(_ requests: some Collection<MPDRequest>, session: ClientSession, service: MPDService, deadline: Deadline,
             turn: PlayerTurn?) {
            // The list's names are read together on its first add.
            let names = requests.lazy.filter { ["add", "addid"].contains($0.name) && !$0.arguments.isEmpty }.map { $0.arguments[0] }
            resolver = SongResolver(host: service.host, allowsAbsolute: session.peer == .local, deadline: deadline, ahead: Array(names))
            host = service.host
            self.turn = turn
            database = service.host.database
        }

        /// Whether `request` is a change this list holds back: `add URI` (at the end) or `clear`.
        static func holdsBack(_ request: MPDRequest) -> Bool {
            request.name == "add" && request.arguments.count == 1 || request.name == "clear" && request.arguments.isEmpty
        }

        /// Appends `playables` when the queue has room for them all; else what fits lands and the add is refused.
        func append(_ playables: [Playable]) throws(MPDError) {
            if appending.isEmpty { room = clearing ? host.maxQueueLength : host.queueRoom }
            guard appending.count + playables.count <= room else {
                // As MPD: what fits is added, then the add is refused.
                appending += playables.prefix(max(room - appending.count, 0))
                land()
                throw MPDError.queueFull
            }
            appending += playables
        }

        /// Empties the queue when the adds after it land.
        func clear() {
            appending = []
            clearing = true
        }

        /// Makes the held-back changes, in one step.
        func land() {
            guard clearing || !appending.isEmpty else { return }
            let items = QueueItem.items(appending, database: database)
            host.exclusively(holding: turn) { turn -> Void in
                if clearing { turn.replaceQueue(with: items) } else { turn.insert(items, at: nil) }
            }
            clearing = false
            appending = []
        }
    }
}
