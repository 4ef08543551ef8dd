import Foundation
import XZSystem
import XZCatalogue
import XZPlayback
import XZProtocol
import XZMPDCommands
import XZServer
import XZHost

/// What a player command sees of the player, wherever it runs.
struct PlayerView: Equatable {
    var state: PlayerState
    var currentIndex: Int?
    var queue: [QueueItem]
    var positionMs: Int
    var durationMs: Int?
    var volume: Int
    var repeatMode: RepeatMode
    var shuffle: Bool
    /// Playing, waiting for a stream's bytes.
    var isBuffering = false
    /// The host's last track error, until cleared (MPD's `error` in `status`).
    var lastError: String?

    /// The state as our output shows it.
    var stateText: String { isBuffering && state == .playing ? "buffering" : state.rawValue }

    var current: QueueItem? { currentIndex.flatMap { queue.indices.contains($0) ? queue[$0] : nil } }
    var isActive: Bool { state == .playing || state == .paused }
}

/// The one interface player commands run against: the host in this process, or the library's host over
/// its socket. Songs are named by file path; both ends look them up in the same library.
protocol PlayerControl: AnyObject, Sendable {
    func view() throws -> PlayerView
    /// Entries in the queue, without building the whole view.
    func queueCount() throws -> Int
    /// Replaces the queue and starts at the first.
    func play(_ playables: [Playable]) throws
    func add(_ playables: [Playable]) throws
    func togglePause() throws
    func next() throws
    func previous() throws
    func stop() throws
    func seek(_ target: SeekTarget) throws
    func setVolume(_ percent: Int) throws
    func setRepeat(_ mode: RepeatMode) throws
    func setShuffle(_ on: Bool) throws
    /// Crossfade seconds (MPD's `crossfade`), 0 for gapless.
    func setCrossfade(_ seconds: Int) throws
    func crossfade() throws -> Int
    /// False when there is no entry at `index`.
    func remove(at index: Int) throws -> Bool
    func clearQueue() throws
    /// The playing track's lyrics shift, already stored in the library, takes effect now.
    func applyLyricsAdjustment(_ ms: Int) throws
    /// Forgets the last track error once it has been told (MPD's `clearerror`).
    func clearError() throws
}

/// The player of this process's host.
final class LocalPlayerControl: PlayerControl, Sendable {
    let host: PlayerHost

    init(host: PlayerHost) {
        self.host = host
    }

    private var player: Player { host.player }

    func view() -> PlayerView {
        let snapshot = player.snapshot()
        return PlayerView(state: snapshot.state, currentIndex: snapshot.currentIndex, queue: snapshot.queue,
                          positionMs: snapshot.positionMs, durationMs: snapshot.durationMs, volume: snapshot.volume,
                          repeatMode: snapshot.repeatMode, shuffle: snapshot.shuffle, isBuffering: snapshot.isBuffering,
                          lastError: snapshot.lastError)
    }

    func queueCount() -> Int { player.snapshot().entries.count }

    func play(_ playables: [Playable]) {
        let items = playables.map { QueueItem($0, database: host.database) }
        player.play(items)
    }

    func add(_ playables: [Playable]) {
        let items = playables.map { QueueItem($0, database: host.database) }
        player.add(items)
    }

    func togglePause() { player.togglePause() }
    func next() { player.next() }
    func previous() { player.previous() }
    func stop() { player.stop() }
    func seek(_ target: SeekTarget) { player.seek(target) }
    func setVolume(_ percent: Int) { player.setVolume(percent) }
    func setRepeat(_ mode: RepeatMode) { player.setRepeat(mode) }
    func setShuffle(_ on: Bool) { player.setShuffle(on) }
    func setCrossfade(_ seconds: Int) { player.updateCrossfade { $0.seconds = seconds } }
    func crossfade() -> Int { player.crossfade.seconds }
    func clearQueue() { player.clearQueue() }
    func applyLyricsAdjustment(_ ms: Int) { player.setLyricsAdjustment(ms) }
    func clearError() { player.clearError() }

    func remove(at index: Int) -> Bool {
        player.removeFromQueue(at: index)
    }
}

/// The library's host over its Unix socket, spoken to in the MPD protocol.
final class RemotePlayerControl: PlayerControl, Sendable {
    /// The connection, one request at a time.
    private let client: Mutex<MPDClient>
    private let folder: LibraryFolder
    /// The library, for naming queued songs; a command that only sends `next` never opens it.
    private let database: @Sendable () throws -> LibraryDatabase
    private let knownURIs = Mutex<SongNaming?>(nil)

    init(client: sending MPDClient, folder: LibraryFolder, database: @escaping @Sendable () throws -> LibraryDatabase) {
        self.client = Mutex(client)
        self.folder = folder
        self.database = database
    }

