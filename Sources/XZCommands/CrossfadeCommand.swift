import ArgumentParser
import XZHostAssembly
import XZProtocol

struct Crossfade: PlayerCommand {
    static let configuration = CommandConfiguration(
        commandName: "crossfade",
        abstract: "Show or set the crossfade: seconds the end of a song overlaps the next (0: gapless).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Seconds, 0 to turn it off.", valueName: "seconds"),
              transform: Crossfade.seconds(parsing:))
    var seconds: Int?

    func run(on door: HostDoor, context: CommandContext) throws {
        let change = seconds.map { [MPDRequest(name: "crossfade", arguments: [String($0)])] } ?? []
        let now = PlayerStatus(try door.runList(change + [MPDRequest(name: "status")])).crossfadeSeconds
        context.console.line(now > 0 ? "crossfade \(now) s" : "crossfade off")
    }

    /// Whole seconds, as MPD's `crossfade` takes them; at most an hour.
    static func seconds(parsing text: String) throws -> Int {
        guard let value = Int(text), (0...3600).contains(value) else {
            throw ValidationError("crossfade takes whole seconds from 0 to 3600, not \"\(text)\"")
        }
        return value
    }
}
