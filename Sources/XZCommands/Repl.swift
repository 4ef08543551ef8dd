import ArgumentParser
import Foundation
import XZCatalogue
import XZSystem
import XZText
#if canImport(Glibc)
import Glibc
#endif

/// The interactive prompt: each line is parsed by the same command table as the one-shot CLI.
/// A bad line prints one error and the prompt comes back. It runs on the main actor: readline and the
/// commands' SQLite calls block, and the main thread is no thread of the cooperative pool.
enum Repl {
    static let prompt = "xzmusic> "

    @MainActor static func run(options: GlobalOptions) async throws {
        let downloads = BackgroundDownloads()
        let session = CommandContext.open(options, lastListing: [], downloads: downloads)
        let database = try session.database
        // The library's running host plays for this prompt; without one, this prompt becomes the host.
        let player = PromptPlayer(context: session)
        // From here on, whatever the prompt is doing, a terminal that goes, SIGHUP or SIGTERM ends it
        // (see PromptExit); a pipe whose reader has gone fails its write rather than kill the prompt unsaved.
        let leaving = PromptExit(console: session.console) { player.stopForExit() }
        let terminate = SignalWatch([SIGTERM, SIGHUP]) { leaving.leave(status: 128 + $0) }
        defer { terminate.cancel() }
        session.console.onLoss { leaving.leave(status: 128 + SIGHUP) }
        leaving.watchTerminal()
        signal(SIGPIPE, SIG_IGN)
        try await player.start()
        let interactive = isatty(STDIN_FILENO) == 1
        let editor = interactive
            ? LineEditor(prompt: prompt, historyPath: session.folder.historyPath) { text, isCommand in
                completions(for: text, isCommand: isCommand, database: database)
            }
            : nil
        downloads.resumeInterrupted(in: session)
        if interactive {
            // The count only greets: a library that cannot count its songs fails the first command instead.
            let count = (try? database.songCount()) ?? 0
            session.console.line("XZMusic \(XZMusicVersion.string) — \(count) songs in \(session.folder.url.path.safe). "
                + "Type 'help' for commands, 'quit' to leave.")
            if player.isAttached {
                session.console.line("Attached to the running xzmusic host: the music plays on after 'quit'.")
            }
        }
        while true {
            let line: String
            if let editor {
                let input = editor.readLine()
                if input == .lost {
                    leaving.leave(status: 128 + SIGHUP)
                    leaving.waitForExit()
                }
                guard case .line(let text) = input else {
                    // Ctrl-D ends it as 'quit' does.
                    session.console.line()
                    break
                }
                line = text
            } else {
                // A script's end of input (or a read that fails) ends it as 'quit' does.
                guard let text = Swift.readLine(strippingNewline: true) else { break }
                line = text
            }
            // Leaving needs no player.
            if let word = line.split(separator: " ").first, word != "quit", word != "exit" { await player.replaceLostHost() }
            if await execute(line, context: session) == .quit { break }
        }
        await player.close()
        await downloads.shutdown()
    }

    enum Outcome { case `continue`, quit }

    /// Runs one REPL line. Never throws: every failure becomes one line on stderr.
    @MainActor static func execute(_ line: String, context: CommandContext) async -> Outcome {
        let words: [String]
        do {
            words = try CommandLineWords.split(line)
        } catch {
            context.console.error("error: \(error)")
            return .continue
        }
        guard let first = words.first else { return .continue }
        switch first {
        case "quit", "exit":
            return .quit
        case "help", "?":
            if words.count > 1 {
                guard let text = PromptHelp.text(for: Array(words.dropFirst()), columns: context.console.width) else {
                    context.console.error("error: no command '\(words.dropFirst().joined(separator: " ").safe)' (type 'help')")
                    return .continue
                }
                context.console.line(text)
            } else {
                context.console.line(helpText())
            }
            return .continue
        default:
            break
        }
        guard first.hasPrefix("-") || subcommand(named: first) != nil else {
            context.console.error("error: unknown command '\(first.safe)' (type 'help')")
            return .continue
        }
        do {
            var command = try XZMusic.parseAsRoot(CommandLineWords.markingNegativeNumbers(words))
            if command is XZMusic {
                context.console.error("error: unknown command '\(first.safe)' (type 'help')")
                return .continue
            }
            if let command = command as? AsyncLibraryCommand {
                try refuseLibrary(command.global)
                try await command.run(in: context)
            } else if let command = command as? LibraryCommand {
                try refuseLibrary(command.global)
                try command.run(in: context)
            } else if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let error as CommandError {
            context.console.error("error: \(error.description)")
        } catch where CatalogueError.readable(error) is CatalogueError {
            // The catalogue's failures, a database's among them: one line, never the statement.
            context.console.error("error: \("\(CatalogueError.readable(error))".safe)")
        } catch {
            let code = XZMusic.exitCode(for: error)
            let message = XZMusic.message(for: error)
            if code == .success {
                // `CMD --help`: the prompt's help.
                context.console.line(PromptHelp.adapt(message))
            } else if code != .failure || !message.isEmpty {
                let firstLine = message.split(separator: "\n").first.map(String.init) ?? "\(error)"
                context.console.error("error: \(firstLine.safe)")
            }
        }
        return .continue
    }

    /// The prompt's library is the one it opened.
    private static func refuseLibrary(_ options: GlobalOptions) throws {
        guard options.library == nil else { throw CommandError.usage("--library can only be given when xzmusic starts") }
    }

    static func subcommand(named name: String) -> ParsableCommand.Type? {
        XZMusic.configuration.subcommands.first { $0._commandName == name }
    }

    static func helpText() -> String {
        var lines = ["Commands:"]
        for command in XZMusic.configuration.subcommands {
            let name = command._commandName
            lines.append("  " + name.padding(toLength: 12, withPad: " ", startingAt: 0) + command.configuration.abstract)
        }
        lines.append("  " + "help CMD".padding(toLength: 12, withPad: " ", startingAt: 0) + "Details of one command.")
        lines.append("  " + "quit".padding(toLength: 12, withPad: " ", startingAt: 0) + "Leave (Ctrl-D works too).")
        return lines.joined(separator: "\n")
    }

    static func completions(for text: String, isCommand: Bool, database: LibraryDatabase) -> [String] {
        if isCommand {
            let names = XZMusic.configuration.subcommands.map { $0._commandName } + ["help", "quit"]
            return names.filter { $0.hasPrefix(text) }.sorted()
        }
        guard !text.isEmpty else { return [] }
        // Completion is a convenience: a failed lookup offers nothing rather than interrupt the typing.
        let names = (try? database.names(startingWith: text)) ?? []
        return names.map { $0.safe }.map { $0.contains(" ") ? "\"\($0)\"" : $0 }
    }
}
