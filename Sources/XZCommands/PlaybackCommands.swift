import ArgumentParser
import Foundation
import XZLyrics
import XZPlayback
import XZText
#if canImport(Glibc)
import Glibc
#endif

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play songs: replace the queue and start.",
        discussion: "Each SONG is #ID, a number, an audio file, or a search (quote searches of several words). "
            + "One-shot, plays the queue to its end: exit 0 when every track played, 1 when any failed.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Songs to play.", valueName: "song")) var songs: [String] = []
    @Option(help: "default, null, wav:PATH, au:PATH or raw:PATH (one-shot only).") var output = "default"
    @Flag(help: "Pace file outputs to real time (one-shot only).") var realtime = false
    @Flag(help: "Print events as JSON lines (one-shot only).") var json = false

    func validate() throws {
        do { _ = try OutputSpec(parsing: output) } catch { throw ValidationError("\(error)") }
    }

    func run() throws {
        let context = try CommandContext.open(global)
        if context.isInteractive {
            let session = try context.playbackSession()
            if songs.isEmpty {
                let snapshot = session.player.snapshot()
                guard !snapshot.queue.isEmpty else { throw CommandError("the queue is empty: play SONG...") }
                if snapshot.state != .playing { session.player.togglePause() }
                return
            }
            session.player.play(try context.queueItems(for: songs))
            return
        }
        guard !songs.isEmpty else { throw ValidationError("name at least one song to play") }
        let items = try context.queueItems(for: songs)
        let session = PlaybackSession(output: try OutputSpec(parsing: output), realtime: realtime,
                                      console: context.console, presentation: json ? .json : .text)
        context.startRecording(session)
        // Ctrl-C, SIGTERM and a closed terminal stop playback cleanly: the current track ends as
        // "stopped", its play session is saved and the output is closed.
        let interrupted = InterruptFlag()
        let signals = SignalWatch([SIGINT, SIGTERM, SIGHUP]) { number in
            // Seeing the flag leads to shutdown, which ignores a later stop(): the flag shows only once stop() is in.
            interrupted.set(number) { session.player.stop() }
        }
        session.player.play(items)
        while !session.player.waitUntilFinished(timeout: 0.2) {
            if interrupted.signal != nil { break }
        }
        let failed = session.player.failedTrackCount
        context.closePlayback(session)
        signals.cancel()
        if let number = interrupted.signal { throw ExitCode(128 + number) }
        if failed > 0 { throw ExitCode.failure }
    }
}

/// The signal that asked the program to stop: set from a signal handler queue, read by the waiting thread.
final class InterruptFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int32?
    /// Runs `action` before the signal becomes visible to readers, so they never act ahead of it.
    func set(_ signal: Int32, after action: () -> Void = {}) {
        lock.lock()
        action()
        value = value ?? signal
        lock.unlock()
    }
    var signal: Int32? { lock.lock(); defer { lock.unlock() }; return value }
}

/// Handles signals on a dispatch queue instead of letting them end the process at once.
final class SignalWatch {
    private let sources: [DispatchSourceSignal]

    init(_ numbers: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        sources = numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    func cancel() { sources.forEach { $0.cancel() } }
}

struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Append songs to the queue.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Songs to add.", valueName: "song")) var songs: [String]

    func run() throws {
        let context = try CommandContext.open(global)
        let session = try context.playbackSession()
        let items = try context.queueItems(for: songs)
        session.player.add(items)
        context.console.line("added \(items.count) to the queue (\(session.player.snapshot().queue.count) in all)")
    }
}

