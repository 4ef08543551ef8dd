import ArgumentParser
import Foundation
import XZCatalogue
import XZText

struct Check: LibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the library database for damage.",
        discussion: "Runs SQLite's full integrity check over library.sqlite and says in one line whether it is sound; "
            + "a damaged one comes with how to rebuild or recover it. 'serve' runs a quicker check when it starts.")
    @OptionGroup var global: GlobalOptions

    func run(in context: CommandContext) throws {
        let path = context.folder.databasePath
        guard FileManager.default.fileExists(atPath: path) else {
            context.console.line("no library database at \(path.safe) yet: nothing to check")
            return
        }
        // Opening checks the header and the schema: a file that fails there throws its own one line.
        let database = try context.database
        if let problems = try database.problems(full: true, limit: 3) {
            throw CommandError.failed("library database \(path) is damaged (\(problems)): \(LibraryDatabase.repairHint(path))")
        }
        context.console.line("library database \(path.safe) is sound (integrity check ok)")
    }

    /// SQLite's quick check in the background, on a thread of its own (a large library takes seconds):
    /// a damaged file is told in one line while the host serves what it can still read.
    static func warnIfDamaged(_ database: LibraryDatabase, console: Console) {
        Thread.detachNewThread {
            do {
                if let problems = try database.problems(full: false, limit: 3) {
                    console.error("xzmusic: warning: library database \(database.path) is damaged (\(problems)): "
                        + "'xzmusic check' tells more; \(LibraryDatabase.repairHint(database.path))")
                }
            } catch {
                console.error("xzmusic: warning: \(CatalogueError.readable(error))")
            }
        }
    }
}
