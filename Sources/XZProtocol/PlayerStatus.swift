/// A host's `status` answer as a value: the one place its lines are read, by the prompt, the one-shot
/// commands and the tests. Values a host sends out of their domain read as absent, never trap.
package struct PlayerStatus: Sendable, Equatable {
    package enum State: String, Sendable {
        case play, pause, stop
    }

    package var state: State = .stop
    /// Nil when the host has no mixer (MPD sends `volume: -1` or nothing).
    package var volume: Int?
    package var repeats = false
    package var random = false
    /// `0`, `1` or `oneshot`.
    package var single = "0"
    package var consume = false
    package var playlistVersion: Int64 = 0
    package var playlistLength = 0
    /// The current entry's position and id; nil when there is none.
    package var song: Int?
    package var songId: Int?
    package var nextSong: Int?
    package var nextSongId: Int?
    package var elapsedMs: Int?
    package var durationMs: Int?
    package var bitrate: Int?
    /// `RATE:BITS:CHANNELS`.
    package var audio: String?
    /// Crossfade seconds; MPD sends `xfade` only when it is set.
    package var crossfadeSeconds = 0
    /// The job id of a running database update.
    package var updatingDatabase: Int?
    /// The last track error, until cleared.
    package var error: String?
    /// Playing, waiting for a stream's bytes (XZMusic's own line; MPD shows such a state as `play`).
    package var isBuffering = false

    package init() {}

    package init(_ pairs: [(key: String, value: String)]) {
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

    package var isActive: Bool { state == .play || state == .pause }

    /// A non-negative whole number that fits in 32 bits, as MPD's counts do.
    static func count(_ text: String) -> Int? {
        Int32(text).flatMap { $0 >= 0 ? Int($0) : nil }
    }

    /// Seconds with a fraction (`12.345`) as milliseconds, within 0 to 2^31 - 1.
    package static func milliseconds(_ text: String) -> Int? {
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else { return nil }
        return Int((min(seconds, Double(Int32.max) / 1000) * 1000).rounded(.down))
    }
}

/// One song record of an answer (`currentsong`, a `playlistinfo` entry): its `file` and the lines after it.
/// Tags that repeat (two `Artist:` lines) keep every value, in order.
package struct SongRecord: Sendable, Equatable {
    package var file: String
    package var pairs: [(key: String, value: String)]

    package init(file: String, pairs: [(key: String, value: String)]) {
        self.file = file
        self.pairs = pairs
    }

    /// The first value of `key`.
    package subscript(key: String) -> String? { pairs.first { $0.key == key }?.value }

    package func values(_ key: String) -> [String] { pairs.filter { $0.key == key }.map(\.value) }

    package var title: String? { self["Title"] }
    package var artists: [String] { values("Artist") }
    package var album: String? { self["Album"] }
    package var position: Int? { self["Pos"].flatMap(PlayerStatus.count) }
    package var id: Int? { self["Id"].flatMap(PlayerStatus.count) }
    package var durationMs: Int? {
        self["duration"].flatMap(PlayerStatus.milliseconds) ?? self["Time"].flatMap(PlayerStatus.milliseconds)
    }

    /// The records of an answer: each starts at a `file` line; lines before the first belong to none.
    package static func records(_ pairs: [(key: String, value: String)]) -> [SongRecord] {
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

    package static func == (lhs: SongRecord, rhs: SongRecord) -> Bool {
        lhs.file == rhs.file && lhs.pairs.elementsEqual(rhs.pairs) { $0.key == $1.key && $0.value == $1.value }
    }
}
