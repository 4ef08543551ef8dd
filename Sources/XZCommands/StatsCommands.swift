import ArgumentParser
import Foundation
import XZCatalogue
import XZProtocol
import XZStats
import XZHostCore

extension CommandContext {
    var stats: StatsStore {
        get throws { StatsStore(database: try database) }
    }

    /// SONG arguments, or the host's playing song when there are none.
    func songKeyAndTitle(_ words: [String]) throws -> (key: String, title: String) {
        if words.isEmpty {
            guard let item = try withPlayer({ try currentItem($0) }) else {
                throw CommandError.nothingPlaying("name a song, or play one first")
            }
            return (item.songKey ?? "file:\(item.path)", item.title)
        }
        let song = try SongReference(words.joined(separator: " "), listing: lastListing).resolve(in: self)
        return (song.songKey, song.title)
    }
}

struct Like: LibraryCommand {
    static let configuration = CommandConfiguration(commandName: "like", abstract: "Like a song (the playing one when none is named).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A song.", valueName: "song")) var song: [String] = []

    func run(in context: CommandContext) throws {
        let (key, title) = try context.songKeyAndTitle(song)
        let changed = try context.stats.like(songKey: key)
        context.console.line(changed ? "♥ liked \(title.safe)" : "\(title.safe) was already liked")
    }
}

struct Unlike: LibraryCommand {
    static let configuration = CommandConfiguration(commandName: "unlike", abstract: "Unlike a song (the playing one when none is named).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A song.", valueName: "song")) var song: [String] = []

    func run(in context: CommandContext) throws {
        let (key, title) = try context.songKeyAndTitle(song)
        let changed = try context.stats.unlike(songKey: key)
        context.console.line(changed ? "unliked \(title.safe)" : "\(title.safe) was not liked")
    }
}

struct Liked: LibraryCommand {
    static let configuration = CommandConfiguration(commandName: "liked", abstract: "Liked songs, newest first.")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false
    @Option(help: ArgumentHelp("Another user's likes (default: the owner's).", valueName: "name")) var user: String?

    func run(in context: CommandContext) throws {
        let songs = try context.stats(forUser: user).liked()
        context.lastListing = songs.compactMap(\.songId)
        if json {
            try Format.printJSON(songs, console: context.console)
        } else if songs.isEmpty {
            context.console.line("No liked songs yet: 'like SONG'.")
        } else {
            context.console.lines(StatsText.liked(songs))
        }
    }
}

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Listening statistics; 'stats export' writes every session and like.",
        subcommands: [StatsShow.self, StatsExport.self], defaultSubcommand: StatsShow.self)
}

struct StatsShow: LibraryCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Plays, top songs and singers, a 14-day chart.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "7d, 30d or a date like 2026-11-01.") var since: String?
    @Flag(help: "Print JSON.") var json = false
    @Option(help: ArgumentHelp("Another user's statistics (default: the owner's).", valueName: "name")) var user: String?

    func validate() throws {
        if let since { do { _ = try StatsStore.parseSince(since) } catch { throw ValidationError("\(error)") } }
    }

    func run(in context: CommandContext) throws {
        let summary = try context.stats(forUser: user).summary(since: try since.map { try StatsStore.parseSince($0) })
        if json {
            try Format.printJSON(summary, console: context.console)
        } else {
            context.console.lines(StatsText.summary(summary, sinceLabel: since))
        }
    }
}

struct StatsExport: LibraryCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Write every session and like to FILE.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "csv or json.") var format: String
    @Argument(help: "Where to write; - for standard output.") var file: String
    @Option(help: ArgumentHelp("Another user's sessions and likes (default: the owner's).", valueName: "name")) var user: String?

    func validate() throws {
        if StatsArchive.Format(rawValue: format) == nil { throw ValidationError("--format must be csv or json") }
    }

    func run(in context: CommandContext) throws {
        guard let format = StatsArchive.Format(rawValue: format) else { return }
        let stats = try context.stats(forUser: user)
        if file == "-" {
            FileHandle.standardOutput.write(try stats.exportData(format: format))
            return
        }
        let url = URL(fileURLWithPath: LibraryFolder.expandTilde(file))
        try stats.export(format: format, to: url)
        context.console.line("wrote \(url.path.safe)")
    }
}

struct History: LibraryCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "The last N listening sessions (default 20).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "How many.") var count = 20
    @Flag(help: "Print JSON.") var json = false
    @Option(help: ArgumentHelp("Another user's sessions (default: the owner's).", valueName: "name")) var user: String?

    func validate() throws {
        if count < 1 || count > 100_000 { throw ValidationError("N must be between 1 and 100000") }
    }

    func run(in context: CommandContext) throws {
        let sessions = try context.stats(forUser: user).history(limit: count)
        if json {
            try Format.printJSON(sessions, console: context.console)
        } else if sessions.isEmpty {
            context.console.line("Nothing played yet.")
        } else {
            context.console.lines(StatsText.history(sessions))
        }
    }
}
