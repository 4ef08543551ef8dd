import ArgumentParser
import Foundation
import XZSystem
import XZLyrics
import XZProtocol
import XZText
import XZHost
import XZHosting
import XZPlaybackTerms
#if canImport(Glibc)
import Glibc
#endif

extension ReplayGainMode: ExpressibleByArgument {}

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
        if !playsHere, let door = try context.door ?? context.connectToHost() {
            context.door = door
            let setCrossfade = crossfade.map { [MPDRequest(name: "crossfade", arguments: [String($0)])] } ?? []
            if songs.isEmpty {
                try context.withPlayer { door in
                    try door.runList(setCrossfade)
                    let status = try door.status()
                    guard status.playlistLength > 0 else { throw CommandError.emptyQueue }
                    switch status.state {
                    case .stop: try door.run("play")
                    case .pause: try door.run("pause", ["0"])
                    case .play: break
                    }
                }
                return
            }
            // One command list: no other client sees the queue emptied or half filled.
            let requests = setCrossfade + [MPDRequest(name: "clear")] + MPDRequest.adds(try context.playables(for: songs))
                + [MPDRequest(name: "play", arguments: ["0"])]
            try context.withPlayer { try $0.runList(requests) }
            return
        }
        guard !songs.isEmpty else { throw ValidationError("name at least one song to play") }
        let database = try context.database
        let items = try context.playables(for: songs).map { QueueItem($0, database: database) }
        var configuration = try HostConfiguration.load(output: output)
        configuration.realtime = realtime
        configuration.keepsURLs = keep
        if let replayGain { configuration.replayGain.mode = replayGain }
        if let crossfade { configuration.crossfade.seconds = crossfade }
        let running = try await context.startHost(configuration, listening: .nowhere,
                                                  showing: PlaybackSession(console: context.console, presentation: json ? .json : .text))
        // Ctrl-C, SIGTERM and a closed terminal stop playback cleanly: the current track ends as
        // "stopped", its play session is saved and the output is closed.
        let interrupted = InterruptFlag()
        let signals = SignalWatch([SIGINT, SIGTERM, SIGHUP]) { number in
            // Seeing the flag leads to shutdown, which ignores a later stop(): the flag shows only once stop() is in.
            interrupted.set(number) { running.stopPlaying() }
        }
        running.play(items)
        // A signal that came before the queue started stopped nothing: stopped now, the wait below ends.
        if interrupted.signal != nil { running.stopPlaying() }
        // Waiting blocks the main thread, which is no thread of the cooperative pool.
        running.waitUntilFinished()
        let failed = running.failedTrackCount
        await running.stop()
        signals.cancel()
        if let number = interrupted.signal { throw ExitCode(128 + number) }
        if failed > 0 { throw ExitCode.failure }
    }
}

struct Add: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Append songs to the queue.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Songs to add.", valueName: "song")) var songs: [String]

    func run(on door: HostDoor, context: CommandContext) throws {
        let playables = try context.playables(for: songs)
        // The adds and the count that follows them, in one command list.
        let status = PlayerStatus(try door.runList(MPDRequest.adds(playables) + [MPDRequest(name: "status")]))
        context.console.line("added \(playables.count) to the queue (\(status.playlistLength) in all)")
    }
}

struct Queue: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "List the queue; 'queue remove N' or 'queue clear' change it.",
        subcommands: [List.self, Remove.self, Clear.self], defaultSubcommand: List.self)

    /// Entries `queue` shows at a time.
    static let pageSize = 20
    /// Entries asked for at once by `queue --all`, well under what one answer may hold.
    static let readSize = 1000

    struct List: PlayerCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the queue, a page at a time.",
            discussion: "Shows the \(Queue.pageSize) entries of the page that holds the current song (the first page "
                + "when none plays); --page N shows another, --all the whole queue.")
        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp("The page to show (\(Queue.pageSize) entries a page).", valueName: "n")) var page: Int?
        @Flag(help: "Show the whole queue.") var all = false

        func validate() throws {
            if page != nil && all { throw ValidationError("--page and --all exclude each other") }
            if let page, page < 1 { throw ValidationError("--page counts from 1") }
        }

        func run(on door: HostDoor, context: CommandContext) throws {
            let status = try door.status()
            let count = status.playlistLength
            guard count > 0 else {
                context.console.line("The queue is empty.")
                return
            }
            let size = Queue.pageSize
            let pages = (count - 1) / size + 1
            let number = page ?? (status.song ?? 0) / size + 1
            guard all || number <= pages else {
                throw CommandError.usage("the queue has \(pages) page\(pages == 1 ? "" : "s") of \(size): --page 1 to \(pages)")
            }
            let shown = all ? 0..<count : (number - 1) * size..<min(count, number * size)
            for start in stride(from: shown.lowerBound, to: shown.upperBound, by: Queue.readSize) {
                let records = try door.queue(window: start..<min(shown.upperBound, start + Queue.readSize))
                context.console.lines(records.enumerated().map { offset, record in
                    let position = record.position ?? start + offset
                    let mark = position == status.song ? context.console.styled("▶", "32") : " "
                    let who = record.artists.isEmpty ? "" : " — \(record.artists.joined(separator: ", ").safe)"
                    let title = record.title ?? URL(fileURLWithPath: record.file).deletingPathExtension().lastPathComponent
                    return "\(mark) \(DisplayWidth.fit("\(position + 1)", to: 3, alignRight: true))  "
                        + "\(title.safe)\(who)  [\(DurationText.clock(ms: record.durationMs))]"
                })
            }
            if !all, pages > 1 {
                context.console.line("page \(number) of \(pages), \(count) in the queue: 'queue --page N' shows another, 'queue --all' all")
            }
        }
    }

    struct Remove: PlayerCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove entry N of the queue.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The entry's number in 'queue'.", valueName: "n")) var number: Int

        func run(on door: HostDoor, context: CommandContext) throws {
            // MPD deletes nothing, and says nothing, at the position just past the end: it is refused here.
            let count = try door.status().playlistLength
            guard (1...max(count, 1)).contains(number), count > 0 else { throw CommandError.noSuchEntry(number, count: count) }
            do {
                try door.run("delete", [String(number - 1)])
            } catch let failure as HostDoor.Failure where failure.ack?.code == .arg {
                // The queue shrank since it was counted.
                throw CommandError.noSuchEntry(number, count: try door.status().playlistLength)
            }
        }
    }

    struct Clear: PlayerCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Empty the queue.")
        @OptionGroup var global: GlobalOptions

        func run(on door: HostDoor, context: CommandContext) throws {
            try door.run("clear")
            context.console.line("queue cleared")
        }
    }
}

