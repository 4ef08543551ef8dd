/// A host's `status` answer as a value: the one place its lines are read, by the prompt, the one-shot
/// commands and the tests. Values a host sends out of their domain read as absent, never trap.
public struct PlayerStatus: Sendable, Equatable {
    public enum State: String, Sendable {
        case play, pause, stop
    }

    public var state: State = .stop
    /// Nil when the host has no mixer (MPD sends `volume: -1` or nothing).
    public var volume: Int?
    public var repeats = false
    public var random = false
    /// `0`, `1` or `oneshot`.
    public var single = "0"
    public var consume = false
    public var playlistVersion: Int64 = 0
    public var playlistLength = 0
    /// The current entry's position and id; nil when there is none.
    public var song: Int?
    public var songId: Int?
    public var nextSong: Int?
    public var nextSongId: Int?
    public var elapsedMs: Int?
    public var durationMs: Int?
    public var bitrate: Int?
    /// `RATE:BITS:CHANNELS`.
    public var audio: String?
    /// Crossfade seconds; MPD sends `xfade` only when it is set.
    public var crossfadeSeconds = 0
    /// The job id of a running database update.
    public var updatingDatabase: Int?
    /// The last track error, until cleared.
    public var error: String?
    /// Playing, waiting for a stream's bytes (XZMusic's own line; MPD shows such a state as `play`).
    public var isBuffering = false

    public init() {}

    public init(_ pairs: [(key: String, value: String)]) {
        for (key, value) in pairs {
            switch key {
            case "state": state = State(rawValue: value) ?? .stop
            case "volume": volume = Int(value).flatMap { (0...100).contains($0) ? $0 : nil }
            case "repeat": repeats = value == "1"
            case "random": random = value == "1"
            case "single": single = value
            case "consume": consume = value == "1"
            case "playlist": playlistVersion = Int64(value).map { max(0, $0) } ?? 0
            case "playlistlength": playlistLength = Self.count(value) ?? 0
            case "song": song = Self.count(value)
            case "songid": songId = Self.count(value)
            case "nextsong": nextSong = Self.count(value)
            case "nextsongid": nextSongId = Self.count(value)
            case "elapsed": elapsedMs = Self.milliseconds(value)
            case "duration": durationMs = Self.milliseconds(value)
            case "bitrate": bitrate = Self.count(value)
            case "audio": audio = value
            case "xfade": crossfadeSeconds = Self.count(value) ?? 0
            case "updating_db": updatingDatabase = Self.count(value)
            case "error": error = value
            case "buffering": isBuffering = value == "1"
            default: continue
            }
        }
    }

    public var isActive: Bool { state == .play || state == .pause }

    /// A non-negative whole number that fits in 32 bits, as MPD's counts do.
    static func count(_ text: String) -> Int? {
        Int32(text).flatMap { $0 >= 0 ? Int($0) : nil }
    }

    /// Seconds with a fraction (`12.345`) as milliseconds, within 0 to 2^31 - 1.
    public static func milliseconds(_ text: String) -> Int? {
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else { return nil }
        return Int((min(seconds, Double(Int32.max) / 1000) * 1000).rounded(.down))
    }
}

/// One song record of an answer (`currentsong`, a `playlistinfo` entry): its `file` and the lines after it.
/// Tags that repeat (two `Artist:` lines) keep every value, in order.
public struct SongRecord: Sendable, Equatable {
    public var file: String
    public var pairs: [(key: String, value: String)]

    public init(file: String, pairs: [(key: String, value: String)]) {
        self.file = file
        self.pairs = pairs
    }

    /// The first value of `key`.
    public subscript(key: String) -> String? { pairs.first { $0.key == key }?.value }

    public func values(_ key: String) -> [String] { pairs.filter { $0.key == key }.map(\.value) }

    public var title: String? { self["Title"] }
    public var artists: [String] { values("Artist") }
    public var album: String? { self["Album"] }
    public var position: Int? { self["Pos"].flatMap(PlayerStatus.count) }
    public var id: Int? { self["Id"].flatMap(PlayerStatus.count) }
    public var durationMs: Int? {
        self["duration"].flatMap(PlayerStatus.milliseconds) ?? self["Time"].flatMap(PlayerStatus.milliseconds)
    }

    /// The records of an answer: each starts at a `file` line; lines before the first belong to none.
    public static func records(_ pairs: [(key: String, value: String)]) -> [SongRecord] {
        var records: [SongRecord] = []
        for pair in pairs {
            if pair.key == "file" {
                records.append(SongRecord(file: pair.value, pairs: [pair]))
            } else if !records.isEmpty {
                records[records.count - 1].pairs.append(pair)
            }
        }
        return records
    }

    public static func == (lhs: SongRecord, rhs: SongRecord) -> Bool {
        lhs.file == rhs.file && lhs.pairs.elementsEqual(rhs.pairs) { $0.key == $1.key && $0.value == $1.value }
    }
}
