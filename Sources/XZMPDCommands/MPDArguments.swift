import Foundation
import XZSystem
import XZAudio
import XZCatalogue
import XZHostCore
import XZPlaybackEngine
import XZPlaybackValues
import XZProtocol
import XZSystem

/// What the command table's handlers share: reading arguments as MPD does, and the answers several build.
extension MPDCommands {
    // MARK: Helpers

    /// Queue positions (within the optional range) of entries changed after version `arguments[0]`; a
    /// version newer than the queue's is a client out of step, who gets everything (as MPD). The work is
    /// bounded by the queue, whatever range the client wrote.
    static func changedSince(_ arguments: [String], _ snapshot: PlayerSnapshot) throws(MPDError) -> [Int] {
        var version = try MPDArgument.version(arguments[0])
        if version > snapshot.queueVersion { version = -1 }
        let count = snapshot.entries.count
        let range = try arguments.count > 1 ? MPDArgument.range(arguments[1]).clipped(to: count) ?? 0..<0 : 0..<count
        return range.filter { snapshot.entries[$0].version > version }
    }

    /// A range of queue positions cut to the queue, or MPD's "Bad song index" when it starts past it.
    static func queueRange(_ text: String, count: Int) throws(MPDError) -> Range<Int> {
        guard let range = try MPDArgument.range(text).clipped(to: count) else { throw MPDError.arg("Bad song index") }
        return range
    }

    /// Lists queue entries at `indices` as MPD does, their catalogue songs read in one query.
    static func addQueueEntries(_ call: inout Invocation, _ snapshot: PlayerSnapshot, _ indices: [Int],
                                durationMs: Int? = nil) {
        let songs = catalogueSongs(indices.map { snapshot.entries[$0] }, call.host)
        for index in indices {
            if call.response.isFull { return }
            let entry = snapshot.entries[index]
            call.response.addQueueEntry(entry, position: index, host: call.host, tags: call.session.tagTypes,
                                        durationMs: durationMs, catalogue: entry.item.songId.flatMap { songs[$0] })
        }
    }

    /// The catalogue songs of queue entries, by id, in one read.
    static func catalogueSongs(_ entries: [QueueEntry], _ host: PlayerHost) -> [Int64: Song] {
        let ids = entries.compactMap(\.item.songId)
        guard !ids.isEmpty else { return [:] }
        // Unreadable, the entries are listed from what the queue keeps of them.
        let songs = (try? host.database.songs(ids: ids)) ?? []
        return Dictionary(songs.map { ($0.id, $0) }) { first, _ in first }
    }

