import Foundation
import XZCatalogue
import XZHostCore
import XZPlaybackValues

/// `jukeboxControl`: the host's own player, driven through its verbs one turn at a time, as MPD
/// clients and the terminal drive it. Admins and users given the jukebox role only.
extension SubsonicEndpoints {
    static let jukebox: [SubsonicEndpoint] = [
        SubsonicEndpoint("jukeboxControl", .jukebox, answer: Jukebox.answer),
    ]
}

enum Jukebox {
    /// How long a skip waits for the audio thread to reach its offset.
    static let seekPatience: TimeInterval = 5

    static func answer(_ call: SubsonicCall) throws -> SubsonicReply {
        let host = call.library.host
        let action = try call.required("action")
        switch action {
        case "get":
            return try playlist(call)
        case "status":
            break
        case "set":
            let items = try queueItems(call)
            try host.exclusively { turn throws(SubsonicError) in
                guard items.count <= turn.maxQueueLength else {
                    throw SubsonicError.generic("the jukebox holds at most \(turn.maxQueueLength) entries")
                }
                replaceKeepingCurrent(with: items, turn)
            }
        case "start":
            host.playFromWhereItIs()
        case "stop":
            // Subsonic's stop keeps the place, so `start` goes on from it.
            host.pause()
        case "skip":
            let length = host.snapshot().queueLength
            guard length > 0, let index = try call.optionalInt("index", in: 0...(length - 1)) else {
                throw SubsonicError.generic("parameter 'index' must be an entry of the jukebox's \(length)")
            }
            let offset = try call.int("offset", default: 0, in: 0...(24 * 60 * 60))
            let ticket = try host.exclusively { turn throws(SubsonicError) -> PlayerHost.SeekTicket? in
                guard turn.playItem(at: index) else { throw SubsonicError.generic("no entry \(index) in the jukebox") }
                return offset > 0 ? turn.requestSeek(.absolute(ms: offset * 1000)) : nil
            }
            if let ticket { host.waitForSeek(ticket, patience: seekPatience) }
        case "add":
            let items = try queueItems(call)
            try host.exclusively { turn throws(SubsonicError) in
                guard items.count <= turn.queueRoom else {
                    throw SubsonicError.generic("the jukebox holds at most \(turn.maxQueueLength) entries")
                }
                turn.add(items)
            }
        case "clear":
            host.clearQueue()
        case "remove":
            let length = host.snapshot().queueLength
            guard length > 0, let index = try call.optionalInt("index", in: 0...(length - 1)) else {
                throw SubsonicError.generic("parameter 'index' must be an entry of the jukebox's \(length)")
            }
            try host.exclusively { turn throws(SubsonicError) in
                guard turn.removeFromQueue(range: index..<(index + 1)) else { throw SubsonicError.generic("no entry \(index) in the jukebox") }
            }
        case "shuffle":
            host.exclusively { turn in
                let length = turn.snapshot().queueLength
                if length > 1 { turn.shuffleQueue(range: 0..<length) }
            }
        case "setGain":
            guard call.value("gain") != nil else { throw SubsonicError.missingParameter("required parameter 'gain' is missing") }
            let gain = try call.double("gain", default: 0, in: 0...1)
            host.setVolume(Int(clamping: gain * 100, to: 0...100))
        default:
            throw SubsonicError.generic("unknown jukebox action: get, status, set, start, stop, skip, add, clear, remove, shuffle or setGain")
        }
        return .document(SubsonicDocument("jukeboxStatus", status(of: host)))
    }

    /// Subsonic's `set`: the queue becomes `items`, and the song playing goes on where it is when it is
    /// among them (the first time it is); otherwise a playing jukebox plays the new queue from its start.
    private static func replaceKeepingCurrent(with items: [QueueItem], _ turn: PlayerTurn) {
        let snapshot = turn.snapshot()
        guard snapshot.state.isLoaded, let index = snapshot.currentIndex, let current = snapshot.current?.songId,
              let kept = items.firstIndex(where: { $0.songId == current }) else {
            let wasPlaying = snapshot.state == .playing
            turn.replaceQueue(with: items)
            if wasPlaying, !items.isEmpty { turn.playItem(at: 0) }
            return
        }
        if index + 1 < snapshot.queueLength { turn.removeFromQueue(range: (index + 1)..<snapshot.queueLength) }
        if index > 0 { turn.removeFromQueue(range: 0..<index) }
        turn.insert(Array(items[..<kept]), at: 0)
        turn.insert(Array(items[(kept + 1)...]), at: nil)
    }

    static func status(of host: PlayerHost) -> SubsonicJukeboxStatus {
        let snapshot = host.snapshot()
        return status(currentIndex: snapshot.currentIndex, state: snapshot.state, volume: snapshot.volume, positionMs: snapshot.positionMs)
    }

    /// What the jukebox's status says of one reading of the player.
    static func status(currentIndex: Int?, state: PlayerState, volume: Int, positionMs: Int) -> SubsonicJukeboxStatus {
        SubsonicJukeboxStatus(currentIndex: currentIndex ?? -1, playing: state == .playing, gain: Double(max(0, min(100, volume))) / 100,
                              position: state.isLoaded ? max(0, positionMs) / 1000 : 0)
    }

    /// The status with every entry: library songs as the caller sees them, anything else (a stream, a
    /// file outside the library) by what the queue knows of it.
    private static func playlist(_ call: SubsonicCall) throws -> SubsonicReply {
        let host = call.library.host
        let snapshot = host.snapshot()
        let items = snapshot.entries.map(\.item)
        let songs = try call.library.database.songs(ids: Array(Set(items.compactMap(\.songId))))
        let children = try ListenerAnnotations(call).children(of: songs)
        let byId = Dictionary(zip(songs.map(\.id), children)) { first, _ in first }
        let entries = items.map { item -> SubsonicChild in
            if let id = item.songId, let child = byId[id] { return child }
            var child = SubsonicChild(id: host.uri(of: item), title: item.title)
            child.artist = item.singer.isEmpty ? nil : item.singer
            child.album = item.album
            child.duration = item.durationMs.map { $0 / 1000 }
            return child
        }
        let status = status(currentIndex: snapshot.currentIndex, state: snapshot.state, volume: snapshot.volume,
                            positionMs: snapshot.positionMs)
        return .document(SubsonicDocument("jukeboxPlaylist", SubsonicJukeboxPlaylist(status: status, entry: entries.isEmpty ? nil : entries)))
    }

    /// The songs of the `id`s as queue items, each named by its music-folder name through the host's
    /// resolver, as MPD's `add` names it.
    private static func queueItems(_ call: SubsonicCall) throws -> [QueueItem] {
        let songs = try call.librarySongs(call.ids("id"), parameter: "id")
        let host = call.library.host
        let resolver = SongResolver(host: host, allowsAbsolute: false)
        return try songs.flatMap { song -> [QueueItem] in
            do {
                return try resolver.items(host.naming.uri(of: song))
            } catch {
                throw SubsonicError.notFound("the song '\(song.title)' cannot be played here")
            }
        }
    }
}
