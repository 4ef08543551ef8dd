import ArgumentParser
import Foundation
import XZCatalogue
import XZDownloader

/// What a command needs: the library and, inside the REPL, the session's state.
public final class CommandContext: @unchecked Sendable {
    public let folder: LibraryFolder
    public let console: Console
    /// Opened on first use, so a command that only talks to the host never pays for it.
    private var opened: LibraryDatabase?
    /// Song ids of the last numbered listing, so the prompt can take "play 3"; nil where listings are
    /// not remembered (a one-shot command), and a bare number is then a song id.
    public var lastListing: [Int64]?
    /// The player commands act on, once known: the prompt's own host or a running host.
    var player: PlayerControl?
    /// Whether lyric lines print above the prompt.
    var lyricLines: LyricLinesSwitch?
    /// Where downloads run: the prompt's background queue, or a one-shot command's own.
    let downloads: DownloadQueue

    init(folder: LibraryFolder, console: Console, lastListing: [Int64]?, downloads: DownloadQueue) {
        self.folder = folder
        self.console = console
        self.lastListing = lastListing
        self.downloads = downloads
    }

    /// The library's database, created (with the demo) when new.
    var database: LibraryDatabase {
        get throws {
            if let opened { return opened }
            let database = try folder.open(seedingDemoFrom: DemoResources.locate())
            opened = database
            return database
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

/// Lyric lines above the prompt, on or off (`lyrics on|off`).
protocol LyricLinesSwitch: AnyObject {
    var showsLyrics: Bool { get set }
}

/// A failure to report as one line, exit status 1.
public struct CommandError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
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
