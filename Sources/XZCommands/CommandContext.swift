import ArgumentParser
import Foundation
import XZSystem
import XZCatalogue
import XZDownloader
import XZHosting

/// What a command needs: the library and, inside the REPL, the session's state.
public final class CommandContext: Sendable {
    public let folder: LibraryFolder
    public let console: Console
    /// Where downloads run: the prompt's background queue, or a one-shot command's own.
    let downloads: DownloadQueue
    private let state: Mutex<State>

    private struct State {
        var opened: LibraryDatabase?
        var lastListing: [Int64]?
        var door: HostDoor?
        var lyricLines: LyricLinesSwitch?
        var hostsHere = false
    }

    init(folder: LibraryFolder, console: Console, lastListing: [Int64]?, downloads: DownloadQueue) {
        self.folder = folder
        self.console = console
        self.downloads = downloads
        state = Mutex(State(lastListing: lastListing))
    }

    /// Song ids of the last numbered listing, so the prompt can take "play 3"; nil where listings are
    /// not remembered (a one-shot command), and a bare number is then a song id.
    public var lastListing: [Int64]? {
        get { state.withLock { $0.lastListing } }
        set { state.withLock { $0.lastListing = newValue } }
    }

    /// The door to the player commands act on, once known: the prompt's own host or a running host.
    var door: HostDoor? {
        get { state.withLock { $0.door } }
        set { state.withLock { $0.door = newValue } }
    }

    /// This prompt is the library's host: other programs reach its player on the library's socket.
    var hostsHere: Bool {
        get { state.withLock { $0.hostsHere } }
        set { state.withLock { $0.hostsHere = newValue } }
    }

    /// Whether lyric lines print above the prompt.
    var lyricLines: LyricLinesSwitch? {
        get { state.withLock { $0.lyricLines } }
        set { state.withLock { $0.lyricLines = newValue } }
    }

    /// The library's database, created (with the demo) when new; opened on first use, so a command
    /// that only talks to the host never pays for it.
    var database: LibraryDatabase {
        get throws {
            try state.withLock { state in
                if let opened = state.opened { return opened }
                let database = try folder.open(seedingDemoFrom: DemoResources.locate())
                state.opened = database
                return database
            }
        }
    }

    /// A one-shot command's context by default; the prompt makes one with its listings and background
    /// downloads, and hands it to every command it runs.
    static func open(_ options: GlobalOptions, lastListing: [Int64]? = nil,
                     downloads: DownloadQueue = CommandDownloads(console: .shared)) -> CommandContext {
        CommandContext(folder: LibraryFolder.resolve(explicit: options.library), console: .shared,
                       lastListing: lastListing, downloads: downloads)
    }
}

/// A command that works on the library: one-shot, it opens the library itself; the prompt runs it
/// in the prompt's context.
protocol LibraryCommand: ParsableCommand {
    var global: GlobalOptions { get }
    func run(in context: CommandContext) throws
}

extension LibraryCommand {
    func run() throws {
        try run(in: CommandContext.open(global))
    }
}

/// A library command that awaits async work (downloads, a player's shutdown). Like every command it
/// runs on the main actor: the main thread is no thread of the cooperative pool, so its SQLite and
/// other blocking calls never hold one up.
protocol AsyncLibraryCommand: AsyncParsableCommand {
    var global: GlobalOptions { get }
    @MainActor func run(in context: CommandContext) async throws
}

extension AsyncLibraryCommand {
    @MainActor func run() async throws {
        try await run(in: CommandContext.open(global))
    }
}

/// Lyric lines above the prompt, on or off (`lyrics on|off`); flipped by a command, read by the
/// threads that print the lines.
protocol LyricLinesSwitch: AnyObject, Sendable {
    var showsLyrics: Bool { get set }
}

