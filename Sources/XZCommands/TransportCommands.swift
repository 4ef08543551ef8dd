import ArgumentParser
import Foundation
import XZProtocol
import XZText
import XZHostAssembly
import XZPlaybackValues

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
    package init?(argument: String) {
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
