import XZCatalogue
import XZHostCore
import XZPlaybackValues
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
        /// The adds still to land, as the resolver's numbers of their names, and how many of each name's
        /// playables fit (all but at the queue's cap).
        private var appending: [(number: Int, count: Int)] = []
        private var appendingCount = 0
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

        /// Appends what `name` stands for when the queue has room for it all; else what fits lands and the
        /// add is refused. Only the name's number is kept: an add costs no copy of its songs.
        func add(_ name: String) throws(MPDError) {
            let (number, count): (Int, Int)
            do { (number, count) = try resolver.numbered(name) } catch { throw MPDError(failure: error) }
            if appending.isEmpty { room = clearing ? host.maxQueueLength : host.queueRoom }
            guard appendingCount + count <= room else {
                // As MPD: what fits is added, then the add is refused.
                if room > appendingCount { appending.append((number, room - appendingCount)) }
                land()
                throw MPDError.queueFull
            }
            appending.append((number, count))
            appendingCount += count
        }

        /// Empties the queue when the adds after it land.
        func clear() {
            appending = []
            appendingCount = 0
            clearing = true
        }

        /// Makes the held-back changes, in one step.
        func land() {
            guard clearing || !appending.isEmpty else { return }
            let items = queueItems()
            host.exclusively(holding: turn) { turn -> Void in
                if clearing { turn.replaceQueue(with: items) } else { turn.insert(items, at: nil) }
            }
            clearing = false
            appending = []
            appendingCount = 0
        }

        /// The items of the adds, each name's made once, in one read of the catalogue for all.
        private func queueItems() -> [QueueItem] {
            var offsets: [Int: Int] = [:]
            var unique: [Playable] = []
            for (number, _) in appending where offsets[number] == nil {
                offsets[number] = unique.count
                unique += resolver.playables(numbered: number)
            }
            let made = QueueItem.items(unique, database: database)
            var items: [QueueItem] = []
            items.reserveCapacity(appendingCount)
            for (number, count) in appending {
                let offset = offsets[number] ?? 0
                items += made[offset..<(offset + count)]
            }
            return items
        }
    }
}
