import Foundation
import XZAudio
import XZCatalogue
import XZHostCore
import XZPlaybackEngine
import XZPlaybackValues
import XZProtocol
import XZSystem

/// The command table: every command this host answers, with its argument count and whether it needs the
/// password, and the player side of MPD's protocol implemented over `PlayerHost`.
package enum MPDCommands {
    struct Invocation {
        let arguments: [String]
        let service: MPDService
        /// When the request (or its command list) must be answered by: long loops and queries check it.
        let deadline: Deadline
        /// The host's turn (`PlayerHost.exclusively`) when the command holds it throughout: a quick state
        /// change, or any command of a command list that changes state. Others take it with `exclusively`.
        var heldTurn: PlayerTurn?
        var session: ClientSession
        var response: MPDResponse
        /// The command list this runs in, which holds back its adds and clear and resolves its names.
        var list: ListQueue? = nil
        var host: PlayerHost { service.host }
        /// The one resolver of names to queue: the list's, else one for this request.
        var resolver: SongResolver {
            list?.resolver ?? SongResolver(host: host, allowsAbsolute: session.peer == .local, deadline: deadline)
        }
        /// The player of a command that holds the host's turn (`MPDCommand.runsExclusively`).
        var turn: PlayerTurn {
            guard let heldTurn else { preconditionFailure("a command acted on the player without the host's turn") }
            return heldTurn
        }
    }

    /// Runs one request. What it changes, the player and the host announce themselves. Past `deadline`
    /// (a command list's; nil: the service's budget from now, for a blocking command) the command stops
    /// where it checks it, with an ACK (`MPDError(failure:)`). `turn`: the caller (a command
    /// list) holds the host's turn for all its commands (`PlayerHost.exclusively`).
    static func execute(_ request: MPDRequest, session: inout ClientSession, service: MPDService,
                        deadline: Deadline? = nil, holding turn: PlayerTurn? = nil, list: ListQueue? = nil,
                        into response: inout MPDResponse) throws(MPDError) {
        guard let command = table[request.name] else {
            throw MPDError(.unknown, "unknown command \"\(request.name)\"", command: "")
        }
        guard session.authenticated || command.access == .beforePassword else {
            throw MPDError.permission("you don't have permission for \"\(request.name)\"")
        }
        guard command.arguments.contains(request.arguments.count) else {
            // As MPD words it: a command of one arity has a wrong number, others too few or too many.
            throw MPDError.arg(command.arguments.count == 1 ? "wrong number of arguments for \"\(request.name)\""
                : request.arguments.count < command.arguments.lowerBound
                ? "too few arguments for \"\(request.name)\"" : "too many arguments for \"\(request.name)\"")
        }
        // A list's held-back changes land before a row of another kind sees the queue.
        if let list, !ListQueue.holdsBack(request) { list.land() }
        // The response moves into the invocation and back, so answers are written once, not copied.
        let start = response.bytes.count
        // Quick commands do no long work: the clock is not read for them.
        let deadline = deadline ?? (command.work == .quick ? .never : Deadline(after: service.limits.requestBudget))
        var invocation = Invocation(arguments: request.arguments, service: service, deadline: deadline,
                                    heldTurn: turn, session: session,
                                    response: response, list: list)
        response = MPDResponse()
        defer { response = invocation.response }
        do {
            if command.runsExclusively && turn == nil {
                try service.host.exclusively { turn throws(MPDError) in
                    invocation.heldTurn = turn
                    defer { invocation.heldTurn = nil }
                    try command.run(&invocation)
                }
            } else {
                try command.run(&invocation)
            }
        } catch {
            // A failed command's partial answer is dropped; the ACK replaces it.
            invocation.response.truncate(to: start)
            throw error
        }
        session = invocation.session
    }

    /// Every command, one row each.
    static let allCommands: [MPDCommand] = playerCommands + databaseCommands + storedPlaylistCommands + stickerCommands
        + commentCommands + messageCommands + mountAndSongEditCommands + songRangeCommands + partitionCommands
        + extensionCommands + fingerprintCommands

    /// The rows by name; a name given twice is a mistake the table's test reports (the first row is kept).
    static let table: [String: MPDCommand] = Dictionary(allCommands.map { ($0.name, $0) }) { first, _ in first }

    /// Names of the commands a session may run now, or may not (`commands` / `notcommands`).
    static func names(permitted: Bool, session: ClientSession) -> [String] {
        // The session's own commands, as MPD lists them (command lists and noidle are not listed).
        let sessionCommands = ["close", "idle"]
        let all = allCommands.map { ($0.name, $0.access == .beforePassword) } + sessionCommands.map { ($0, $0 == "close") }
        return all.filter { (session.authenticated || $0.1) == permitted }.map(\.0).sorted()
    }

    static let playerCommands: [MPDCommand] = [
        // MARK: Connection
        MPDCommand("ping", 0...0, .beforePassword) { _ in },
        MPDCommand("password", 1...1, .beforePassword) { call throws(MPDError) in
            guard let password = call.service.password, call.arguments[0] == password else {
                throw MPDError.password("incorrect password")
            }
            call.session.acceptPassword(call.service)
        },
        MPDCommand("commands", 0...0, .beforePassword) { call in
            for name in names(permitted: true, session: call.session) { call.response.add("command", name) }
        },
        MPDCommand("notcommands", 0...0, .beforePassword) { call in
            for name in names(permitted: false, session: call.session) { call.response.add("command", name) }
        },
        MPDCommand("tagtypes", 0...Int.max, .readOnly) { call throws(MPDError) in
            guard let verb = call.arguments.first else {
                for tag in call.session.tagTypes.inTagTypeOrder { call.response.add("tagtype", tag.name) }
                return
            }
            let names = call.arguments.dropFirst()
            var tags = SongTags()
            for name in names {
                guard let tag = SongTag(name) else { throw MPDError.arg("Unknown tag type") }
                tags.insert(tag)
            }
            // Only tags the catalogue holds are kept: a client's set then names the records it shares.
            tags.formIntersection(.held)
            switch verb {
            case "clear" where names.isEmpty: call.session.tagTypes = []
            case "all" where names.isEmpty: call.session.tagTypes = .held
            case "enable" where !names.isEmpty: call.session.tagTypes.formUnion(tags)
            case "disable" where !names.isEmpty: call.session.tagTypes.subtract(tags)
            default: throw MPDError.arg("Unknown sub command")
            }
        },
        MPDCommand("urlhandlers", 0...0, .readOnly) { call in
            // What plays: file:// for a client that may name files (over the Unix socket, as MPD), and
            // http(s):// where the host can stream.
            let files = call.session.peer == .local ? ["file://"] : []
            let schemes = files + (call.host.canStream ? ["http://", "https://"] : [])
            for scheme in schemes { call.response.add("handler", scheme) }
        },
        MPDCommand("decoders", 0...0, .readOnly) { call in
            for plugin in AudioDecoders.plugins {
                call.response.add("plugin", plugin.name)
                for suffix in plugin.suffixes { call.response.add("suffix", suffix) }
                for mime in plugin.mimeTypes { call.response.add("mime_type", mime) }
            }
        },
        MPDCommand("config", 0...0, .readOnly) { call throws(MPDError) in
            guard call.session.peer == .local else { throw MPDError.permission("Command only permitted to local clients") }
            call.response.add("music_directory", call.host.naming.musicDirectory)
        },
        MPDCommand("binarylimit", 1...1, .readOnly) { call throws(MPDError) in
            // As MPD: at most the output limit less room for the answer's other lines.
            let limit = try MPDArgument.unsigned(call.arguments[0], maximum: max(call.service.limits.maxOutputBytes - 4096, 64))
            guard limit >= 64 else { throw MPDError.arg("Value too small") }
            call.session.binaryLimit = limit
        },

        // MARK: Status
        MPDCommand("status", 0...0, .readOnly) { call in status(&call) },
        MPDCommand("currentsong", 0...0, .readOnly, .lookup) { call in
            let snapshot = call.host.snapshot()
            guard let index = snapshot.currentIndex else { return }
            // A stream's decoder guesses a length (an MP3's Xing header); MPD lists only what its song says.
            let durationMs = snapshot.entries[index].item.isStream ? nil : snapshot.durationMs
            addQueueEntries(&call, snapshot, [index], durationMs: durationMs)
        },
        MPDCommand("stats", 0...0, .readOnly, .lookup) { call throws(MPDError) in
            let summary: CatalogueSummary
            do {
                let kept = call.service.catalogueSummary.withLock { $0 }
                summary = try call.host.database.catalogueSummary(reusing: kept)
                if summary != kept { call.service.catalogueSummary.withLock { $0 = summary } }
            } catch {
                throw MPDError(failure: error)
            }
            call.response.add("uptime", Int(Date().timeIntervalSince(call.host.startedAt)))
            call.response.add("playtime", call.host.playTimeMs / 1000)
            call.response.add("artists", summary.artists)
            call.response.add("albums", summary.albums)
            call.response.add("songs", summary.songs)
            call.response.add("db_playtime", summary.durationMs / 1000)
            call.response.add("db_update", Int(summary.updatedAt?.timeIntervalSince1970 ?? 0))
        },
        MPDCommand("clearerror", 0...0, .changesState) { call in call.turn.clearError() },

        // MARK: Options
        MPDCommand("consume", 1...1, .changesState) { call throws(MPDError) in call.turn.setConsume(try MPDArgument.boolean(call.arguments[0])) },
        MPDCommand("random", 1...1, .changesState) { call throws(MPDError) in call.turn.setShuffle(try MPDArgument.boolean(call.arguments[0])) },
        MPDCommand("repeat", 1...1, .changesState) { call throws(MPDError) in call.turn.setRepeats(try MPDArgument.boolean(call.arguments[0])) },
        MPDCommand("single", 1...1, .changesState) { call throws(MPDError) in
            guard let mode = SingleMode(rawValue: call.arguments[0]) else {
                throw MPDError.arg("Unrecognized single mode, expected 0, 1, or oneshot")
            }
            call.turn.setSingle(mode)
        },
        MPDCommand("setvol", 1...1, .changesState) { call throws(MPDError) in
            call.turn.setVolume(try MPDArgument.unsigned(call.arguments[0], maximum: 100))
        },
        MPDCommand("volume", 1...1, .changesState) { call throws(MPDError) in
            let change = try MPDArgument.integer(call.arguments[0], in: -100...100)
            call.turn.changeVolume(by: change)
        },
        MPDCommand("getvol", 0...0, .readOnly) { call in call.response.add("volume", call.host.snapshot().volume) },
        MPDCommand("crossfade", 1...1, .changesState) { call throws(MPDError) in
            let seconds = try MPDArgument.unsigned(call.arguments[0])
            // Held to what a fade can be (CrossfadeSettings.longestSeconds), as the setting keeps it.
            call.turn.updateCrossfade { $0.seconds = seconds }
        },
        MPDCommand("mixrampdb", 1...1, .changesState) { call throws(MPDError) in
            let decibels = try MPDArgument.float(call.arguments[0])
            call.turn.updateCrossfade { $0.mixRampDB = decibels }
        },
        MPDCommand("mixrampdelay", 1...1, .changesState) { call throws(MPDError) in
            let seconds = try MPDArgument.float(call.arguments[0])
            call.turn.updateCrossfade { $0.mixRampDelay = seconds }
        },
        MPDCommand("replay_gain_mode", 1...1, .changesState) { call throws(MPDError) in
            guard let mode = ReplayGainMode(rawValue: call.arguments[0]) else {
                throw MPDError.arg("Unrecognized replay gain mode")
            }
            call.turn.replayGain.mode = mode
        },
        MPDCommand("replay_gain_status", 0...0, .readOnly) { call in call.response.add("replay_gain_mode", call.host.snapshot().replayGainMode.rawValue) },

        // MARK: Playback
        MPDCommand("play", 0...1, .changesState) { call throws(MPDError) in
            // -1 (or none) resumes, as MPD; any other position must be in the queue.
            guard let argument = call.arguments.first, case let index = try MPDArgument.integer(argument), index != -1 else {
                call.turn.playFromWhereItIs()
                return
            }
            guard index >= 0, call.turn.playItem(at: index) else { throw MPDError.arg("Bad song index") }
        },
        MPDCommand("playid", 0...1, .changesState) { call throws(MPDError) in
            guard let argument = call.arguments.first, case let id = try MPDArgument.integer(argument), id != -1 else {
                call.turn.playFromWhereItIs()
                return
            }
            guard id >= 0 else { throw MPDError.noExist("No such song") }
            let index = try queueIndex(id: argument, call.turn.snapshot())
            call.turn.playItem(at: index)
        },
        MPDCommand("pause", 0...1, .changesState) { call throws(MPDError) in
            guard let argument = call.arguments.first else {
                call.turn.togglePause()
                return
            }
            if try MPDArgument.boolean(argument) { call.turn.pause() } else { call.turn.resume() }
        },
        MPDCommand("stop", 0...0, .changesState) { call in call.turn.stop() },
        MPDCommand("next", 0...0, .changesState) { call throws(MPDError) in
            guard call.turn.nextIfLoaded() else { throw MPDError.playerSync("Not playing") }
        },
        MPDCommand("previous", 0...0, .changesState) { call throws(MPDError) in
            guard call.turn.previousIfLoaded() else { throw MPDError.playerSync("Not playing") }
        },
        // Seeks answer once the player is at the new place, as MPD's: off the event loop, for the wait.
        MPDCommand("seek", 2...2, .changesState, .lookup) { call throws(MPDError) in
            let index = try MPDArgument.unsigned(call.arguments[0])
            let target = try seekTarget(call.arguments[1], relativeAllowed: false)
            try seek(call, to: target) { _ in index }
        },
        MPDCommand("seekid", 2...2, .changesState, .lookup) { call throws(MPDError) in
            _ = try MPDArgument.unsigned(call.arguments[0])
            let target = try seekTarget(call.arguments[1], relativeAllowed: false)
            try seek(call, to: target) { snapshot throws(MPDError) in try queueIndex(id: call.arguments[0], snapshot) }
        },
        MPDCommand("seekcur", 1...1, .changesState, .lookup) { call throws(MPDError) in
            let target = try seekTarget(call.arguments[0], relativeAllowed: true)
            try seek(call, to: target) { snapshot throws(MPDError) in
                guard let index = snapshot.currentIndex, snapshot.state == .playing || snapshot.state == .paused else {
                    throw MPDError.playerSync("Not playing")
                }
                return index
            }
        },

        // MARK: Queue
        MPDCommand("add", 1...2, .changesState, .lookup, paths: [0]) { call throws(MPDError) in
            let position = call.arguments.count > 1 ? call.arguments[1] : nil
            // As MPD: the position is refused before the song is looked for.
            if let position { _ = try insertPosition(position, call.host.snapshot()) }
            if position == nil, let list = call.list { return try list.add(call.arguments[0]) }
            let items = try items(forURI: call.arguments[0], call: call)
            try enqueue(items, at: position, call)
        },
        MPDCommand("addid", 1...2, .changesState, .lookup, paths: [0]) { call throws(MPDError) in
            let position = call.arguments.count > 1 ? call.arguments[1] : nil
            if let position { _ = try insertPosition(position, call.host.snapshot()) }
            let found: [QueueItem]
            do throws(MPDError) {
                found = try items(forURI: call.arguments[0], call: call)
            } catch {
                // addid names one song, so MPD says so of a name its database does not hold.
                throw error.message == uncataloguedAdd ? MPDError.noExist("No such song") : error
            }
            guard found.count == 1 else { throw MPDError.noExist("No such song") }
            guard let id = try enqueue(found, at: position, call).first else { throw MPDError.noExist("No such song") }
            call.response.add("Id", id)
        },
        MPDCommand("clear", 0...0, .changesState) { call in
            if let list = call.list { list.clear() } else { call.turn.clearQueue() }
        },
        MPDCommand("delete", 1...1, .changesState) { call throws(MPDError) in
            // As MPD: a start past the queue is refused, an end past it cut, nothing to delete no error.
            let removed = try queueRange(call.arguments[0], count: call.turn.snapshot().entries.count)
            guard removed.isEmpty || call.turn.removeFromQueue(range: removed) else { throw MPDError.arg("Bad song index") }
        },
        MPDCommand("deleteid", 1...1, .changesState) { call throws(MPDError) in
            let index = try queueIndex(id: call.arguments[0], call.turn.snapshot())
            call.turn.removeFromQueue(range: index..<(index + 1))
        },
        MPDCommand("move", 2...2, .changesState) { call throws(MPDError) in
            let snapshot = call.turn.snapshot()
            let parsed = try MPDArgument.range(call.arguments[0])
            guard let range = parsed.closed else { throw MPDError.arg("Open-ended range not supported") }
            let to = try moveDestination(call.arguments[1], moving: range, snapshot)
            guard call.turn.move(range: range, to: to) else { throw MPDError.arg("Bad song index") }
        },
        MPDCommand("moveid", 2...2, .changesState) { call throws(MPDError) in
            let snapshot = call.turn.snapshot()
            let index = try queueIndex(id: call.arguments[0], snapshot)
            let to = try moveDestination(call.arguments[1], moving: index..<(index + 1), snapshot)
            guard call.turn.move(range: index..<(index + 1), to: to) else { throw MPDError.arg("Bad song index") }
        },
        MPDCommand("swap", 2...2, .changesState) { call throws(MPDError) in
            guard call.turn.swap(try MPDArgument.unsigned(call.arguments[0]), try MPDArgument.unsigned(call.arguments[1])) else {
                throw MPDError.arg("Bad song index")
            }
        },
        MPDCommand("swapid", 2...2, .changesState) { call throws(MPDError) in
            let snapshot = call.turn.snapshot()
            call.turn.swap(try queueIndex(id: call.arguments[0], snapshot), try queueIndex(id: call.arguments[1], snapshot))
        },
        MPDCommand("shuffle", 0...1, .changesState) { call throws(MPDError) in
            let count = call.turn.snapshot().entries.count
            var range = 0..<count
            if let argument = call.arguments.first { range = try queueRange(argument, count: count) }
            // As MPD: fewer than two entries have no order to change, and the queue's version stays.
            guard range.count > 1 else { return }
            guard call.turn.shuffleQueue(range: range) else { throw MPDError.arg("Bad song index") }
        },
        MPDCommand("prio", 2...Int.max, .changesState) { call throws(MPDError) in
            let priority = try MPDArgument.priorityValue(call.arguments[0])
            let count = call.turn.snapshot().entries.count
            // A set of positions: however many ranges overlap, the work is bounded by the queue.
            var positions = IndexSet()
            for argument in call.arguments.dropFirst() { positions.insert(integersIn: try queueRange(argument, count: count)) }
            guard !positions.isEmpty else { return }
            guard call.turn.setPriority(priority, at: Array(positions)) else { throw MPDError.arg("Bad song index") }
        },
        MPDCommand("prioid", 2...Int.max, .changesState) { call throws(MPDError) in
            let priority = try MPDArgument.priorityValue(call.arguments[0])
            let snapshot = call.turn.snapshot()
            var indices: [Int] = []
            for argument in call.arguments.dropFirst() { indices.append(try queueIndex(id: argument, snapshot)) }
            call.turn.setPriority(priority, at: indices)
        },
        MPDCommand("playlistinfo", 0...1, .readOnly, .lookup) { call throws(MPDError) in
            let snapshot = call.host.snapshot()
            var range = 0..<snapshot.entries.count
            if let argument = call.arguments.first { range = try queueRange(argument, count: snapshot.entries.count) }
            addQueueEntries(&call, snapshot, Array(range))
        },
        MPDCommand("playlist", 0...0, .readOnly) { call in
            for (index, entry) in call.host.snapshot().entries.enumerated() {
                // MPD writes "0:file: URI", no space after the position.
                call.response.appendLine("\(index):file: " + MPDResponse.singleLine(call.host.uri(of: entry.item)))
            }
        },
        MPDCommand("playlistid", 0...1, .readOnly, .lookup) { call throws(MPDError) in
            let snapshot = call.host.snapshot()
            var indices = Array(snapshot.entries.indices)
            if let argument = call.arguments.first { indices = [try queueIndex(id: argument, snapshot)] }
            addQueueEntries(&call, snapshot, indices)
        },
        MPDCommand("plchanges", 1...2, .readOnly, .lookup) { call throws(MPDError) in
            let snapshot = call.host.snapshot()
            addQueueEntries(&call, snapshot, try changedSince(call.arguments, snapshot))
        },
        MPDCommand("plchangesposid", 1...2, .readOnly) { call throws(MPDError) in
            let snapshot = call.host.snapshot()
            for index in try changedSince(call.arguments, snapshot) {
                call.response.add("cpos", index)
                call.response.add("Id", snapshot.entries[index].id)
            }
        },
        MPDCommand("playlistfind", 1...Int.max, .readOnly, .blocking) { call throws(MPDError) in try findInQueue(&call, exact: true) },
        MPDCommand("playlistsearch", 1...Int.max, .readOnly, .blocking) { call throws(MPDError) in try findInQueue(&call, exact: false) },

        // MARK: Outputs
        MPDCommand("outputs", 0...0, .readOnly) { call in
            // No attribute lines: MPD prints none for the plugins here (null, ao, alsa, pulse, fifo, recorder, httpd).
            for output in call.host.outputStatuses {
                call.response.add("outputid", output.id)
                call.response.add("outputname", output.name)
                call.response.add("plugin", output.plugin)
                call.response.add("outputenabled", output.enabled ? 1 : 0)
            }
        },
        MPDCommand("enableoutput", 1...1, .changesState) { call throws(MPDError) in
            guard call.turn.setOutputEnabled(true, id: try MPDArgument.unsigned(call.arguments[0])) else { throw noSuchOutput }
        },
        MPDCommand("disableoutput", 1...1, .changesState) { call throws(MPDError) in
            guard call.turn.setOutputEnabled(false, id: try MPDArgument.unsigned(call.arguments[0])) else { throw noSuchOutput }
        },
        MPDCommand("toggleoutput", 1...1, .changesState) { call throws(MPDError) in
            guard call.turn.toggleOutput(id: try MPDArgument.unsigned(call.arguments[0])) else { throw noSuchOutput }
        },
    ]

    /// MPD's answer to an output id it does not have.
    static let noSuchOutput = MPDError.noExist("No such audio output")
}