/// A failure to report as one line, exit status 1. Its kind can be matched: `catch CommandError.emptyQueue`.
public struct CommandError: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case usage, noSuchSong, noSuchFile, noSuchPlaylist, playlistExists, noSuchEntry, noSuchDownload
        case emptyQueue, nothingPlaying, noLyrics, notOffline, noHost, lostHost, refusedByHost
        case failed
    }

    private let code: Code
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// Words the command cannot take as given: an option, a name, a filter.
    public static func usage(_ message: String) -> CommandError { CommandError(.usage, message) }
    /// A SONG argument that names no catalogue song.
    public static func noSuchSong(_ message: String) -> CommandError { CommandError(.noSuchSong, message) }
    /// A named file or folder that is missing, unreadable or of the wrong kind.
    public static func noSuchFile(_ message: String) -> CommandError { CommandError(.noSuchFile, message) }
    public static let noSuchPlaylist = CommandError(.noSuchPlaylist, "no such playlist")
    public static func noSuchPlaylist(named name: String) -> CommandError {
        CommandError(.noSuchPlaylist, "no playlist named \(name.safe) ('playlist list' shows them)")
    }
    public static let playlistExists = CommandError(.playlistExists, "playlist exists already")
    public static func playlistExists(_ message: String) -> CommandError { CommandError(.playlistExists, message) }
    public static func noSuchEntry(_ number: Int, count: Int) -> CommandError {
        CommandError(.noSuchEntry, "no entry \(number) in the queue (1-\(count))")
    }
    public static func noSuchDownload(_ id: Int64) -> CommandError {
        CommandError(.noSuchDownload, "no download \(id) (see 'downloads')")
    }
    public static let emptyQueue = CommandError(.emptyQueue, "the queue is empty: play SONG...")
    public static func emptyQueue(_ message: String) -> CommandError { CommandError(.emptyQueue, message) }
    /// Nothing plays, or not what the command needs.
    public static func nothingPlaying(_ message: String) -> CommandError { CommandError(.nothingPlaying, message) }
    public static func noLyrics(_ message: String) -> CommandError { CommandError(.noLyrics, message) }
    /// A song with neither a local file nor what the command needs instead.
    public static func notOffline(_ message: String) -> CommandError { CommandError(.notOffline, message) }
    public static let noHost = CommandError(
        .noHost, "no xzmusic host runs for this library: start one with 'xzmusic serve' (or open the prompt)")
    public static func lostHost(_ error: Error) -> CommandError {
        CommandError(.lostHost, "lost the connection to the host: \(error)")
    }
    public static func refusedByHost(_ command: String, _ message: String) -> CommandError {
        CommandError(.refusedByHost, "the host refused \(command): \(message)")
    }
    /// A lower layer's failure, in its own words.
    public static func failed(_ error: Error) -> CommandError { CommandError(.failed, "\(CatalogueError.readable(error))") }
    public static func failed(_ message: String) -> CommandError { CommandError(.failed, message) }

    /// Matches an error of the pattern's kind, whatever its words.
    public static func ~= (pattern: CommandError, error: any Error) -> Bool {
        (error as? CommandError)?.code == pattern.code
    }
}

/// Finds the shipped demo library: `$XZMUSIC_DEMO`, `<prefix>/share/xzmusic/demo` beside an installed
/// binary, or `Resources/demo` above a binary built in the source tree.
enum DemoResources {
    static func locate() -> URL? {
        let manager = FileManager.default
        func valid(_ url: URL) -> URL? {
            manager.fileExists(atPath: url.appendingPathComponent("catalogue.jsonl").path) ? url : nil
        }
        // Set but empty means "no demo", for a library that should start out empty.
        if let env = ProcessInfo.processInfo.environment["XZMUSIC_DEMO"] {
            return env.isEmpty ? nil : valid(URL(fileURLWithPath: env))
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        var dir = executable.deletingLastPathComponent()
        if let installed = valid(dir.appendingPathComponent("../share/xzmusic/demo").standardizedFileURL) {
            return installed
        }
        for _ in 0..<6 {
            if let found = valid(dir.appendingPathComponent("Resources/demo")) { return found }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }
}
