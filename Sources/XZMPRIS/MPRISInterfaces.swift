import CSystemdBus
import Foundation
import XZCatalogue
import XZHostCore
import XZPlaybackEngine
import XZPlaybackValues
import XZSystem
#if canImport(Glibc)
import Glibc
#endif

/// The player's properties that are told when they change, as MPRIS names them.
struct PlayerView: Equatable {
    var playbackStatus: String
    var loopStatus: String
    var shuffle: Bool
    var volume: Double
    var metadata: TrackMetadata
    var canGoNext: Bool
    var canGoPrevious: Bool
    var canPlay: Bool
    var canPause: Bool
    var canSeek: Bool

    init(_ snapshot: PlayerSnapshot, metadata: TrackMetadata) {
        switch snapshot.state {
        case .playing: playbackStatus = "Playing"
        case .paused: playbackStatus = "Paused"
        case .stopped, .idle: playbackStatus = "Stopped"
        }
        switch snapshot.repeatMode {
        case .off: loopStatus = "None"
        case .one: loopStatus = "Track"
        case .all: loopStatus = "Playlist"
        }
        shuffle = snapshot.shuffle
        volume = Double(snapshot.volume) / 100
        self.metadata = metadata
        let loaded = snapshot.state.isLoaded
        let index = snapshot.currentIndex ?? 0
        // What the player's next and previous do: with repeat they wrap; at the last song without it,
        // next stops (no other song); at the first, previous restarts it. In random order the place in
        // the order is the player's, so any song but a lone one has one before it.
        canGoNext = loaded && (snapshot.repeats ? snapshot.queueLength > 1 || snapshot.single != .off
            : snapshot.nextIndex != nil || (!snapshot.shuffle && index + 1 < snapshot.queueLength))
        canGoPrevious = loaded && snapshot.queueLength > 1 && (snapshot.repeats || snapshot.shuffle || index > 0)
        canPlay = snapshot.queueLength > 0
        canPause = snapshot.queueLength > 0
        canSeek = loaded && snapshot.current.map { !$0.isStream && $0.playedLengthMs != nil } == true
    }

    func changedNames(since old: PlayerView) -> [String] {
        var names: [String] = []
        if playbackStatus != old.playbackStatus { names.append("PlaybackStatus") }
        if loopStatus != old.loopStatus { names.append("LoopStatus") }
        if shuffle != old.shuffle { names.append("Shuffle") }
        if volume != old.volume { names.append("Volume") }
        if metadata != old.metadata { names.append("Metadata") }
        if canGoNext != old.canGoNext { names.append("CanGoNext") }
        if canGoPrevious != old.canGoPrevious { names.append("CanGoPrevious") }
        if canPlay != old.canPlay { names.append("CanPlay") }
        if canPause != old.canPause { names.append("CanPause") }
        if canSeek != old.canSeek { names.append("CanSeek") }
        return names
    }
}

/// The place in what plays of the current entry (a part counts from its start), as `status`'s elapsed.
func playedPositionMs(absoluteMs: Int, _ snapshot: PlayerSnapshot) -> Int {
    max(0, absoluteMs - (snapshot.current?.range?.startMs ?? 0))
}

/// D-Bus's standard error names for what a caller got wrong.
private enum BusErrorName {
    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
    static let failed = "org.freedesktop.DBus.Error.Failed"
}

extension MPRISService {
    /// The longest URI OpenUri reads: a name, not a document.
    static let longestURI = 16 << 10
    /// The media types the player's decoders take.
    static let mimeTypes = [
        "audio/mpeg", "audio/flac", "audio/x-flac", "audio/ogg", "audio/x-vorbis+ogg", "audio/opus", "audio/x-opus+ogg",
        "audio/mp4", "audio/aac", "audio/x-wav", "audio/wav", "audio/x-aiff", "audio/x-ape", "audio/x-musepack",
        "audio/x-wavpack", "audio/x-ms-wma", "audio/x-matroska", "audio/webm", "audio/x-mpegurl", "audio/x-scpls",
    ]

    private func fail(_ error: UnsafeMutablePointer<sd_bus_error>?, _ name: String, _ text: String) -> Int32 {
        sd_bus_error_set(error, name, text)
    }

    // MARK: Properties

