import ArgumentParser
import Foundation
import XZSystem
import XZCatalogue
import XZDownloader
import XZHostAssembly

/// What a command needs: the library and, inside the REPL, the session's state.
package final class CommandContext: Sendable {
    package let folder: LibraryFolder
    package let console: Console
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
    package var lastListing: [Int64]? {
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
package struct CommandError: KindedError {
    package enum Kind: Hashable, Sendable {
        case usage, noSuchSong, noSuchFile, noSuchPlaylist, playlistExists, noSuchEntry, noSuchDownload
        case emptyQueue, nothingPlaying, noLyrics, notOffline, noHost, lostHost, refusedByHost
        case failed
    }

    package let kind: Kind
    package var message: String

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    /// Words the command cannot take as given: an option, a name, a filter.
    package static let usage = CommandError(kind: .usage, message: "bad usage")
    /// A SONG argument that names no catalogue song.
    package static let noSuchSong = CommandError(kind: .noSuchSong, message: "no such song")
    /// A named file or folder that is missing, unreadable or of the wrong kind.
    package static let noSuchFile = CommandError(kind: .noSuchFile, message: "no such file")
    package static let noSuchPlaylist = CommandError(kind: .noSuchPlaylist, message: "no such playlist")
    package static func noSuchPlaylist(named name: String) -> CommandError {
        CommandError(kind: .noSuchPlaylist, message: "no playlist named \(name.safe) ('playlist list' shows them)")
    }
    package static let playlistExists = CommandError(kind: .playlistExists, message: "playlist exists already")
    package static let noSuchEntry = CommandError(kind: .noSuchEntry, message: "no such entry in the queue")
    package static func noSuchEntry(_ number: Int, count: Int) -> CommandError {
        CommandError(kind: .noSuchEntry, message: "no entry \(number) in the queue (1-\(count))")
    }
    package static let noSuchDownload = CommandError(kind: .noSuchDownload, message: "no such download")
    package static func noSuchDownload(_ id: Int64) -> CommandError {
        CommandError(kind: .noSuchDownload, message: "no download \(id) (see 'downloads')")
    }
    package static let emptyQueue = CommandError(kind: .emptyQueue, message: "the queue is empty: play SONG...")
    /// Nothing plays, or not what the command needs.
    package static let nothingPlaying = CommandError(kind: .nothingPlaying, message: "nothing plays")
    package static let noLyrics = CommandError(kind: .noLyrics, message: "no lyrics")
    /// A song with neither a local file nor what the command needs instead.
    package static let notOffline = CommandError(kind: .notOffline, message: "not offline")
    package static let noHost = CommandError(
        kind: .noHost, message: "no xzmusic host runs for this library: start one with 'xzmusic serve' (or open the prompt)")
    package static let lostHost = CommandError(kind: .lostHost, message: "lost the connection to the host")
    package static func lostHost(_ error: Error) -> CommandError {
        CommandError(kind: .lostHost, message: "lost the connection to the host: \(error)")
    }
    package static let refusedByHost = CommandError(kind: .refusedByHost, message: "the host refused")
    package static func refusedByHost(_ command: String, _ message: String) -> CommandError {
        CommandError(kind: .refusedByHost, message: "the host refused \(command): \(message)")
    }
    /// A lower layer's failure, in its own words.
    package static let failed = CommandError(kind: .failed, message: "failed")
    package static func failed(_ error: Error) -> CommandError { CommandError(kind: .failed, message: "\(CatalogueError.readable(error))") }
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
        if let env = ProcessEnvironment.variables("XZMUSIC_DEMO")["XZMUSIC_DEMO"] {
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
