import Foundation
import XZPlaybackValues

/// What the host remembers across a restart, in the text of MPD's `state_file` (so a user can carry the
/// file between MPD and the host): volume, output, play state, current song and position, options,
/// crossfade and MixRamp, and the queue with priorities. The ReplayGain mode is one line of ours, which
/// MPD skips.
package struct HostState: Sendable, Equatable {
    package enum PlayState: String, Sendable, Equatable {
        case play, pause, stop
    }

    /// A queue entry by the name clients know it (`SongNaming`).
    package struct Entry: Sendable, Equatable {
        package var uri: String
        /// 0-255, as `prio`.
        package var priority: Int

        package init(uri: String, priority: Int = 0) {
            self.uri = uri
            self.priority = priority
        }
    }

    /// An output's `audio_device_state` line: on or off, by its name.
    package struct OutputState: Sendable, Equatable {
        package var name: String
        package var enabled: Bool

        package init(name: String, enabled: Bool) {
            self.name = name
            self.enabled = enabled
        }
    }

    package var volume = 100
    /// Every output's, in the config's order, as MPD writes them.
    package var outputs: [OutputState] = []
    package var playState = PlayState.stop
    /// Queue position of the current song.
    package var current: Int?
    package var elapsedSeconds = 0.0
    package var shuffle = false
    package var repeats = false
    package var single = SingleMode.off
    package var consume = false
    /// MPD's defaults until the player fades: written so that MPD reads them back unchanged.
    package var crossfadeSeconds = 0
    package var mixRampDb = 0.0
    /// Negative: off, as MPD writes it.
    package var mixRampDelaySeconds = -1.0
    /// Nil in a file MPD wrote: the config's mode stays.
    package var replayGainMode: ReplayGainMode?
    package var queue: [Entry] = []

    package init() {}

    /// The file's text, line for line as MPD writes its own.
    package var text: String {
        var lines = ["sw_volume: \(volume)"]
        lines += outputs.map { "audio_device_state:\($0.enabled ? 1 : 0):\($0.name)" }
        lines.append("state: \(playState.rawValue)")
        if let current { lines.append("current: \(current)") }
        if playState != .stop { lines.append("time: " + String(format: "%f", elapsedSeconds)) }
        lines += ["random: \(shuffle ? 1 : 0)", "repeat: \(repeats ? 1 : 0)", "single: \(single.rawValue)",
                  "consume: \(consume ? 1 : 0)", "crossfade: \(crossfadeSeconds)",
                  "mixrampdb: " + String(format: "%f", mixRampDb), "mixrampdelay: " + String(format: "%f", mixRampDelaySeconds)]
        if let replayGainMode { lines.append("\(Self.replayGainKey): \(replayGainMode.rawValue)") }
        lines.append("playlist_begin")
        for (index, entry) in queue.enumerated() {
            if entry.priority != 0 { lines.append("Prio: \(entry.priority)") }
            // MPD names songs outside its database (streams, absolute paths) in a song block.
            if entry.uri.hasPrefix("/") || entry.uri.contains("://") {
                lines += ["song_begin: \(entry.uri)", "song_end"]
            } else {
                lines.append("\(index):\(entry.uri)")
            }
        }
        lines.append("playlist_end")
        return lines.joined(separator: "\n") + "\n"
    }

    private static let replayGainKey = "replay_gain_mode"
    /// More outputs than a config file can have blocks are not kept.
    static let outputLimit = 64

    /// The state a file's text holds, its dropped lines aside (`Parser` says which they were).
    package init(parsing text: String) {
        var parser = Parser()
        Self.lines(of: text).forEach { parser.read($0) }
        self = parser.finish().state
    }

    /// A text's lines, as a file's are read: the newline ending the last starts no line of its own.
    static func lines(of text: String) -> [Substring] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Reads a file this host or MPD wrote, a line at a time, as MPD reads it: a line whose value is not
    /// one (`random: 2`, `current: -5`) or that is no line of a state file (binary garbage) is dropped and
    /// named, and every other line is kept. Keys of other MPD parts (storage mounts) are skipped.
    package struct Parser {
        /// A line left out: its number (from 1), its key and what it held.
        package struct DroppedLine: Sendable, Equatable, CustomStringConvertible {
            package var line: Int
            package var key: String
            package var value: String

            package var description: String { "line \(line): bad \(key)\(value.isEmpty ? "" : " (\(value))")" }
        }

        /// What was read, and what was left out.
        package struct Result: Sendable {
            package var state: HostState
            /// The first `droppedLimit` lines left out; `droppedCount` counts them all.
            package var dropped: [DroppedLine]
            package var droppedCount: Int
            /// Queue entries past `maxQueueLength` were left out.
            package var queueCut: Bool
        }

        /// Dropped lines named one by one; a file of garbage is said in one more line, not line by line.
        package static let droppedLimit = 10

        private enum Section {
            case settings, queue
            /// A `song_begin:` block, whose tag lines are skipped until `song_end`.
            case song(uri: String, line: Int)
        }

        private var state = HostState()
        private var dropped: [DroppedLine] = []
        private var droppedCount = 0
        private var queueCut = false
        private var section = Section.settings
        /// A `Prio:` line's value, for the entry that follows it.
        private var priority = 0
        private(set) var lineNumber = 0
        private let maxQueueLength: Int

        /// `maxQueueLength`: MPD's `max_playlist_length`; entries past it are left out.
        package init(maxQueueLength: Int = Int.max) {
            self.maxQueueLength = maxQueueLength
        }

        package mutating func read(_ rawLine: Substring) {
            lineNumber += 1
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            switch section {
            case .song(let uri, _):
                if line == "song_end" {
                    section = .queue
                    append(uri)
                }
            case .queue: readQueueLine(line)
            case .settings: readSetting(line)
            }
        }

        /// A line too long to be one of the file's is dropped unread.
        package mutating func skipLongLine() {
            lineNumber += 1
            drop("line", "longer than \(HostState.maxLineBytes) bytes")
        }

        /// What the lines held: a queue or song block the file left open is named, its entries kept, unless
        /// the file was `cut` (which says why).
        package mutating func finish(cut: Bool = false) -> Result {
            switch section {
            case .song(_, let line) where !cut: dropAt(line, "song_begin", "no song_end")
            case .queue where !cut: drop("playlist_begin", "no playlist_end")
            default: break
            }
            section = .settings
            if let position = state.current, position >= state.queue.count { state.current = nil }
            return Result(state: state, dropped: dropped, droppedCount: droppedCount, queueCut: queueCut)
        }

        private mutating func dropAt(_ line: Int, _ key: String, _ value: Substring) {
            droppedCount += 1
            guard dropped.count < Self.droppedLimit else { return }
            // Text from the file, fit for one line of the log: no control characters, and not a whole line of garbage.
            let printable = String(String.UnicodeScalarView(value.unicodeScalars.filter { $0.properties.generalCategory != .control }))
                .trimmingCharacters(in: .whitespaces)
            dropped.append(DroppedLine(line: line, key: String(key.prefix(40)),
                                       value: printable.count > 60 ? String(printable.prefix(60)) + "…" : printable))
        }

        private mutating func drop(_ key: String, _ value: Substring) { dropAt(lineNumber, key, value) }

        private mutating func readSetting(_ line: Substring) {
            if line == "playlist_begin" {
                section = .queue
                priority = 0
                return
            }
            guard let colon = line.firstIndex(of: ":") else {
                // MPD's other parts mark their blocks with lowercase words (`mount_begin`); anything else is no line of a state file.
                if !line.allSatisfy({ ("a"..."z").contains($0) || $0 == "_" }) { drop("line", line) }
                return
            }
            let key = String(line[..<colon])
            let rest = line[line.index(after: colon)...]
            let value = rest.trimmingCharacters(in: .whitespaces)
            /// The value when it is one of `Value` in `range`; nil (the line dropped) when not.
            func number<Value: LosslessStringConvertible & Comparable>(_ range: ClosedRange<Value>) -> Value? {
                guard let parsed = Value(value), range.contains(parsed) else {
                    drop(key, rest)
                    return nil
                }
                return parsed
            }
            func flag() -> Bool? { number(0...1).map { $0 == 1 } }
            func option<Value: RawRepresentable>(_: Value.Type) -> Value? where Value.RawValue == String {
                guard let parsed = Value(rawValue: value) else {
                    drop(key, rest)
                    return nil
                }
                return parsed
            }
            switch key {
            case "audio_device_state":
                let fields = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                guard fields.count == 2, fields[0] == "0" || fields[0] == "1" else { return drop(key, rest) }
                // MPD's cap on outputs is its config's; a file is held to the config file's block limit.
                if state.outputs.count < HostState.outputLimit {
                    state.outputs.append(OutputState(name: String(fields[1]), enabled: fields[0] == "1"))
                }
            case "sw_volume": if let volume = number(0...100) { state.volume = volume }
            case "state": if let playState = option(PlayState.self) { state.playState = playState }
            case "current": if let current = number(0...Int.max) { state.current = current }
            case "time":
                // Finite and not negative; held to a day past any song's end when restored.
                if let seconds = number(0...Double.greatestFiniteMagnitude) { state.elapsedSeconds = seconds }
            case "random": if let shuffle = flag() { state.shuffle = shuffle }
            case "repeat": if let repeats = flag() { state.repeats = repeats }
            case "single": if let single = option(SingleMode.self) { state.single = single }
            case "consume": if let consume = flag() { state.consume = consume }
            // Seconds, held to the longest fade when set.
            case "crossfade": if let seconds = number(0...Int.max) { state.crossfadeSeconds = seconds }
            case "mixrampdb":
                if let decibels = number(-Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude) { state.mixRampDb = decibels }
            case "mixrampdelay":
                // NaN is MixRamp off, as MPD writes it after `mixrampdelay nan`.
                if value.lowercased() == "nan" {
                    state.mixRampDelaySeconds = -1
                } else if let seconds = number(-Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude) {
                    state.mixRampDelaySeconds = seconds
                }
            case HostState.replayGainKey: if let mode = option(ReplayGainMode.self) { state.replayGainMode = mode }
            default: return
            }
        }

        /// An entry: `N:uri` or a `song_begin: uri` … `song_end` block (its tags skipped), each after an
        /// optional `Prio: N`; `playlist_end` ends the queue.
        private mutating func readQueueLine(_ line: Substring) {
            if line == "playlist_end" {
                section = .settings
                return
            }
            if let value = line.stripping(prefix: "Prio: ") {
                guard let parsed = Int(value), (0...255).contains(parsed) else { return drop("Prio", value) }
                priority = parsed
                return
            }
            if let name = line.stripping(prefix: "song_begin: ") {
                guard !name.isEmpty else {
                    priority = 0
                    return drop("song_begin", name)
                }
                section = .song(uri: String(name), line: lineNumber)
                return
            }
            guard let colon = line.firstIndex(of: ":"), let number = Int(line[..<colon]), number >= 0,
                  line.index(after: colon) < line.endIndex else {
                // A `Prio:` belongs to the line after it, dropped with it.
                priority = 0
                return drop("playlist", line)
            }
            append(String(line[line.index(after: colon)...]))
        }

        private mutating func append(_ uri: String) {
            defer { priority = 0 }
            guard state.queue.count < maxQueueLength else {
                queueCut = true
                return
            }
            state.queue.append(Entry(uri: uri, priority: priority))
        }
    }

    /// The longest line a state file holds: a path (at most 4 KiB) and its key, with room to spare.
    package static let maxLineBytes = 8192
    /// The most a state file of `maxQueueLength` songs is read to: its settings and outputs, and a few KiB
    /// a song (MPD's `max_playlist_length` bounds the file as it bounds the queue).
    package static func maxFileBytes(maxQueueLength: Int) -> Int {
        64 * 1024 &+ min(maxQueueLength, Int(Int32.max)) &* 4096
    }
}

extension Substring {
    fileprivate func stripping(prefix: String) -> Substring? {
        hasPrefix(prefix) ? dropFirst(prefix.count) : nil
    }
}
