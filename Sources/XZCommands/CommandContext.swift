import Foundation
import XZCatalogue
import XZDownloader

/// What a command needs: the open library and, inside the REPL, the session's state.
public final class CommandContext: @unchecked Sendable {
    public let folder: LibraryFolder
    public let database: LibraryDatabase
    public let console: Console
    public let isInteractive: Bool
    /// Song ids of the last numbered listing, so the REPL can take "play 3".
    public var lastListing: [Int64] = []
    /// The REPL's player, once something was played.
    var playback: PlaybackSession?
    /// The REPL's download queue, once used.
    var downloads: DownloadManager?
    /// Records play sessions of the player in use.
    private var recording: StatsRecording?

    func startRecording(_ session: PlaybackSession) {
        let recording = StatsRecording(database: database, console: console)
        recording.attach(to: session)
        self.recording = recording
    }

    /// Ends playback: the open play session is saved as "quit".
    func closePlayback(_ session: PlaybackSession) {
        if let recording { recording.finish(closing: session) } else { session.close() }
    }

    init(folder: LibraryFolder, database: LibraryDatabase, console: Console, isInteractive: Bool) {
        self.folder = folder
        self.database = database
        self.console = console
        self.isInteractive = isInteractive
    }

    /// The REPL's context while it runs; one-shot commands open their own.
    nonisolated(unsafe) static var session: CommandContext?

    static func open(_ options: GlobalOptions) throws -> CommandContext {
        if let session = session {
            if options.library != nil {
                throw CommandError("--library can only be given when xzmusic starts")
            }
            return session
        }
        let folder = LibraryFolder.resolve(explicit: options.library)
        let database = try folder.open(seedingDemoFrom: DemoResources.locate())
        return CommandContext(folder: folder, database: database, console: .shared, isInteractive: false)
    }
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
