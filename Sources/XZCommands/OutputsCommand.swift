import ArgumentParser
import XZHostAssembly
import XZProtocol

/// `outputs` as mpc's `outputs`, `enable`, `disable` and `toggleoutput`: outputs numbered from 1, or named.
struct Outputs: PlayerCommand {
    static let configuration = CommandConfiguration(
        commandName: "outputs",
        abstract: "List the audio outputs, or enable, disable or toggle them by number or name.",
        discussion: """
            outputs                     list them, numbered from 1 (as mpc outputs)
            outputs enable 2 "Kitchen"  enable outputs 2 and Kitchen
            outputs disable 1           disable output 1
            outputs toggle 1            switch output 1 on or off
            outputs only 2              enable output 2 and disable every other
            """)
    enum Action: String, ExpressibleByArgument, CaseIterable {
        case enable, disable, toggle, only
    }

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("enable, disable, toggle or only.", valueName: "action"))
    var action: Action?
    @Argument(help: ArgumentHelp("Outputs by number (from 1) or name.", valueName: "output"))
    var outputs: [String] = []

    func validate() throws {
        guard (action == nil) == outputs.isEmpty else {
            throw ValidationError(action == nil ? "outputs takes enable, disable, toggle or only before the outputs"
                                                : "outputs \(action!.rawValue) needs the outputs, by number or name")
        }
    }

    func run(on door: HostDoor, context: CommandContext) throws {
        var listed = Self.listed(try door.run("outputs"))
        if let action {
            let chosen = try outputs.map { try Self.id(of: $0, in: listed) }
            var requests: [MPDRequest]
            switch action {
            case .enable: requests = chosen.map { MPDRequest(name: "enableoutput", arguments: [String($0)]) }
            case .disable: requests = chosen.map { MPDRequest(name: "disableoutput", arguments: [String($0)]) }
            case .toggle: requests = chosen.map { MPDRequest(name: "toggleoutput", arguments: [String($0)]) }
            case .only:
                requests = listed.map { MPDRequest(name: chosen.contains($0.id) ? "enableoutput" : "disableoutput", arguments: [String($0.id)]) }
            }
            requests.append(MPDRequest(name: "outputs"))
            listed = Self.listed(try door.runList(requests))
        }
        // mpc's lines, numbered from 1.
        context.console.lines(listed.map { "Output \($0.id + 1) (\($0.name)) is \($0.enabled ? "enabled" : "disabled")" })
    }

    private struct Listed {
        var id: Int
        var name = ""
        var enabled = false
    }

    private static func listed(_ pairs: [(key: String, value: String)]) -> [Listed] {
        var outputs: [Listed] = []
        for (key, value) in pairs {
            switch key {
            case "outputid": outputs.append(Listed(id: Int(value) ?? outputs.count))
            case "outputname" where !outputs.isEmpty: outputs[outputs.count - 1].name = value
            case "outputenabled" where !outputs.isEmpty: outputs[outputs.count - 1].enabled = value == "1"
            default: break
            }
        }
        return outputs
    }

    /// An output's id by its number (from 1, as mpc counts) or its name.
    private static func id(of text: String, in listed: [Listed]) throws -> Int {
        if let number = Int(text), let output = listed.first(where: { $0.id == number - 1 }) { return output.id }
        if let output = listed.first(where: { $0.name == text }) { return output.id }
        throw CommandError.usage("no output \"\(text.prefix(60))\": give its number (1 to \(listed.count)) or name")
    }
}
