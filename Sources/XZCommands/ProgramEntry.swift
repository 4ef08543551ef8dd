import ArgumentParser
import Foundation
import XZCatalogue
import XZHostAssembly
import XZSystem
import XZText

/// The whole program: parse the arguments, run the command, map failures to exit codes
/// (0 success, 1 failure, 64 usage error). On the main actor, as every command runs: their blocking
/// calls (SQLite, readline) must not hold a thread of the cooperative pool.
package enum Main {
    @MainActor package static func run(_ arguments: [String]) async -> Int32 {
        // Lines of the config file that set nothing are told once, as the program starts (as MPD does);
        // a file that cannot be read is the error of the first command that needs it.
        let config = try? ConfigFile.load()
        for warning in (config?.warnings ?? []) + (config.map(AudioOutputTypes.warnings(of:)) ?? []) {
            Console.shared.error("xzmusic: warning: \(warning)")
        }
        do {
            var command = try XZMusic.parseAsRoot(CommandLineWords.markingNegativeNumbers(arguments))
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            return 0
        } catch let error as CommandError {
            Console.shared.error("xzmusic: \(error.description)")
            return 1
        } catch where CatalogueError.readable(error) is CatalogueError {
            // A database failure: one line, never the statement.
            Console.shared.error("xzmusic: \("\(CatalogueError.readable(error))".safe)")
            return 1
        } catch {
            let code = XZMusic.exitCode(for: error)
            let message = XZMusic.message(for: error)
            if code == .success {
                if !message.isEmpty { Console.shared.line(message) }
            } else if !message.isEmpty {
                Console.shared.error("xzmusic: \(message)")
            }
            return code.rawValue
        }
    }
}