struct Queue: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the queue; 'queue remove N' or 'queue clear' change it.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("remove N | clear", valueName: "action")) var action: [String] = []

    func validate() throws {
        switch action.first {
        case nil, "clear": if action.count > 1 { throw ValidationError("'queue clear' takes nothing more") }
        case "remove": if action.count != 2 || Int(action[1]) == nil { throw ValidationError("use 'queue remove N'") }
        default: throw ValidationError("unknown queue action '\(action[0])': use 'queue', 'queue remove N' or 'queue clear'")
        }
    }

    func run() throws {
        let context = try CommandContext.open(global)
        let player = try context.playbackSession().player
        switch action.first {
        case "clear":
            player.clearQueue()
            context.console.line("queue cleared")
        case "remove":
            let number = Int(action[1]) ?? 0
            guard player.removeFromQueue(at: number - 1) else {
                throw CommandError("no entry \(number) in the queue (1-\(player.snapshot().queue.count))")
            }
        default:
            let snapshot = player.snapshot()
            if snapshot.queue.isEmpty { context.console.line("The queue is empty.") }
            context.console.lines(snapshot.queue.enumerated().map { index, item in
                let mark = index == snapshot.currentIndex ? context.console.styled("▶", "32") : " "
                let who = item.singer.isEmpty ? "" : " — \(item.singer.safe)"
                return "\(mark) \(DisplayWidth.fit("\(index + 1)", to: 3, alignRight: true))  "
                    + "\(item.title.safe)\(who)  [\(DurationText.clock(ms: item.durationMs))]"
            })
        }
    }
}

/// Commands that act on the REPL's player without arguments.
protocol PlayerAction: ParsableCommand {
    var global: GlobalOptions { get }
    func act(on player: Player, console: Console) throws
}

extension PlayerAction {
    func run() throws {
        let context = try CommandContext.open(global)
        try act(on: context.playbackSession().player, console: context.console)
    }

    /// pause, next, prev and stop mean nothing without a queue; saying so beats a silent no-op.
    func requireQueue(_ player: Player) throws {
        guard !player.snapshot().queue.isEmpty else { throw CommandError("the queue is empty: play SONG...") }
    }
}

struct Next: PlayerAction {
    static let configuration = CommandConfiguration(abstract: "Skip to the next song.")
    @OptionGroup var global: GlobalOptions
    func act(on player: Player, console: Console) throws {
        try requireQueue(player)
        player.next()
    }
}

struct Prev: PlayerAction {
    static let configuration = CommandConfiguration(abstract: "Previous song (restarts the song if more than 3 s in).")
    @OptionGroup var global: GlobalOptions
    func act(on player: Player, console: Console) throws {
        try requireQueue(player)
        player.previous()
    }
}

struct Pause: PlayerAction {
    static let configuration = CommandConfiguration(abstract: "Pause or resume.")
    @OptionGroup var global: GlobalOptions
    func act(on player: Player, console: Console) throws {
        try requireQueue(player)
        player.togglePause()
        console.line(player.snapshot().state == .paused ? "paused" : "playing")
    }
}

struct Stop: PlayerAction {
    static let configuration = CommandConfiguration(abstract: "Stop playing (the queue stays).")
    @OptionGroup var global: GlobalOptions
    func act(on player: Player, console: Console) throws {
        try requireQueue(player)
        player.stop()
    }
}