    func get(_ property: String, into reply: OpaquePointer, error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        var message = BusMessage(reply)
        let snapshot = host.snapshot()
        switch property {
        case "CanQuit", "CanRaise", "HasTrackList": message.appendBool(false)
        case "Identity": message.appendString("XZMusic")
        case "DesktopEntry": message.appendString("xzmusic")
        case "SupportedUriSchemes": message.appendStrings(host.canStream ? ["file", "http", "https"] : ["file"])
        case "SupportedMimeTypes": message.appendStrings(Self.mimeTypes)
        case "Rate", "MinimumRate", "MaximumRate": message.appendDouble(1)
        case "CanControl": message.appendBool(true)
        case "Position":
            let ms = snapshot.state.isLoaded ? playedPositionMs(absoluteMs: snapshot.positionMs, snapshot) : 0
            message.appendInt64(Microseconds(ms: ms))
        case "Metadata": message.appendDictionary(currentMetadata.entries.map { ($0.key, $0.value) })
        default:
            let view = PlayerView(snapshot, metadata: .none)
            switch property {
            case "PlaybackStatus": message.appendString(view.playbackStatus)
            case "LoopStatus": message.appendString(view.loopStatus)
            case "Shuffle": message.appendBool(view.shuffle)
            case "Volume": message.appendDouble(view.volume)
            case "CanGoNext": message.appendBool(view.canGoNext)
            case "CanGoPrevious": message.appendBool(view.canGoPrevious)
            case "CanPlay": message.appendBool(view.canPlay)
            case "CanPause": message.appendBool(view.canPause)
            case "CanSeek": message.appendBool(view.canSeek)
            default: return fail(error, "org.freedesktop.DBus.Error.UnknownProperty", "no property \(property)")
            }
        }
        return message.result >= 0 ? 1 : message.result
    }

    /// sd-bus checked the value's type against the property's before the call.
    func set(_ property: String, from value: OpaquePointer, error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        var message = BusMessage(value)
        switch property {
        case "LoopStatus":
            switch message.readText("s") {
            case "None": host.setRepeat(.off)
            case "Track": host.setRepeat(.one)
            case "Playlist": host.setRepeat(.all)
            default: return fail(error, BusErrorName.invalidArgs, "LoopStatus is None, Track or Playlist")
            }
        case "Shuffle":
            guard let on = message.readBool() else { return message.result }
            host.setShuffle(on)
        case "Volume":
            guard let volume = message.readDouble() else { return message.result }
            guard !volume.isNaN else { return fail(error, BusErrorName.invalidArgs, "Volume must be a number") }
            // The spec: below 0 is 0; above 1 is the most this player gives.
            host.setVolume(Int((min(max(volume, 0), 1) * 100).rounded()))
        case "Rate":
            guard let rate = message.readDouble() else { return message.result }
            // The spec: 0 pauses; the player plays at one rate only.
            if rate == 0 {
                host.pause()
            } else if rate != 1 {
                return fail(error, BusErrorName.notSupported, "the rate is 1.0 only")
            }
        default:
            return fail(error, "org.freedesktop.DBus.Error.PropertyReadOnly", "\(property) cannot be set")
        }
        return message.result >= 0 ? 1 : message.result
    }

    // MARK: Methods

