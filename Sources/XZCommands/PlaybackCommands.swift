import ArgumentParser
import Foundation
import XZSystem
import XZLyrics
import XZPlayback
import XZProtocol
import XZText
import XZHost
#if canImport(Glibc)
import Glibc
#endif

struct Play: AsyncLibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play songs: replace the queue and start.",
        discussion: "Each SONG is #ID, a number, an audio file, or a search (quote searches of several words). "
            + "With a host running (the prompt or 'xzmusic serve') the host plays them. Otherwise, and always with "
            + "--output, --realtime or --json, the queue plays here to its end: exit 0 when every track played, "
            + "1 when any failed.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Songs to play.", valueName: "song")) var songs: [String] = []
    @Option(help: ArgumentHelp("Play here into \(OutputSpec.usage).", valueName: "output"),
            transform: OutputSpec.init(parsing:))
    var output: OutputSpec?
    @Flag(help: "Pace file outputs to real time (playing here).") var realtime = false
    @Flag(help: "Print events as JSON lines (playing here).") var json = false
    @Flag(help: "Keep http(s) URLs that are no catalogue song in the library once fetched (playing here).")
    var keep = false
    @Option(name: .customLong("replay-gain"),
            help: ArgumentHelp("ReplayGain: off, track, album or auto (playing here; else the config's replay_gain_mode).",
                               valueName: "mode"))
    var replayGain: ReplayGainMode?
    @Option(help: ArgumentHelp("Seconds the end of a song overlaps the next (0: gapless); kept by the player.",
                               valueName: "seconds"), transform: Crossfade.seconds(parsing:))
    var crossfade: Int?

    /// Options that only make sense for a player of this process.
    private var playsHere: Bool { output != nil || realtime || json || keep || replayGain != nil }

    @MainActor func run(in context: CommandContext) async throws {
        if !playsHere, let control = try context.player ?? context.connectToHost() {
            if songs.isEmpty {
                if let crossfade { try control.setCrossfade(crossfade) }
                let view = try control.view()
                guard !view.queue.isEmpty else { throw CommandError.emptyQueue }
                if view.state != .playing { try control.togglePause() }
                return
            }
            if let crossfade { try control.setCrossfade(crossfade) }
            try control.play(context.playables(for: songs))
            return
        }
        guard !songs.isEmpty else { throw ValidationError("name at least one song to play") }
        let database = try context.database
        let items = try context.playables(for: songs).map { QueueItem($0, database: database) }
        let session = PlaybackSession(folder: context.folder, database: database,
                                      output: output ?? .systemDefault, realtime: realtime,
                                      console: context.console, presentation: json ? .json : .text, keepURLs: keep)
        if let replayGain { session.player.replayGain.mode = replayGain }
        if let crossfade { session.player.updateCrossfade { $0.seconds = crossfade } }
        // Ctrl-C, SIGTERM and a closed terminal stop playback cleanly: the current track ends as
        // "stopped", its play session is saved and the output is closed.
        let interrupted = InterruptFlag()
        let signals = SignalWatch([SIGINT, SIGTERM, SIGHUP]) { number in
            // Seeing the flag leads to shutdown, which ignores a later stop(): the flag shows only once stop() is in.
            interrupted.set(number) { session.player.stop() }
        }
        session.player.play(items)
        // A signal that came before the queue started stopped nothing: stopped now, the wait below ends.
        if interrupted.signal != nil { session.player.stop() }
        // Waiting blocks the main thread, which is no thread of the cooperative pool.
        session.player.waitUntilFinished()
        let failed = session.player.failedTrackCount
        await session.close()
        signals.cancel()
        if let number = interrupted.signal { throw ExitCode(128 + number) }
        if failed > 0 { throw ExitCode.failure }
    }
}

struct Add: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Append songs to the queue.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Songs to add.", valueName: "song")) var songs: [String]

    func run(on player: PlayerControl, context: CommandContext) throws {
        let playables = try context.playables(for: songs)
        try player.add(playables)
        context.console.line("added \(playables.count) to the queue (\(try player.queueCount()) in all)")
    }
}

