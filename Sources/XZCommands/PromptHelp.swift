import ArgumentParser

/// Help as the prompt takes its commands: no program name, and neither `--library` nor `--version`,
/// which only a starting program takes.
enum PromptHelp {
    /// The help of the command that `words` name (`play`, `queue remove`); nil when they name none.
    static func text(for words: [String], columns: Int) -> String? {
        guard let first = words.first, var command = Repl.subcommand(named: first) else { return nil }
        for word in words.dropFirst() {
            guard let sub = command.configuration.subcommands.first(where: { $0._commandName == word }) else { return nil }
            command = sub
        }
        return adapt(XZMusic.helpMessage(for: command, columns: columns))
    }

    /// Rewrites the command line's help text for the prompt.
    static func adapt(_ text: String) -> String {
        var lines: [Substring] = []
        var droppingOption = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            // An option's description continues on lines indented past its name.
            if droppingOption, line.hasPrefix("        ") { continue }
            droppingOption = line.hasPrefix("  --library ") || line.hasPrefix("  --version ")
            if droppingOption { continue }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
            .replacingOccurrences(of: " [--library <dir>]", with: "")
            .replacingOccurrences(of: "USAGE: xzmusic ", with: "USAGE: ")
            .replacingOccurrences(of: "'xzmusic help ", with: "'help ")
    }
}