/// Commands that act on the player: the prompt's own host, or the library's running host, through its door.
protocol PlayerCommand: LibraryCommand {
    var global: GlobalOptions { get }
    func run(on door: HostDoor, context: CommandContext) throws
}

extension PlayerCommand {
    func run(in context: CommandContext) throws {
        try context.withPlayer { try run(on: $0, context: context) }
    }

    /// pause, next, prev and stop mean nothing without a queue; saying so beats a silent no-op.
    /// The status, for the command to go on with.
    @discardableResult
    func requireQueue(_ door: HostDoor) throws -> PlayerStatus {
        let status = try door.status()
        guard status.playlistLength > 0 else { throw CommandError.emptyQueue }
        return status
    }
}

struct Next: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "next", abstract: "Skip to the next song.")
    @OptionGroup var global: GlobalOptions
    func run(on door: HostDoor, context: CommandContext) throws {
        guard try requireQueue(door).isActive else { throw CommandError.nothingPlaying("nothing is playing: 'play' starts the queue") }
        try door.run("next")
    }
}

struct Prev: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "prev", abstract: "Previous song (restarts the song if more than 3 s in).")
    @OptionGroup var global: GlobalOptions
    func run(on door: HostDoor, context: CommandContext) throws {
        let status = try requireQueue(door)
        guard status.isActive else { throw CommandError.nothingPlaying("nothing is playing: 'play' starts the queue") }
        // The prompt's own rule (MPD's previous always goes back): more than 3 s in, the song restarts.
        if status.isActive, (status.elapsedMs ?? 0) > 3000 { try door.run("seekcur", ["0"]) } else { try door.run("previous") }
    }
}

struct Pause: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause or resume.")
    @OptionGroup var global: GlobalOptions
    func run(on door: HostDoor, context: CommandContext) throws {
        let before = try requireQueue(door)
        // A stopped queue starts; else MPD's pause toggles. The state after comes in the same list.
        let after = PlayerStatus(try door.runList([MPDRequest(name: before.state == .stop ? "play" : "pause"), MPDRequest(name: "status")]))
        context.console.line(after.state == .pause ? "paused" : "playing")
    }
}