    /// How the host names songs, asked once.
    private func uris() throws -> SongNaming {
        if let known = knownURIs.withLock({ $0 }) { return known }
        let config = try run("config")
        let music = config.first { $0.key == "music_directory" }?.value ?? SongNaming.defaultMusicDirectory().path
        let uris = SongNaming(musicDirectory: URL(fileURLWithPath: music), library: folder)
        knownURIs.withLock { $0 = uris }
        return uris
    }

    var musicDirectory: URL {
        get throws { URL(fileURLWithPath: try uris().musicDirectory) }
    }

    /// Runs a command; the host's refusal becomes this command's one-line error.
    @discardableResult
    private func run(_ name: String, _ arguments: [String] = []) throws -> [(key: String, value: String)] {
        do {
            return try client.withLock { try $0.run(MPDRequest(name: name, arguments: arguments)) }
        } catch let error as MPDError {
            throw CommandError.refusedByHost(name, error.message)
        } catch {
            throw CommandError.lostHost(error)
        }
    }

    private func status() throws -> [String: String] {
        Dictionary(try run("status").map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    private static func milliseconds(_ seconds: String?) -> Int? {
        seconds.flatMap(Double.init).map { Int(clamping: $0 * 1000, to: 0...Int(Int32.max)) }
    }

    func view() throws -> PlayerView {
        let status = try status()
        var queue: [QueueItem] = []
        let uris = try uris()
        let database = try database()
        for pair in try run("playlistinfo") where pair.key == "file" {
            // A URI that names no file here (a stream's URL) is shown as the host names it.
            let path = (try? uris.locate(pair.value, allowAbsolute: true, catalogue: database).path) ?? pair.value
            queue.append(QueueItem(.file(path), database: database))
        }
        let state: PlayerState
        switch status["state"] {
        case "play": state = .playing
        case "pause": state = .paused
        default: state = queue.isEmpty ? .idle : .stopped
        }
        let repeats = status["repeat"] == "1"
        let repeatMode = RepeatMode(repeats: repeats, single: SingleMode(rawValue: status["single"] ?? "0") ?? .off)
        return PlayerView(state: state, currentIndex: status["song"].flatMap(Int.init), queue: queue,
                          positionMs: Self.milliseconds(status["elapsed"]) ?? 0,
                          durationMs: Self.milliseconds(status["duration"]),
                          volume: status["volume"].flatMap(Int.init) ?? 0, repeatMode: repeatMode,
                          shuffle: status["random"] == "1", isBuffering: status["xzmusic_buffering"] == "1",
                          lastError: status["error"])
    }

    func queueCount() throws -> Int {
        Int(try status()["playlistlength"] ?? "") ?? 0
    }

    func play(_ playables: [Playable]) throws {
        try run("clear")
        try add(playables)
        try run("play", ["0"])
    }

    func add(_ playables: [Playable]) throws {
        let uris = try uris()
        for playable in playables {
            switch playable {
            case .song(let song): try run("add", [song.isLocal ? uris.uri(ofFile: song.localPath, inCatalogue: true) : song.audioURL])
            case .file(let path): try run("add", [path])
            case .stream(let url): try run("add", [url])
            }
        }
    }

    func togglePause() throws {
        if try status()["state"] == "stop" { try run("play") } else { try run("pause") }
    }

    func setCrossfade(_ seconds: Int) throws { try run("crossfade", [String(seconds)]) }
    /// MPD shows `xfade` only when it is set.
    func crossfade() throws -> Int { Int(try status()["xfade"] ?? "") ?? 0 }

    func next() throws { try run("next") }
    func previous() throws { try run("previous") }
    func stop() throws { try run("stop") }

    func seek(_ target: SeekTarget) throws {
        let status = try status()
        let ms: Int
        switch target {
        case .absolute(let value): ms = value
        case .relative(let value): ms = max(0, (Self.milliseconds(status["elapsed"]) ?? 0) + value)
        case .percent(let share): ms = Int(clamping: (Double(Self.milliseconds(status["duration"]) ?? 0) * share / 100).rounded(.down))
        }
        try run("seekcur", [String(format: "%.3f", Double(ms) / 1000)])
    }

    func setVolume(_ percent: Int) throws { try run("setvol", [String(percent)]) }

    func setRepeat(_ mode: RepeatMode) throws {
        try run("repeat", [mode.repeats ? "1" : "0"])
        try run("single", [mode.single.rawValue])
    }

    func setShuffle(_ on: Bool) throws { try run("random", [on ? "1" : "0"]) }

    func remove(at index: Int) throws -> Bool {
        guard index >= 0, index < (try queueCount()) else { return false }
        try run("delete", [String(index)])
        return true
    }

    func clearQueue() throws { try run("clear") }
    func applyLyricsAdjustment(_ ms: Int) throws { try run("xzmusic_lyrics_offset", [String(ms)]) }
    func clearError() throws { try run("clearerror") }
}