    /// A float as MPD prints one: the shortest text of its single-precision value ("-17", "1.5", "nan").
    static func mpdFloat(_ value: Double) -> String {
        let text = Float(value).description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    static func status(_ call: inout Invocation) {
        let status = call.host.snapshot()
        call.response.add("volume", status.volume)
        call.response.add("repeat", status.repeats ? 1 : 0)
        call.response.add("random", status.shuffle ? 1 : 0)
        call.response.add("single", status.single.rawValue)
        call.response.add("consume", status.consume ? 1 : 0)
        call.response.add("partition", defaultPartition)
        call.response.add("playlist", status.queueVersion)
        call.response.add("playlistlength", status.queueLength)
        call.response.add("mixrampdb", mpdFloat(status.crossfade.mixRampDB))
        let state: String
        switch status.state {
        case .playing: state = "play"
        case .paused: state = "pause"
        case .idle, .stopped: state = "stop"
        }
        call.response.add("state", state)
        // As MPD: only when set.
        if status.crossfade.seconds > 0 { call.response.add("xfade", status.crossfade.seconds) }
        if status.crossfade.isMixRampEnabled { call.response.add("mixrampdelay", mpdFloat(status.crossfade.mixRampDelay)) }
        addExtensionStatus(&call, status)
        if let index = status.currentIndex, let id = status.currentId {
            call.response.add("song", index)
            call.response.add("songid", id)
        }
        if status.state == .playing || status.state == .paused {
            // In a part of a song (rangeid), times count from the part's start, as MPD's.
            let range = status.currentIndex.flatMap { status.entries[$0].item.range }
            let start = range?.startMs ?? 0
            let duration = status.durationMs.map { (range?.endMs ?? $0) - start }
            let elapsed = max(0, status.positionMs - start)
            call.response.add("time", "\((elapsed + 500) / 1000):\(((duration ?? 0) + 500) / 1000)")
            call.response.add("elapsed", milliseconds: elapsed)
            if let format = status.audioFormat {
                call.response.add("bitrate", format.bitrateKbps ?? 0)
            }
            if let duration { call.response.add("duration", milliseconds: duration) }
            if let format = status.audioFormat {
                call.response.add("audio", format.mpdFormat)
            }
        }
        if status.currentIndex != nil, let next = status.nextIndex, let nextId = status.nextId {
            call.response.add("nextsong", next)
            call.response.add("nextsongid", nextId)
        }
        if let job = call.host.updates.current { call.response.add("updating_db", job) }
        if let error = status.lastError { call.response.add("error", libraryNamed(error, call.host.naming)) }
    }

    /// A player error (`PATH: why`) with its file named as clients name it (`album/1.mp3: why`): no answer
    /// tells a client the music or library folder's absolute path.
    static func libraryNamed(_ error: String, _ naming: SongNaming) -> String {
        guard let root = naming.roots.first(where: { error.hasPrefix($0.folder) }) else { return error }
        return root.uriPrefix + error.dropFirst(root.folder.count)
    }

    /// Seeks the entry `position` picks to `target` (starting it when it is not the current one), then
    /// answers once the player is there, as MPD answers after its player thread has seeked: a `status`
    /// right after shows the new place, and a relative seek after it counts from there.
    static func seek(_ call: Invocation, to target: SeekTarget,
                     _ position: (PlayerSnapshot) throws(MPDError) -> Int) throws(MPDError) {
        let ticket = try call.exclusively { turn throws(MPDError) -> PlayerHost.SeekTicket? in
            let snapshot = turn.snapshot()
            let index = try position(snapshot)
            guard snapshot.entries.indices.contains(index) else { throw MPDError.arg("Bad song index") }
            let active = snapshot.state == .playing || snapshot.state == .paused
            // As MPD: paused, the song sought into waits paused.
            if !active || snapshot.currentIndex != index { turn.playItem(at: index, paused: snapshot.state == .paused) }
            // A place in a part of a song (rangeid) counts from the part's start.
            if case .absolute(let ms) = target, let start = snapshot.entries[index].item.range?.startMs {
                return turn.requestSeek(.absolute(ms: ms + start))
            }
            return turn.requestSeek(target)
        }
        // Outside the turn: other clients' changes go on meanwhile.
        if let ticket { call.host.waitForSeek(ticket, patience: seekPatience) }
    }

    /// How long a seek's answer waits for the player at most (a stream's place may be slow to come).
    static let seekPatience: TimeInterval = 5

    /// add's answer for a name its database does not hold (MPD's, which looked for a folder last).
    static let uncataloguedAdd = CatalogueError.notInLibrary.message

    /// What `uri` queues, through the host's one resolver (a command list's own in a list), its refusal
    /// as MPD's.
    static func playables(forURI uri: String, call: Invocation) throws(MPDError) -> [Playable] {
        do { return try call.resolver.playables(uri) } catch { throw MPDError(failure: error) }
    }

    static func items(forURI uri: String, call: Invocation) throws(MPDError) -> [QueueItem] {
        QueueItem.items(try playables(forURI: uri, call: call), database: call.host.database)
    }

    /// Queues `items` at `position` (the end when nil); past the queue's cap what fits is added and the
    /// rest refused with MPD's ACK, as MPD adds song by song until the queue is full.
    /// `position` (MPD's `ParseInsertPosition`) is read with the queue it is inserted into, as one state
    /// change (`Invocation.exclusively`).
    @discardableResult
    static func enqueue(_ items: [QueueItem], at position: String?, _ call: Invocation) throws(MPDError) -> [Int] {
        let ids = try call.exclusively { turn throws(MPDError) -> [Int] in
            let index = try position.map { text throws(MPDError) in try insertPosition(text, turn.snapshot()) }
            return turn.insert(items, at: index)
        }
        guard ids.count == items.count else { throw MPDError.queueFull }
        return ids
    }

    /// MPD's `ParseInsertPosition`: a queue position up to its length, or `+N` / `-N` after or before
    /// the current song.
    static func insertPosition(_ text: String, _ snapshot: PlayerSnapshot) throws(MPDError) -> Int {
        let count = snapshot.entries.count
        if let sign = text.first, sign == "+" || sign == "-" {
            guard let current = snapshot.currentIndex else { throw MPDError.playerSync("No current song") }
            let offset = String(text.dropFirst())
            if sign == "+" { return current + 1 + (try MPDArgument.unsigned(offset, maximum: max(count - current - 1, 0))) }
            return current - (try MPDArgument.unsigned(offset, maximum: current))
        }
        return try MPDArgument.unsigned(text, maximum: count)
    }

    /// MPD's `ParseMoveDestination` for moving `range`: a position its entries fit at, or `+N` / `-N` from the current song
    /// (not one of those moved); what lands outside the queue the move refuses ("Bad song index").
    static func moveDestination(_ text: String, moving range: Range<Int>, _ snapshot: PlayerSnapshot) throws(MPDError) -> Int {
        guard let sign = text.first, sign == "+" || sign == "-" else {
            // MPD's bound is unsigned: more entries moved than queued wraps to no bound (the move refuses).
            let room = snapshot.entries.count - range.count
            return try MPDArgument.unsigned(text, maximum: room >= 0 ? room : Int(UInt32.max))
        }
        guard var current = snapshot.currentIndex else { throw MPDError.playerSync("No current song") }
        guard !range.contains(current) else { throw MPDError.arg("Cannot move current song relative to itself") }
        if current >= range.upperBound { current -= range.count }
        let offset = try MPDArgument.unsigned(String(text.dropFirst()))
        return sign == "+" ? current + 1 + offset : current - offset
    }

    /// The queue position of song id `text` (MPD's unsigned id).
    static func queueIndex(id text: String, _ snapshot: PlayerSnapshot) throws(MPDError) -> Int {
        let id = try MPDArgument.unsigned(text)
        guard let index = snapshot.entries.firstIndex(where: { $0.id == id }) else { throw MPDError.noExist("No such song") }
        return index
    }

    /// The longest seek a client can ask for (some 24 days): past any song's end, and safe to add to.
    static let longestSeekMs = Int(Int32.max)

    /// Seconds (fractions allowed); `+S` / `-S` from the current position where allowed, else `+S` is
    /// absolute as in MPD. Infinite or huge values are held to `longestSeekMs`; NaN is no number.
    static func seekTarget(_ text: String, relativeAllowed: Bool) throws(MPDError) -> SeekTarget {
        let relative = relativeAllowed && (text.hasPrefix("+") || text.hasPrefix("-"))
        let seconds = try MPDArgument.float(text)
        guard !seconds.isNaN else { throw MPDError.arg("Float expected: \(text)") }
        guard relative || seconds >= 0 else { throw MPDError.arg("Negative value not allowed: \(text)") }
        let ms = Int(clamping: seconds * 1000, to: -longestSeekMs...longestSeekMs)
        return relative ? .relative(ms: ms) : .absolute(ms: ms)
    }
}