struct Queue: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "List the queue; 'queue remove N' or 'queue clear' change it.",
        subcommands: [List.self, Remove.self, Clear.self], defaultSubcommand: List.self)

    struct List: PlayerCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the queue.")
        @OptionGroup var global: GlobalOptions

        func run(on player: PlayerControl, context: CommandContext) throws {
            let view = try player.view()
            if view.queue.isEmpty { context.console.line("The queue is empty.") }
            context.console.lines(view.queue.enumerated().map { index, item in
                let mark = index == view.currentIndex ? context.console.styled("▶", "32") : " "
                let who = item.singer.isEmpty ? "" : " — \(item.singer.safe)"
                return "\(mark) \(DisplayWidth.fit("\(index + 1)", to: 3, alignRight: true))  "
                    + "\(item.title.safe)\(who)  [\(DurationText.clock(ms: item.durationMs))]"
            })
        }
    }

    struct Remove: PlayerCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove entry N of the queue.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The entry's number in 'queue'.", valueName: "n")) var number: Int

        func run(on player: PlayerControl, context: CommandContext) throws {
            guard try player.remove(at: number - 1) else {
                throw CommandError.noSuchEntry(number, count: try player.queueCount())
            }
        }
    }

    struct Clear: PlayerCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Empty the queue.")
        @OptionGroup var global: GlobalOptions

        func run(on player: PlayerControl, context: CommandContext) throws {
            try player.clearQueue()
            context.console.line("queue cleared")
        }
    }
}

/// Commands that act on the player: the prompt's own host, or the library's running host.
protocol PlayerCommand: LibraryCommand {
    var global: GlobalOptions { get }
    func run(on player: PlayerControl, context: CommandContext) throws
}

extension PlayerCommand {
    func run(in context: CommandContext) throws {
        try run(on: context.playerControl(), context: context)
    }

    /// pause, next, prev and stop mean nothing without a queue; saying so beats a silent no-op.
    func requireQueue(_ player: PlayerControl) throws {
        guard try player.queueCount() > 0 else { throw CommandError.emptyQueue }
    }
}

struct Next: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "next", abstract: "Skip to the next song.")
    @OptionGroup var global: GlobalOptions
    func run(on player: PlayerControl, context: CommandContext) throws {
        try requireQueue(player)
        try player.next()
    }
}

struct Prev: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "prev", abstract: "Previous song (restarts the song if more than 3 s in).")
    @OptionGroup var global: GlobalOptions
    func run(on player: PlayerControl, context: CommandContext) throws {
        try requireQueue(player)
        // The prompt's own rule (MPD's previous always goes back): more than 3 s in, the song restarts.
        let view = try player.view()
        if view.isActive, view.positionMs > 3000 { try player.seek(.absolute(ms: 0)) } else { try player.previous() }
    }
}

struct Pause: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause or resume.")
    @OptionGroup var global: GlobalOptions
    func run(on player: PlayerControl, context: CommandContext) throws {
        try requireQueue(player)
        try player.togglePause()
        context.console.line(try player.view().state == .paused ? "paused" : "playing")
    }
}

struct Stop: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop playing (the queue stays).")
    @OptionGroup var global: GlobalOptions
    func run(on player: PlayerControl, context: CommandContext) throws {
        try requireQueue(player)
        try player.stop()
        context.console.line("stopped")
    }
}

extension SeekTarget: ExpressibleByArgument {
    /// The argument's transform reports why a position is bad; this form, which the protocol asks for, only says no.
    public init?(argument: String) {
        try? self.init(parsing: argument)
    }
}

struct Seek: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "seek", abstract: "Seek: +10, -5, 1:23 or 50%.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp(SeekTarget.usage, valueName: "position"), transform: SeekTarget.init(parsing:))
    var position: SeekTarget

    func run(on player: PlayerControl, context: CommandContext) throws {
        let view = try player.view()
        guard view.isActive else { throw CommandError.nothingPlaying("nothing is playing") }
        try player.seek(position)
        // The position asked for: the player may not have reached it yet when this prints.
        let total = view.durationMs ?? view.current?.durationMs
        let target: Int? = switch position {
        case .absolute(let ms): ms
        case .relative(let ms): view.positionMs + ms
        case .percent(let percent): total.map { Int(Double($0) * percent / 100) }
        }
        let clamped = target.map { max(0, min($0, total ?? $0)) }
        context.console.line("seek to \(DurationText.clock(ms: clamped)) of \(DurationText.clock(ms: total))")
    }
}

/// A volume level, or a change of it.
enum VolumeChange: ExpressibleByArgument, Equatable {
    case to(Int), by(Int)

    /// The argument's transform reports why a level is bad; this form, which the protocol asks for, only says no.
    init?(argument: String) {
        try? self.init(parsing: argument)
    }

