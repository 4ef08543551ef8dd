import Foundation
import XZAudio
import XZPlayback

/// The command table: every command this host answers, with its argument count and whether it needs the
/// password, and the player side of MPD's protocol implemented over `PlayerHost`.
public enum MPDCommands {
    struct Invocation {
        let arguments: [String]
        let host: PlayerHost
        var session: ClientSession
        var response: MPDResponse
        let password: String?
        var player: Player { host.player }
    }

    struct Spec {
        var arguments: ClosedRange<Int>
        /// Allowed before the password was given.
        var open = false
        /// Changes nothing of the host (from `readOnly`).
        var readOnly = false
        var run: (inout Invocation) throws(MPDError) -> Void
    }

    /// Runs one request; returns false when the command cannot have changed the host.
    static func execute(_ request: MPDRequest, session: inout ClientSession, host: PlayerHost, password: String?,
                        into response: inout MPDResponse) throws(MPDError) -> Bool {
        guard let spec = table[request.name] else {
            throw MPDError(.unknown, "unknown command \"\(request.name)\"", command: "")
        }
        guard session.authenticated || spec.open else {
            throw MPDError(.permission, "you don't have permission for \"\(request.name)\"")
        }
        guard spec.arguments.contains(request.arguments.count) else {
            throw MPDError(.arg, request.arguments.count < spec.arguments.lowerBound
                ? "too few arguments for \"\(request.name)\"" : "too many arguments for \"\(request.name)\"")
        }
        // The response moves into the invocation and back, so answers are written once, not copied.
        let start = response.bytes.count
        var invocation = Invocation(arguments: request.arguments, host: host, session: session, response: response,
                                    password: password)
        response = MPDResponse()
        defer { response = invocation.response }
        do {
            try spec.run(&invocation)
        } catch {
            // A failed command's partial answer is dropped; the ACK replaces it.
            invocation.response.truncate(to: start)
            throw error
        }
        session = invocation.session
        return !spec.readOnly
    }

    /// Commands that change nothing of the host, so no client needs to be told after them.
    static let readOnly: Set<String> = Set([
        "ping", "password", "commands", "notcommands", "tagtypes", "urlhandlers", "decoders", "config",
        "binarylimit", "status", "currentsong", "stats", "getvol", "replay_gain_status", "playlist", "playlistinfo",
        "playlistid", "plchanges", "plchangesposid", "playlistfind", "playlistsearch", "outputs",
        "listplaylists", "listplaylist", "listplaylistinfo",
    ]).union(databaseReadOnly)

    /// Names of the commands a session may run now, or may not (`commands` / `notcommands`).
    static func names(permitted: Bool, session: ClientSession) -> [String] {
        // The session's own commands, as MPD lists them (command lists and noidle are not listed).
        let sessionCommands = ["close", "idle"]
        let all = table.map { ($0.key, $0.value.open) } + sessionCommands.map { ($0, $0 == "close") }
        return all.filter { (session.authenticated || $0.1) == permitted }.map(\.0).sorted()
    }

