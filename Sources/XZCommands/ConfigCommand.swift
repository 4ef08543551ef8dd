import ArgumentParser
import Foundation
import XZCatalogue
import XZSystem
import XZText

/// `xzmusic config`: every key of the config table with its effective value and where that comes from
/// (the file's line, an environment variable, the default), then the environment variables that choose
/// what the file does not. A value a key does not take is marked on its line and makes the command fail.
/// `--markdown` prints the README's table of keys.
struct ConfigCommand: LibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show every config key's value and where it comes from.",
        discussion: "The config file is $XDG_CONFIG_HOME/xzmusic/config (else ~/.config/xzmusic/config), one "
            + "'key = value' a line. Each key is listed with its value and its source: the file's line, an "
            + "environment variable, or the default. A value a key does not take is marked, and the command fails.")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Print the table of keys, their defaults and what they set, in Markdown.") var markdown = false

    func run(in context: CommandContext) throws {
        if markdown {
            context.console.line(Self.markdownTable())
            return
        }
        let environment = ProcessInfo.processInfo.environment
        let config = try ConfigFile.load()
        let settings = config.settings(environment: environment)
        if json {
            try Format.printJSON(Listing(config: config, settings: settings, environment: environment), console: context.console)
        } else {
            context.console.lines(Self.lines(config: config, settings: settings, library: context.folder, environment: environment))
        }
        let problems = settings.compactMap { setting -> String? in
            guard let problem = setting.problem, case .file(let line) = setting.source else { return nil }
            return "\(config.source) line \(line): \(problem)"
        }
        if let first = problems.first {
            throw CommandError.failed(first + (problems.count > 1 ? " (and \(problems.count - 1) more)" : ""))
        }
    }

    /// The listing: `key = value  # source`, unset keys commented out, the environment after them.
    static func lines(config: ConfigFile, settings: [ConfigSetting], library: LibraryFolder,
                      environment: [String: String]) -> [String] {
        let exists = FileManager.default.fileExists(atPath: config.source)
        var lines = ["# \(config.source.safe)\(exists ? "" : " (no such file: every key has its default)")"]
        let assignments = settings.map { setting in
            setting.text.map { "\(setting.key.name) = \($0.safe)" } ?? "# \(setting.key.name) ="
        }
        let width = min(assignments.map(\.count).max() ?? 0, 48)
        for (setting, assignment) in zip(settings, assignments) {
            let source: String
            switch setting.source {
            case .file(let line): source = "line \(line)"
            case .environment(let variable): source = "$\(variable)"
            case .defaultValue:
                if case .unset(let meaning) = setting.key.defaultValue {
                    source = "default: " + (setting.key == .stateFile
                        ? library.url.appendingPathComponent("host.state").path.safe : plain(meaning))
                } else {
                    source = "default"
                }
            }
            let padded = assignment.padding(toLength: max(width, assignment.count), withPad: " ", startingAt: 0)
            lines.append("\(padded)  # \(source)\(setting.problem.map { ": \($0.safe)" } ?? "")")
        }
        lines.append("")
        lines.append("# Environment")
        for variable in ConfigEnvironmentVariable.all {
            let value = environment[variable.name].map { "=\($0.safe)" } ?? " not set"
            lines.append("# \(variable.name)\(value): \(plain(variable.summary))")
        }
        return lines
    }

    /// The README's table of keys, from the declared table.
    static func markdownTable() -> String {
        var rows = ["| key | takes | default | sets | read by |", "|---|---|---|---|---|"]
        for key in ConfigKey.all {
            let defaultText: String
            switch key.defaultValue {
            case .value(let text): defaultText = text.isEmpty ? "(empty)" : "`\(text)`"
            case .environment(let variable, let otherwise): defaultText = "`$\(variable)`, else `\(otherwise)`"
            case .unset(let meaning): defaultText = meaning
            }
            rows.append("| `\(key.name)` | \(key.expectation) | \(defaultText) | \(key.summary) | \(key.reader.rawValue) |")
        }
        return rows.joined(separator: "\n")
    }

    /// Markdown's code marks left out, for the terminal.
    private static func plain(_ text: String) -> String {
        text.replacingOccurrences(of: "`", with: "")
    }

    /// `--json`: the file, each key with its value and source, and the environment variables that are set.
    struct Listing: Encodable {
        struct Key: Encodable {
            let key: String
            let value: String?
            let source: String
            let line: Int?
            let variable: String?
            let problem: String?
        }

        let file: String
        let keys: [Key]
        let environment: [Variable]

        struct Variable: Encodable {
            let name: String
            let value: String
        }

        init(config: ConfigFile, settings: [ConfigSetting], environment: [String: String]) {
            file = config.source
            keys = settings.map { setting in
                switch setting.source {
                case .file(let line):
                    Key(key: setting.key.name, value: setting.text, source: "file", line: line, variable: nil, problem: setting.problem)
                case .environment(let variable):
                    Key(key: setting.key.name, value: setting.text, source: "environment", line: nil, variable: variable, problem: nil)
                case .defaultValue:
                    Key(key: setting.key.name, value: setting.text, source: "default", line: nil, variable: nil, problem: nil)
                }
            }
            self.environment = ConfigEnvironmentVariable.all.compactMap { variable in
                environment[variable.name].map { Variable(name: variable.name, value: $0) }
            }
        }
    }
}