struct Stop: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop playing (the queue stays).")
    @OptionGroup var global: GlobalOptions
    func run(on door: HostDoor, context: CommandContext) throws {
        try requireQueue(door)
        try door.run("stop")
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

    func run(on door: HostDoor, context: CommandContext) throws {
        let status = try door.status()
        guard status.isActive else { throw CommandError.nothingPlaying("nothing is playing") }
        let total = status.durationMs
        let elapsed = status.elapsedMs ?? 0
        // Relative seeks stay relative on the host, so two clients seeking at once both count.
        let argument: String
        let target: Int?
        switch position {
        case .absolute(let ms):
            argument = Self.seconds(ms)
            target = ms
        case .relative(let ms):
            argument = (ms < 0 ? "-" : "+") + Self.seconds(ms.magnitude)
            target = elapsed + ms
        case .percent(let percent):
            guard let total else { throw CommandError.nothingPlaying("the song's length is unknown: seek to a time") }
            let ms = Int((Double(total) * percent / 100).rounded(.down))
            argument = Self.seconds(ms)
            target = ms
        }
        try door.run("seekcur", [argument])
        // The position asked for: the player may not have reached it yet when this prints.
        let clamped = target.map { max(0, min($0, total ?? $0)) }
        context.console.line("seek to \(DurationText.clock(ms: clamped)) of \(DurationText.clock(ms: total))")
    }

    /// Milliseconds as seconds with three decimals, as `seekcur` takes them.
    private static func seconds<N: BinaryInteger>(_ ms: N) -> String {
        "\(ms / 1000).\(String(Int(ms % 1000) + 1000).dropFirst())"
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

    func run(on door: HostDoor, context: CommandContext) throws {
        // MPD's relative `volume`: a step taken by the host, so steps from many clients all count.
        let change: [MPDRequest] = switch level {
        case .to(let value): [MPDRequest(name: "setvol", arguments: [String(value)])]
        case .by(let step): [MPDRequest(name: "volume", arguments: [String(step)])]
        case nil: []
        }
        let status = PlayerStatus(try door.runList(change + [MPDRequest(name: "status")]))
        context.console.line("volume \(status.volume.map(String.init) ?? "unknown (no mixer)")")
    }
}

extension RepeatMode: ExpressibleByArgument {}

struct Repeat: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "repeat", abstract: "Repeat off, one or all.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "off, one or all.") var mode: RepeatMode

    func run(on door: HostDoor, context: CommandContext) throws {
        let status = PlayerStatus(try door.runList([
            MPDRequest(name: "repeat", arguments: [mode.repeats ? "1" : "0"]),
            MPDRequest(name: "single", arguments: [mode.single.rawValue]), MPDRequest(name: "status"),
        ]))
        context.console.line("repeat \(NowPlaying.repeatMode(status).rawValue)")
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

    func run(on door: HostDoor, context: CommandContext) throws {
        let status = PlayerStatus(try door.runList([
            MPDRequest(name: "random", arguments: [mode == .on ? "1" : "0"]), MPDRequest(name: "status"),
        ]))
        context.console.line("shuffle \(status.random ? "on" : "off")")
    }
}

struct Now: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "now", abstract: "What is playing, with the lyrics around it.")
    @OptionGroup var global: GlobalOptions

    func run(on door: HostDoor, context: CommandContext) throws {
        let console = context.console
        let status = try door.status()
        if status.isActive, let item = try context.currentItem(door) {
            // Which lyrics the song has is an extra: a failed read leaves it out.
            let database = try? context.database
            let lyrics = item.songKey.flatMap { key in database.flatMap { try? $0.song(key: key) } }
                .flatMap { song in database.flatMap { SongLyrics.kind(for: song, database: $0) } }
            console.lines(NowPlaying.lines(status: status, item: item, width: console.width, console: console,
                                           lyricsKind: lyrics?.rawValue))
        } else {
            console.line(status.playlistLength == 0 ? "Nothing is playing." : "Stopped (\(status.playlistLength) in the queue).")
        }
        // A client hears no error from before it came; 'now' tells the last one, once.
        if let error = status.error {
            console.line("last error: \(error.safe)")
            try door.run("clearerror")
        }
    }
}

enum NowPlaying {
    static func lines(status: PlayerStatus, item: QueueItem, width: Int, console: Console, lyricsKind: String? = nil) -> [String] {
        let total = status.durationMs ?? item.durationMs
        let position = status.elapsedMs ?? 0
        let barWidth = max(10, min(40, width - 30))
        let fraction = total.map { $0 > 0 ? min(1, Double(position) / Double($0)) : 0 } ?? 0
        let filled = Int(fraction * Double(barWidth))
        let bar = String(repeating: "━", count: filled) + "●" + String(repeating: "─", count: max(0, barWidth - filled))
        let who = item.singer.isEmpty ? "" : " — \(item.singer.safe)"
        var lines = [
            console.styled(DisplayWidth.truncate(item.title.safe + who, to: width - 2), "1"),
            "\(stateText(status))  \(DurationText.clock(ms: position)) \(bar) \(DurationText.clock(ms: total))"
                + "  vol \(status.volume.map(String.init) ?? "-")  repeat \(repeatMode(status).rawValue)\(status.random ? "  shuffle" : "")"
                + (lyricsKind.map { "  lyrics \($0)" } ?? ""),
        ]
        guard let path = item.lyricsPath, let data = RegularFile.contents(atPath: path, limit: LRCParser.fileLimit) else { return lines }
        let timeline = LyricTimeline(LRCParser.parse(bytes: data), adjustmentMs: item.lyricsAdjustmentMs)
        guard let current = timeline.lineIndex(at: position) ?? (timeline.isEmpty ? nil : -1) else { return lines }
        for index in (current - 1)...(current + 1) where timeline.lines.indices.contains(index) {
            let line = timeline.lines[index]
            var text = DisplayWidth.truncate(line.text.safe, to: width - 4)
            if index == current {
                // The sung part of a word-timed line is marked.
                if let word = timeline.wordIndex(line: index, at: position), !line.words.isEmpty {
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

    /// The state as our output shows it.
    static func stateText(_ status: PlayerStatus) -> String {
        switch status.state {
        case .play: status.isBuffering ? "buffering" : "playing"
        case .pause: "paused"
        case .stop: "stopped"
        }
    }

    static func repeatMode(_ status: PlayerStatus) -> RepeatMode {
        RepeatMode(repeats: status.repeats, single: SingleMode(rawValue: status.single) ?? .off)
    }
}