    func call(_ call: OpaquePointer, error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        let member = sd_bus_message_get_member(call).map { String(cString: $0) } ?? ""
        var arguments = BusMessage(call)
        // Each method decides from the player's state under the host's one-at-a-time rule, as one verb.
        switch member {
        // CanQuit and CanRaise are false: the spec has these do nothing.
        case "Raise", "Quit": break
        case "Play": host.playFromWhereItIs()
        case "Pause": host.pause()
        case "PlayPause": host.playOrPause()
        case "Stop": host.stop()
        case "Next": host.nextIfLoaded()
        case "Previous": host.previousIfLoaded()
        case "Seek":
            guard let offsetUs = arguments.readInt64() else { return arguments.result }
            seekAndWait { turn in seek(by: offsetUs, turn) }
        case "SetPosition":
            guard let track = arguments.readText("o"), let positionUs = arguments.readInt64() else { return arguments.result }
            seekAndWait { turn in setPosition(track: track, positionUs: positionUs, turn) }
        case "OpenUri":
            guard let uri = arguments.readText("s") else { return arguments.result }
            if let refusal = open(uri) { return fail(error, refusal.name, refusal.text) }
        default:
            return fail(error, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(member)")
        }
        var reply: OpaquePointer?
        let r = sd_bus_message_new_method_return(call, &reply)
        guard r >= 0 else { return r }
        defer { sd_bus_message_unref(reply) }
        return sd_bus_send(nil, reply, nil)
    }

    /// The spec: before the start is the start; past the end is the next track.
    private func seek(by offsetUs: Int64, _ turn: PlayerTurn) -> PlayerHost.SeekTicket? {
        let snapshot = turn.snapshot()
        guard PlayerView(snapshot, metadata: .none).canSeek, let current = snapshot.current,
              let length = current.playedLengthMs else { return nil }
        // Any Int64 of microseconds is a whole number of milliseconds in Int: no arithmetic below traps.
        let here = playedPositionMs(absoluteMs: snapshot.positionMs, snapshot)
        let (target, overflow) = here.addingReportingOverflow(Int(offsetUs / 1000))
        if !overflow, target < length {
            return turn.requestSeek(.absolute(ms: max(0, target) + (current.range?.startMs ?? 0)))
        } else if offsetUs > 0 {
            turn.next()
            return nil
        } else {
            return turn.requestSeek(.absolute(ms: current.range?.startMs ?? 0))
        }
    }

    /// `decide` seeks in the host's turn; as MPD's seek, the answer then waits, outside the turn, until the
    /// player is there (a while at most): a relative Seek right after counts from the new place. Only the
    /// bus thread waits.
    private func seekAndWait(_ decide: (PlayerTurn) -> PlayerHost.SeekTicket?) {
        if let ticket = host.exclusively(decide) { host.waitForSeek(ticket, patience: Self.seekPatience) }
    }

    /// How long a seek's answer waits for the player at most.
    static let seekPatience: TimeInterval = 2

    /// The spec: a stale track id, or a place outside the track, does nothing.
    private func setPosition(track: String, positionUs: Int64, _ turn: PlayerTurn) -> PlayerHost.SeekTicket? {
        let snapshot = turn.snapshot()
        guard PlayerView(snapshot, metadata: .none).canSeek, let id = snapshot.currentId, let current = snapshot.current,
              track == TrackMetadata.trackPath(id: id), positionUs >= 0, let length = current.playedLengthMs,
              positionUs / 1000 <= Int64(length) else { return nil }
        return turn.requestSeek(.absolute(ms: Int(positionUs / 1000) + (current.range?.startMs ?? 0)))
    }

    /// Adds the song a `file://` URI names in the music folder, or an http(s) stream, and plays it; nil
    /// when it plays, else the D-Bus error that says why not. Only songs the library holds open, through
    /// the host's one resolver: nothing behind a link out of the music folder is opened.
    private func open(_ uri: String) -> (name: String, text: String)? {
        guard uri.utf8.count <= Self.longestURI, !uri.utf8.contains(0) else { return (BusErrorName.invalidArgs, "the URI is too long") }
        let lowered = uri.lowercased()
        let resolver = SongResolver(host: host, allowsAbsolute: false)
        let name: String
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            guard host.canStream else { return (BusErrorName.notSupported, "this host does not stream URLs") }
            guard URL(string: uri)?.host?.isEmpty == false else { return (BusErrorName.invalidArgs, "not a URL: \(uri)") }
            name = uri
        } else if lowered.hasPrefix("file://") {
            guard let url = URL(string: uri), url.isFileURL, url.host == nil || url.host == "" || url.host == "localhost",
                  let inside = resolver.musicFolderName(ofFile: url.path) else {
                return (BusErrorName.invalidArgs, "only songs in the music folder open: \(uri)")
            }
            name = inside
        } else {
            return (BusErrorName.notSupported, "only file, http and https URIs open")
        }
        // A name the library holds no song of is refused alike whether or not a file is there.
        guard let items = try? resolver.items(name), !items.isEmpty else {
            return (BusErrorName.invalidArgs, "no song of the library: \(uri)")
        }
        // Added and started in one turn: no other change moves the entry in between.
        let added = host.exclusively { turn in
            guard let id = turn.insert(items, at: nil).first else { return false }
            if let index = turn.snapshot().entries.firstIndex(where: { $0.id == id }) { turn.playItem(at: index) }
            return true
        }
        guard added else { return (BusErrorName.failed, "the queue is full") }
        return nil
    }
}