    /// A signed value changes the level, a bare one or `=N` sets it; either beyond 100 is refused, not cut.
    init(parsing text: String) throws {
        let number = text.hasPrefix("=") ? String(text.dropFirst()) : text
        guard let value = Int(number) else { throw ValidationError("volume takes 0 to 100, +N or -N, not \"\(text)\"") }
        if text.hasPrefix("+") || text.hasPrefix("-") {
            guard abs(value) <= 100 else { throw ValidationError("a volume change must be between -100 and +100") }
            self = .by(value)
        } else {
            guard (0...100).contains(value) else { throw ValidationError("volume must be between 0 and 100") }
            self = .to(value)
        }
    }
}

struct Volume: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "volume", abstract: "Show or set the volume: 0-100, or +N / -N.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("0 to 100, or +N / -N to change it.", valueName: "level"),
              transform: VolumeChange.init(parsing:))
    var level: VolumeChange?

    func run(on player: PlayerControl, context: CommandContext) throws {
        switch level {
        case .to(let value): try player.setVolume(value)
        case .by(let step): try player.setVolume(min(100, max(0, try player.view().volume + step)))
        case nil: break
        }
        context.console.line("volume \(try player.view().volume)")
    }
}

extension RepeatMode: ExpressibleByArgument {}

struct Repeat: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "repeat", abstract: "Repeat off, one or all.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "off, one or all.") var mode: RepeatMode

    func run(on player: PlayerControl, context: CommandContext) throws {
        try player.setRepeat(mode)
        context.console.line("repeat \(try player.view().repeatMode.rawValue)")
    }
}

/// on / off, as the prompt says it.
enum Switch: String, ExpressibleByArgument, CaseIterable {
    case on, off
}

struct Shuffle: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "shuffle", abstract: "Shuffle on or off.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "on or off.") var mode: Switch

    func run(on player: PlayerControl, context: CommandContext) throws {
        try player.setShuffle(mode == .on)
        context.console.line("shuffle \(try player.view().shuffle ? "on" : "off")")
    }
}

struct Now: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "now", abstract: "What is playing, with the lyrics around it.")
    @OptionGroup var global: GlobalOptions

    func run(on player: PlayerControl, context: CommandContext) throws {
        let console = context.console
        let snapshot = try player.view()
        if var item = snapshot.current, snapshot.isActive {
            // The stored offset wins: 'lyrics offset' may have changed it since the song started. One that
            // cannot be read shows the lyrics unshifted rather than failing 'now'.
            if let key = item.songKey { item.lyricsAdjustmentMs = (try? context.database.lyricsAdjustment(songKey: key)) ?? 0 }
            // Which lyrics the song has is an extra: a failed read leaves it out.
            let database = try? context.database
            let lyrics = item.songKey.flatMap { key in database.flatMap { try? $0.song(key: key) } }
                .flatMap { song in database.flatMap { SongLyrics.kind(for: song, database: $0) } }
            console.lines(NowPlaying.lines(snapshot: snapshot, item: item, width: console.width, console: console,
                                           lyricsKind: lyrics?.rawValue))
        } else {
            console.line(snapshot.queue.isEmpty ? "Nothing is playing." : "Stopped (\(snapshot.queue.count) in the queue).")
        }
        // A client hears no error from before it came; 'now' tells the last one, once.
        if let error = snapshot.lastError {
            console.line("last error: \(error.safe)")
            try player.clearError()
        }
    }
}

enum NowPlaying {
    static func lines(snapshot: PlayerView, item: QueueItem, width: Int, console: Console, lyricsKind: String? = nil) -> [String] {
        let total = snapshot.durationMs ?? item.durationMs
        let barWidth = max(10, min(40, width - 30))
        let fraction = total.map { $0 > 0 ? min(1, Double(snapshot.positionMs) / Double($0)) : 0 } ?? 0
        let filled = Int(fraction * Double(barWidth))
        let bar = String(repeating: "━", count: filled) + "●" + String(repeating: "─", count: max(0, barWidth - filled))
        let who = item.singer.isEmpty ? "" : " — \(item.singer.safe)"
        var lines = [
            console.styled(DisplayWidth.truncate(item.title.safe + who, to: width - 2), "1"),
            "\(snapshot.stateText)  \(DurationText.clock(ms: snapshot.positionMs)) \(bar) \(DurationText.clock(ms: total))"
                + "  vol \(snapshot.volume)  repeat \(snapshot.repeatMode.rawValue)\(snapshot.shuffle ? "  shuffle" : "")"
                + (lyricsKind.map { "  lyrics \($0)" } ?? ""),
        ]
        guard let path = item.lyricsPath, let data = RegularFile.contents(atPath: path, limit: LRCParser.fileLimit) else { return lines }
        let timeline = LyricTimeline(LRCParser.parse(bytes: data), adjustmentMs: item.lyricsAdjustmentMs)
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