    static let table: [String: Spec] = {
        var table: [String: Spec] = [:]
        func add(_ name: String, _ arguments: ClosedRange<Int>, open: Bool = false,
                 _ run: @escaping (inout Invocation) throws(MPDError) -> Void) {
            table[name] = Spec(arguments: arguments, open: open, run: run)
        }

        // MARK: Connection
        add("ping", 0...0, open: true) { _ in }
        add("password", 1...1, open: true) { call throws(MPDError) in
            guard let password = call.password, call.arguments[0] == password else {
                throw MPDError(.password, "incorrect password")
            }
            call.session.authenticated = true
        }
        add("commands", 0...0, open: true) { call in
            for name in names(permitted: true, session: call.session) { call.response.add("command", name) }
        }
        add("notcommands", 0...0, open: true) { call in
            for name in names(permitted: false, session: call.session) { call.response.add("command", name) }
        }
        add("tagtypes", 0...Int.max) { call throws(MPDError) in
            guard let verb = call.arguments.first else {
                for tag in SongTag.allCases where call.session.tagTypes.contains(tag) { call.response.add("tagtype", tag.rawValue) }
                return
            }
            let names = call.arguments.dropFirst()
            var tags: [SongTag] = []
            for name in names {
                guard SongTag.protocolNames.contains(name.lowercased()) else { throw MPDError(.arg, "Unknown tag type: \(name)") }
                if let tag = SongTag(name: name) { tags.append(tag) }
            }
            switch verb {
            case "clear" where names.isEmpty: call.session.tagTypes = []
            case "all" where names.isEmpty: call.session.tagTypes = Set(SongTag.allCases)
            case "enable" where !names.isEmpty: call.session.tagTypes.formUnion(tags)
            case "disable" where !names.isEmpty: call.session.tagTypes.subtract(tags)
            default: throw MPDError(.arg, "Unknown sub command")
            }
        }
        add("urlhandlers", 0...0) { call in
            for scheme in ["file://", "http://", "https://"] { call.response.add("handler", scheme) }
        }
        add("decoders", 0...0) { call in
            for plugin in AudioDecoders.plugins {
                call.response.add("plugin", plugin.name)
                for suffix in plugin.suffixes { call.response.add("suffix", suffix) }
                for mime in plugin.mimeTypes { call.response.add("mime_type", mime) }
            }
        }
        add("config", 0...0) { call throws(MPDError) in
            guard call.session.peer == .local else { throw MPDError(.permission, "Command only permitted to local clients") }
            call.response.add("music_directory", call.host.uris.musicDirectory)
        }
        // XZMusic's own: the playing song's lyrics shift changed (already stored by the client).
        add("xzmusic_lyrics_offset", 1...1) { call throws(MPDError) in
            call.player.setLyricsAdjustment(try integer(call.arguments[0]))
        }
        add("binarylimit", 1...1) { call throws(MPDError) in
            let limit = try integer(call.arguments[0])
            guard limit >= 64 else { throw MPDError(.arg, "Value too small") }
            call.session.binaryLimit = limit
        }

        // MARK: Status
        add("status", 0...0) { call in status(&call) }
        add("currentsong", 0...0) { call in
            let snapshot = call.player.snapshot()
            guard let index = snapshot.currentIndex else { return }
            call.response.addQueueEntry(snapshot.entries[index], position: index, host: call.host,
                                        tags: call.session.tagTypes, durationMs: snapshot.durationMs)
        }
        add("stats", 0...0) { call in
            let summary = (try? call.host.database.catalogueSummary())
            call.response.add("uptime", Int(Date().timeIntervalSince(call.host.startedAt)))
            call.response.add("playtime", call.host.playTimeMs / 1000)
            call.response.add("artists", summary?.singers ?? 0)
            call.response.add("albums", summary?.albums ?? 0)
            call.response.add("songs", summary?.songs ?? 0)
            call.response.add("db_playtime", (summary?.durationMs ?? 0) / 1000)
            call.response.add("db_update", Int(summary?.updatedAt?.timeIntervalSince1970 ?? 0))
        }
        add("clearerror", 0...0) { call in call.player.clearError() }

        // MARK: Options
        add("consume", 1...1) { call throws(MPDError) in call.player.setConsume(try boolean(call.arguments[0])) }
        add("random", 1...1) { call throws(MPDError) in call.player.setShuffle(try boolean(call.arguments[0])) }
        add("repeat", 1...1) { call throws(MPDError) in call.player.setRepeats(try boolean(call.arguments[0])) }
        add("single", 1...1) { call throws(MPDError) in
            guard let mode = SingleMode(rawValue: call.arguments[0]) else {
                throw MPDError(.arg, "Unrecognized single mode, expected 0, 1, or oneshot")
            }
            call.player.setSingle(mode)
        }
        add("setvol", 1...1) { call throws(MPDError) in
            let level = try integer(call.arguments[0])
            guard level >= 0 else { throw MPDError(.arg, "Number is negative: \(level)") }
            guard level <= 100 else { throw MPDError(.arg, "Number too large: \(level)") }
            call.player.setVolume(level)
        }
        add("volume", 1...1) { call throws(MPDError) in
            let change = try integer(call.arguments[0])
            guard (-100...100).contains(change) else { throw MPDError(.arg, "Invalid volume value") }
            call.player.setVolume(call.player.snapshot().volume + change)
        }
        add("getvol", 0...0) { call in call.response.add("volume", call.player.snapshot().volume) }
        add("crossfade", 1...1) { call throws(MPDError) in
            // Tracks join gaplessly; there is no crossfade to set.
            guard try integer(call.arguments[0]) == 0 else { throw MPDError(.arg, "crossfade is not supported") }
        }
        add("mixrampdb", 1...1) { _ in }
        add("mixrampdelay", 1...1) { _ in }
        add("replay_gain_mode", 1...1) { call throws(MPDError) in
            guard let mode = ReplayGainMode(rawValue: call.arguments[0]) else {
                throw MPDError(.arg, "Unrecognized replay gain mode")
            }
            call.player.replayGain.mode = mode
        }
        add("replay_gain_status", 0...0) { call in call.response.add("replay_gain_mode", call.player.snapshot().replayGainMode.rawValue) }

        // MARK: Playback
        add("play", 0...1) { call throws(MPDError) in
            guard let argument = call.arguments.first, try integer(argument) >= 0 else {
                resume(call.player)
                return
            }
            guard call.player.playItem(at: try integer(argument)) else { throw MPDError(.arg, "Bad song index") }
        }
        add("playid", 0...1) { call throws(MPDError) in
            guard let argument = call.arguments.first, try integer(argument) >= 0 else {
                resume(call.player)
                return
            }
            let index = try queueIndex(id: argument, call.player.snapshot())
            call.player.playItem(at: index)
        }
        add("pause", 0...1) { call throws(MPDError) in
            guard let argument = call.arguments.first else {
                call.player.togglePause()
                return
            }
            if try boolean(argument) { call.player.pause() } else { call.player.resume() }
        }
        add("stop", 0...0) { call in call.player.stop() }
        add("next", 0...0) { call throws(MPDError) in
            guard call.player.snapshot().state != .idle else { throw MPDError(.playerSync, "Not playing") }
            call.player.next()
        }
        add("previous", 0...0) { call throws(MPDError) in
            guard call.player.snapshot().state != .idle else { throw MPDError(.playerSync, "Not playing") }
            call.player.previous()
        }
        add("seek", 2...2) { call throws(MPDError) in
            let index = try integer(call.arguments[0])
            let target = try seekTarget(call.arguments[1], relativeAllowed: false)
            try seek(&call, index: index, target: target)
        }
        add("seekid", 2...2) { call throws(MPDError) in
            let index = try queueIndex(id: call.arguments[0], call.player.snapshot())
            try seek(&call, index: index, target: try seekTarget(call.arguments[1], relativeAllowed: false))
        }
        add("seekcur", 1...1) { call throws(MPDError) in
            let snapshot = call.player.snapshot()
            guard let index = snapshot.currentIndex, snapshot.state == .playing || snapshot.state == .paused else {
                throw MPDError(.playerSync, "Not playing")
            }
            try seek(&call, index: index, target: try seekTarget(call.arguments[0], relativeAllowed: true))
        }

        // MARK: Queue
        add("add", 1...2) { call throws(MPDError) in
            let items = try items(forURI: call.arguments[0], call: call)
            let position = try call.arguments.count > 1 ? insertPosition(call.arguments[1], call.player.snapshot()) : nil
            call.player.insert(items, at: position)
        }
        add("addid", 1...2) { call throws(MPDError) in
            let items = try items(forURI: call.arguments[0], call: call)
            guard items.count == 1 else { throw MPDError(.noExist, "No such song") }
            let position = try call.arguments.count > 1 ? insertPosition(call.arguments[1], call.player.snapshot()) : nil
            guard let id = call.player.insert(items, at: position).first else { throw MPDError(.noExist, "No such song") }
            call.response.add("Id", id)
        }
        add("clear", 0...0) { call in call.player.clearQueue() }
        add("delete", 1...1) { call throws(MPDError) in
            let range = try positionRange(call.arguments[0], count: call.player.snapshot().entries.count)
            guard call.player.removeFromQueue(range: range) else { throw MPDError(.arg, "Bad song index") }
        }
        add("deleteid", 1...1) { call throws(MPDError) in
            let index = try queueIndex(id: call.arguments[0], call.player.snapshot())
            call.player.removeFromQueue(range: index..<(index + 1))
        }
        add("move", 2...2) { call throws(MPDError) in
            let snapshot = call.player.snapshot()
            let range = try positionRange(call.arguments[0], count: snapshot.entries.count)
            let to = try insertPosition(call.arguments[1], snapshot)
            guard call.player.move(range: range, to: to) else { throw MPDError(.arg, "Bad song index") }
        }
        add("moveid", 2...2) { call throws(MPDError) in
            let snapshot = call.player.snapshot()
            let index = try queueIndex(id: call.arguments[0], snapshot)
            let to = try insertPosition(call.arguments[1], snapshot)
            guard call.player.move(range: index..<(index + 1), to: to) else { throw MPDError(.arg, "Bad song index") }
        }
        add("swap", 2...2) { call throws(MPDError) in
            guard call.player.swap(try integer(call.arguments[0]), try integer(call.arguments[1])) else {
                throw MPDError(.arg, "Bad song index")
            }
        }
        add("swapid", 2...2) { call throws(MPDError) in
            let snapshot = call.player.snapshot()
            call.player.swap(try queueIndex(id: call.arguments[0], snapshot), try queueIndex(id: call.arguments[1], snapshot))
        }
        add("shuffle", 0...1) { call throws(MPDError) in
            let count = call.player.snapshot().entries.count
            var range = 0..<count
            if let argument = call.arguments.first { range = try positionRange(argument, count: count) }
            guard call.player.shuffleQueue(range: range) else { throw MPDError(.arg, "Bad song index") }
        }
        add("prio", 2...Int.max) { call throws(MPDError) in
            let priority = try priorityValue(call.arguments[0])
            let count = call.player.snapshot().entries.count
            var indices: [Int] = []
            for argument in call.arguments.dropFirst() { indices += try positionRange(argument, count: count) }
            guard call.player.setPriority(priority, at: indices) else { throw MPDError(.arg, "Bad song index") }
        }
        add("prioid", 2...Int.max) { call throws(MPDError) in
            let priority = try priorityValue(call.arguments[0])
            let snapshot = call.player.snapshot()
            var indices: [Int] = []
            for argument in call.arguments.dropFirst() { indices.append(try queueIndex(id: argument, snapshot)) }
            call.player.setPriority(priority, at: indices)
        }
        add("playlistinfo", 0...1) { call throws(MPDError) in
            let snapshot = call.player.snapshot()
            var range = 0..<snapshot.entries.count
            if let argument = call.arguments.first {
                range = try positionRange(argument, count: snapshot.entries.count)
                guard range.upperBound <= snapshot.entries.count else { throw MPDError(.arg, "Bad song index") }
            }
            for index in range {
                call.response.addQueueEntry(snapshot.entries[index], position: index, host: call.host, tags: call.session.tagTypes)
            }
        }
        table["playlist"] = Spec(arguments: 0...0) { call in
            for (index, entry) in call.player.snapshot().entries.enumerated() {
                // MPD writes "0:file: URI", no space after the position.
                call.response.appendLine("\(index):file: " + MPDResponse.singleLine(call.host.uri(of: entry.item)))
            }
        }
        add("playlistid", 0...1) { call throws(MPDError) in
            let snapshot = call.player.snapshot()
            var indices = Array(snapshot.entries.indices)
            if let argument = call.arguments.first { indices = [try queueIndex(id: argument, snapshot)] }
            for index in indices {
                call.response.addQueueEntry(snapshot.entries[index], position: index, host: call.host, tags: call.session.tagTypes)
            }
        }
        add("plchanges", 1...2) { call throws(MPDError) in
            let snapshot = call.player.snapshot()
            for index in try changedSince(call.arguments, snapshot) {
                call.response.addQueueEntry(snapshot.entries[index], position: index, host: call.host, tags: call.session.tagTypes)
            }
        }
        add("plchangesposid", 1...2) { call throws(MPDError) in
            let snapshot = call.player.snapshot()
            for index in try changedSince(call.arguments, snapshot) {
                call.response.add("cpos", index)
                call.response.add("Id", snapshot.entries[index].id)
            }
        }
        add("playlistfind", 1...Int.max) { call throws(MPDError) in try findInQueue(&call, exact: true) }
        add("playlistsearch", 1...Int.max) { call throws(MPDError) in try findInQueue(&call, exact: false) }

        // MARK: Outputs
        add("outputs", 0...0) { call in
            call.response.add("outputid", 0)
            call.response.add("outputname", call.host.output.description)
            call.response.add("plugin", call.host.output.isFile ? "file" : "ao")
            call.response.add("outputenabled", call.host.isOutputEnabled ? 1 : 0)
        }
        add("enableoutput", 1...1) { call throws(MPDError) in
            guard try integer(call.arguments[0]) == 0 else { throw MPDError(.noExist, "No such audio output") }
            call.host.setOutputEnabled(true)
        }
        add("disableoutput", 1...1) { call throws(MPDError) in
            guard try integer(call.arguments[0]) == 0 else { throw MPDError(.noExist, "No such audio output") }
            call.host.setOutputEnabled(false)
        }
        add("toggleoutput", 1...1) { call throws(MPDError) in
            guard try integer(call.arguments[0]) == 0 else { throw MPDError(.noExist, "No such audio output") }
            call.host.setOutputEnabled(!call.host.isOutputEnabled)
        }
        registerStoredPlaylists(into: &table)
        registerStickers(into: &table)
        registerLibraryChanges(into: &table)
        addDatabaseCommands { add($0, $1, $2) }
        for name in readOnly { table[name]?.readOnly = true }
        return table
    }()
}