struct Seek: PlayerAction {
    static let configuration = CommandConfiguration(abstract: "Seek: +10, -5, 1:23 or 50%.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("+SECONDS, -SECONDS, M:SS or N%.", valueName: "position")) var position: String

    func validate() throws {
        do { _ = try SeekTarget(parsing: position) } catch { throw ValidationError("\(error)") }
    }

    func act(on player: Player, console: Console) throws {
        guard player.snapshot().state == .playing || player.snapshot().state == .paused else {
            throw CommandError("nothing is playing")
        }
        player.seek(try SeekTarget(parsing: position))
    }
}

struct Volume: PlayerAction {
    static let configuration = CommandConfiguration(abstract: "Show or set the volume: 0-100, or +N / -N.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("0 to 100, or +N / -N to change it.", valueName: "level")) var level: String?

    /// An absolute level, or a signed change.
    private enum Change { case to(Int), by(Int) }

    private var change: Change? {
        get throws {
            guard let level else { return nil }
            guard let number = Int(level) else { throw ValidationError("volume takes 0 to 100, +N or -N, not \"\(level)\"") }
            if level.hasPrefix("+") || level.hasPrefix("-") { return .by(number) }
            guard (0...100).contains(number) else { throw ValidationError("volume must be between 0 and 100") }
            return .to(number)
        }
    }

    func validate() throws { _ = try change }

    func act(on player: Player, console: Console) throws {
        switch try change {
        case .to(let value): player.setVolume(value)
        case .by(let step): player.setVolume(min(100, max(0, player.snapshot().volume + step)))
        case nil: break
        }
        console.line("volume \(player.snapshot().volume)")
    }
}

struct Repeat: PlayerAction {
    static let configuration = CommandConfiguration(abstract: "Repeat off, one or all.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "off, one or all.") var mode: String

    func validate() throws {
        if RepeatMode(rawValue: mode) == nil { throw ValidationError("use 'repeat off', 'repeat one' or 'repeat all'") }
    }

    func act(on player: Player, console: Console) {
        if let mode = RepeatMode(rawValue: mode) { player.setRepeat(mode) }
        console.line("repeat \(player.snapshot().repeatMode.rawValue)")
    }
}

struct Shuffle: PlayerAction {
    static let configuration = CommandConfiguration(abstract: "Shuffle on or off.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "on or off.") var mode: String

    func validate() throws {
        if mode != "on" && mode != "off" { throw ValidationError("use 'shuffle on' or 'shuffle off'") }
    }

    func act(on player: Player, console: Console) {
        player.setShuffle(mode == "on")
        console.line("shuffle \(player.snapshot().shuffle ? "on" : "off")")
    }
}

struct Now: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "What is playing, with the lyrics around it.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        let context = try CommandContext.open(global)
        let console = context.console
        let snapshot = try context.playbackSession().player.snapshot()
        guard var item = snapshot.current, snapshot.state == .playing || snapshot.state == .paused else {
            console.line(snapshot.queue.isEmpty ? "Nothing is playing." : "Stopped (\(snapshot.queue.count) in the queue).")
            return
        }
        // The stored offset wins: 'lyrics offset' may have changed it since the song started.
        if let key = item.songKey { item.lyricsAdjustmentMs = (try? context.database.lyricsAdjustment(songKey: key)) ?? 0 }
        console.lines(NowPlaying.lines(snapshot: snapshot, item: item, width: console.width, console: console))
    }
}

enum NowPlaying {
    static func lines(snapshot: PlayerSnapshot, item: QueueItem, width: Int, console: Console) -> [String] {
        let total = snapshot.durationMs ?? item.durationMs
        let barWidth = max(10, min(40, width - 30))
        let fraction = total.map { $0 > 0 ? min(1, Double(snapshot.positionMs) / Double($0)) : 0 } ?? 0
        let filled = Int(fraction * Double(barWidth))
        let bar = String(repeating: "━", count: filled) + "●" + String(repeating: "─", count: max(0, barWidth - filled))
        let who = item.singer.isEmpty ? "" : " — \(item.singer.safe)"
        var lines = [
            console.styled(DisplayWidth.truncate(item.title.safe + who, to: width - 2), "1"),
            "\(snapshot.state.rawValue)  \(DurationText.clock(ms: snapshot.positionMs)) \(bar) \(DurationText.clock(ms: total))"
                + "  vol \(snapshot.volume)  repeat \(snapshot.repeatMode.rawValue)\(snapshot.shuffle ? "  shuffle" : "")",
        ]
        guard let path = item.lyricsPath, let data = FileManager.default.contents(atPath: path) else { return lines }
        let timeline = LyricTimeline(LRCParser.parse(bytes: [UInt8](data)), adjustmentMs: item.lyricsAdjustmentMs)
        guard let current = timeline.lineIndex(at: snapshot.positionMs) ?? (timeline.isEmpty ? nil : -1) else { return lines }
        for index in (current - 1)...(current + 1) where timeline.lines.indices.contains(index) {
            let line = timeline.lines[index]
            var text = DisplayWidth.truncate(line.text.safe, to: width - 4)
            if index == current {
                // The sung part of a word-timed line is marked.
                if let word = timeline.wordIndex(line: index, at: snapshot.positionMs), !line.words.isEmpty {
                    let sung = line.words[...word].map(\.text).joined()
                    let rest = line.words[(word + 1)...].map(\.text).joined()
                    text = console.colorEnabled
                        ? console.styled(sung.safe, "1;36") + rest.safe
                        : DisplayWidth.truncate("[\(sung.safe)]\(rest.safe)", to: width - 4)
                }
                lines.append("> " + text)
            } else {
                lines.append("  " + console.styled(text, "2"))
            }
        }
        return lines
    }
}
