import Foundation
import XZPlaybackTerms

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

    /// Reads a file this host or MPD wrote. A file cut short (no `playlist_end`) or with a value that
    /// is not one is damaged as a whole: nothing of it is trusted. Lines of other MPD parts (storage
    /// mounts) are skipped, as MPD skips what it does not know.
    init(parsing text: String) throws(StateFileDamage) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        if lines.last == "" { lines.removeLast() }
        guard lines.last == "playlist_end" else { throw StateFileDamage("it ends before its queue does") }
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            if line == "playlist_begin" {
                index = try readQueue(lines, from: index)
                continue
            }
            if line.hasPrefix("audio_device_state:") {
                let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                guard fields.count == 3, fields[1] == "0" || fields[1] == "1" else { throw StateFileDamage("bad line: \(line)") }
                // MPD's cap on outputs is its config's; a file is held to the config file's block limit.
                if outputs.count < Self.outputLimit { outputs.append(OutputState(name: String(fields[2]), enabled: fields[1] == "1")) }
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            func number<Value: LosslessStringConvertible & Comparable>(_ range: ClosedRange<Value>? = nil) throws(StateFileDamage) -> Value {
                guard let parsed = Value(value), range.map({ $0.contains(parsed) }) ?? true else {
                    throw StateFileDamage("bad \(key): \(value)")
                }
                return parsed
            }
            func flag() throws(StateFileDamage) -> Bool { try number(0...1) == 1 }
            switch key {
            case "sw_volume": volume = try number(0...100)
            case "state":
                guard let state = PlayState(rawValue: value) else { throw StateFileDamage("bad state: \(value)") }
                playState = state
            case "current": current = try number(0...Int.max)
            case "time":
                let seconds: Double = try number()
                guard seconds.isFinite, seconds >= 0 else { throw StateFileDamage("bad time: \(value)") }
                elapsedSeconds = seconds
            case "random": shuffle = try flag()
            case "repeat": repeats = try flag()
            case "single":
                guard let mode = SingleMode(rawValue: value) else { throw StateFileDamage("bad single: \(value)") }
                single = mode
            case "consume": consume = try flag()
            case "crossfade": crossfadeSeconds = try number(0...Int.max)
            case "mixrampdb": mixRampDb = try number()
            case "mixrampdelay": mixRampDelaySeconds = try number()
            case Self.replayGainKey:
                guard let mode = ReplayGainMode(rawValue: value) else { throw StateFileDamage("bad \(key): \(value)") }
                replayGainMode = mode
            default:
                continue
            }
        }
        if let position = current, position >= queue.count { current = nil }
    }

    /// The entries up to `playlist_end`: `N:uri` or a `song_begin: uri` … `song_end` block (its tags
    /// skipped), each after an optional `Prio: N`. Returns the index after `playlist_end`.
    private mutating func readQueue(_ lines: [Substring], from start: Int) throws(StateFileDamage) -> Int {
        var index = start
        var priority = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            if line == "playlist_end" { return index }
            if let value = line.stripping(prefix: "Prio: ") {
                guard let parsed = Int(value), (0...255).contains(parsed) else { throw StateFileDamage("bad priority: \(line)") }
                priority = parsed
                continue
            }
            let uri: Substring
            if let name = line.stripping(prefix: "song_begin: ") {
                guard let end = lines[index...].firstIndex(of: "song_end") else { throw StateFileDamage("a song block has no end") }
                index = end + 1
                uri = name
            } else {
                guard let colon = line.firstIndex(of: ":"), let _ = Int(line[..<colon]),
                      line.index(after: colon) < line.endIndex else { throw StateFileDamage("bad queue line: \(line)") }
                uri = line[line.index(after: colon)...]
            }
            queue.append(Entry(uri: String(uri), priority: priority))
            priority = 0
        }
        throw StateFileDamage("its queue has no end")
    }
}

/// Why a state file could not be read.
struct StateFileDamage: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Substring {
    fileprivate func stripping(prefix: String) -> Substring? {
        hasPrefix(prefix) ? dropFirst(prefix.count) : nil
    }
}
