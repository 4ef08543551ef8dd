import ArgumentParser
import Foundation
import XZSystem
import XZCatalogue
import XZDownloader
import XZStats
import XZText

/// Settings from the config file, then flags.
struct DownloadOptions: ParsableArguments {
    @Option(help: "Downloads at once (default 3).") var concurrency: Int?
    @Option(help: "Retries per download (default 5).") var retries: Int?
    @Option(help: "Seconds without data before a try is abandoned (default 30).") var timeout: Double?
    @Option(help: "An LRCLIB-compatible lyrics server (default https://lrclib.net).") var lyricsServer: String?

    func validate() throws {
        if let concurrency, !(1...32).contains(concurrency) { throw ValidationError("--concurrency must be 1 to 32") }
        if let retries, !(0...100).contains(retries) { throw ValidationError("--retries must be 0 to 100") }
        if let timeout, !(timeout > 0 && timeout <= 3600) { throw ValidationError("--timeout must be 1 to 3600 seconds") }
        if let lyricsServer, URL(string: lyricsServer)?.scheme.map({ ["http", "https"].contains($0) }) != true {
            throw ValidationError("--lyrics-server must be an http or https URL")
        }
    }

    func settings() throws -> DownloadSettings {
        var settings: DownloadSettings
        do { settings = try DownloadSettings.load() } catch { throw CommandError.failed(error) }
        if let concurrency { settings.concurrency = concurrency }
        if let retries { settings.retries = retries }
        if let timeout { settings.idleTimeout = timeout }
        if let lyricsServer { settings.lyricsServer = lyricsServer }
        return settings
    }
}

/// Where download commands' tasks run. The prompt keeps one queue working in the background for the
/// whole session; a one-shot command has its own, runs it only with --wait, and stops it when it ends.
protocol DownloadQueue: AnyObject, Sendable {
    /// The manager to queue on for `context`'s library; `settings` nil reads the config file.
    func manager(in context: CommandContext, _ settings: DownloadSettings?) throws -> DownloadManager
    /// Lets the queued tasks run after a command queued or resumed some.
    @MainActor func start(_ manager: DownloadManager, progress: Download.Progress) async throws
    /// Called when the command is done with the manager.
    func release(_ manager: DownloadManager) async
    /// The manager a host this process starts is to use: the queue's, once it has made one, so the player
    /// and the queue never both write a song's download. Nil: the host makes its own and `share`s it.
    var managerForHost: DownloadManager? { get }
    /// Makes the manager of the host this process runs the queue's.
    func share(_ hostManager: DownloadManager, in context: CommandContext)
}

extension DownloadQueue {
    /// Runs `body` with the manager for `context`'s library, and releases it however `body` ends.
    @MainActor func using<T>(_ context: CommandContext, _ settings: DownloadSettings?,
                             _ body: (DownloadManager) async throws -> T) async throws -> T {
        let manager = try manager(in: context, settings)
        let result: T
        do {
            result = try await body(manager)
        } catch {
            await release(manager)
            throw error
        }
        await release(manager)
        return result
    }
}

private func loadSettings(_ settings: DownloadSettings?) throws -> DownloadSettings {
    do { return try settings ?? DownloadSettings.load() } catch { throw CommandError.failed(error) }
}

/// The prompt's queue: the manager of the prompt's host, else one made on first use; announcing progress
/// above the prompt.
final class BackgroundDownloads: DownloadQueue {
    private let current = Mutex<DownloadManager?>(nil)

    var managerForHost: DownloadManager? { current.withLock { $0 } }

    func share(_ hostManager: DownloadManager, in context: CommandContext) {
        current.withLock { current in
            // A host started with the queue's manager has nothing to hand over.
            guard current == nil else { return }
            current = hostManager
            Self.announceEvents(of: hostManager, on: context.console)
        }
    }

    func manager(in context: CommandContext, _ settings: DownloadSettings?) throws -> DownloadManager {
        try current.withLock { current in
            if let current { return current }
            let manager = DownloadManager(database: try context.database, library: context.folder,
                                          settings: try loadSettings(settings))
            current = manager
            Self.announceEvents(of: manager, on: context.console)
            return manager
        }
    }

    private static func announceEvents(of manager: DownloadManager, on console: Console) {
        let throttle = ProgressThrottle(interval: 3)
        Task.detached {
            for await event in manager.events {
                switch event {
                case .progress(let info):
                    if throttle.ready() { console.announce("⇣ " + DownloadText.progress(info)) }
                case .finished(let info):
                    console.announce(DownloadText.finished(info))
                case .failed(let info):
                    console.announce("✗ \(info.kind.rawValue) of \(info.title.safe) failed: \((info.lastError ?? "").safe)")
                }
            }
        }
    }

    func start(_ manager: DownloadManager, progress: Download.Progress) {
        Task.detached { await manager.run() }
    }

    func release(_ manager: DownloadManager) {}

    /// Songs that were downloading when the program last stopped carry on in the background.
    func resumeInterrupted(in context: CommandContext) {
        // A library or config file that cannot be opened here fails again, and says so, at the first download command.
        guard let manager = try? manager(in: context, nil) else { return }
        let console = context.console
        Task.detached {
            // The same goes for a queue that cannot be read: nothing to resume now, the next command reports it.
            if let count = try? await manager.resumeInterrupted(), count > 0 {
                console.announce("resuming \(count) interrupted download\(count == 1 ? "" : "s")")
                await manager.run()
            }
        }
    }

    /// Running tasks stop and stay queued with their .part.
    func shutdown() async {
        if let manager = current.withLock({ $0 }) { await manager.shutdown() }
    }
}

/// A one-shot command's queue: with --wait it runs here with progress until every task is done.
final class CommandDownloads: DownloadQueue {
    private let console: Console

    init(console: Console) {
        self.console = console
    }

    func manager(in context: CommandContext, _ settings: DownloadSettings?) throws -> DownloadManager {
        DownloadManager(database: try context.database, library: context.folder, settings: try loadSettings(settings))
    }

    func release(_ manager: DownloadManager) async {
        await manager.shutdown()
    }

    /// A one-shot command that hosts (`serve`, `play --output`) queues no downloads: its host keeps its own.
    var managerForHost: DownloadManager? { nil }
    func share(_ hostManager: DownloadManager, in context: CommandContext) {}

    @MainActor func start(_ manager: DownloadManager, progress: Download.Progress) async throws {
        guard progress.wait else {
            console.line("run 'xzmusic download resume all --wait', or start xzmusic, to fetch them")
            return
        }
        let console = self.console
        let json = progress.json
        // Ctrl-C, SIGTERM or a closed terminal: running tasks stop and stay queued with their .part.
        let interrupted = InterruptFlag()
        let signals = SignalWatch([SIGINT, SIGTERM, SIGHUP]) { number in
            interrupted.set(number)
            Task { await manager.shutdown() }
        }
        defer { signals.cancel() }
        // Only this run's failures decide the exit status, not those an earlier run left in the list.
        let failures = await manager.runUntilIdle { event in
            if json {
                console.line(DownloadJSON.event(event))
                return
            }
            switch event {
            case .progress(let info): console.status(DownloadText.progress(info))
            case .finished(let info):
                console.clearStatus()
                console.line(DownloadText.finished(info))
            case .failed(let info):
                console.clearStatus()
                console.error("✗ \(info.kind.rawValue) of \(info.title.safe): \((info.lastError ?? "").safe)")
            }
        }
        console.clearStatus()
        if let number = interrupted.signal { throw ExitCode(128 + number) }
        if failures > 0 { throw ExitCode.failure }
    }
}

/// Lets a line through at most once per interval.
final class ProgressThrottle: Sendable {
    private let interval: TimeInterval
    private let last = Mutex(Date.distantPast)

    init(interval: TimeInterval) { self.interval = interval }

    func ready() -> Bool {
        last.withLock { last in
            guard Date().timeIntervalSince(last) >= interval else { return false }
            last = Date()
            return true
        }
    }
}

enum DownloadText {
    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KB", "MB", "GB"]
        var value = Double(n), unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(n) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// A finished task: ✓, or – and the reason when it ended without a file ("no lyrics found").
    static func finished(_ info: DownloadTaskInfo) -> String {
        let what = "\(info.kind.rawValue): \(info.title.safe) — \(info.singer.safe)"
        if info.path == nil, let note = info.note, !note.isEmpty { return "– \(what): \(note.safe)" }
        return "✓ \(what)"
    }

    static func progress(_ info: DownloadTaskInfo) -> String {
        var parts = ["\(info.title.safe) (\(info.kind.rawValue))"]
        if let total = info.bytesTotal, total > 0 {
            parts.append("\(Int(Double(info.bytesDone) / Double(total) * 100))% of \(bytes(total))")
        } else {
            parts.append(bytes(info.bytesDone))
        }
        if let rate = info.bytesPerSecond, rate > 0 { parts.append("\(bytes(Int64(rate)))/s") }
        if let eta = info.etaSeconds, eta.isFinite { parts.append("ETA \(DurationText.clock(ms: Int(eta * 1000)))") }
        return parts.joined(separator: "  ")
    }
}

/// Names a download subcommand that stops tasks.
protocol StopAction {
    static var action: DownloadAction { get }
    static var abstract: String { get }
}

extension DownloadTarget: ExpressibleByArgument {
    /// A task id from `downloads`, or `all`.
    package init?(argument: String) {
        if argument == "all" {
            self = .all
        } else if let id = Int64(argument), id > 0 {
            self = .task(id)
        } else {
            return nil
        }
    }
}

struct Download: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download songs and lyrics for offline use; 'download pause|resume|cancel ID|all'.",
        discussion: "Inside the prompt downloads run in the background. One-shot, --wait shows progress and "
            + "exits when the queue is done (0 if all succeeded). Settings come from "
            + "$XDG_CONFIG_HOME/xzmusic/config (concurrency, retries, timeout, lyrics_server); flags win.",
        subcommands: [Songs.self, Stop<PauseAction>.self, Resume.self, Stop<CancelAction>.self],
        defaultSubcommand: Songs.self)

    /// How the queue runs once changed: --wait and --json.
    struct Progress: ParsableArguments {
        @Flag(help: "Wait until the queue is done (one-shot).") var wait = false
        @Flag(help: "Print progress and completion events as JSON lines.") var json = false
    }

    struct Songs: AsyncLibraryCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Queue songs for download.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var options: DownloadOptions
        @OptionGroup var progress: Progress
        @Argument(help: ArgumentHelp("Songs to download.", valueName: "song")) var songs: [String] = []
        @Flag(help: "Every liked song not yet offline.") var allLiked = false

        func validate() throws {
            if songs.isEmpty && !allLiked { throw ValidationError("name songs to download, or use --all-liked") }
        }

        @MainActor func run(in context: CommandContext) async throws {
            try await context.downloads.using(context, try options.settings()) { manager in
                var targets = try songs.map { try SongReference($0, listing: context.lastListing).resolve(in: context) }
                if allLiked { targets += try context.stats.likedSongsNotOffline() }
                let result = try await manager.enqueue(songs: targets)
                // The result names songs by key.
                let titles = Dictionary(targets.map { ($0.songKey, "\($0.title) — \($0.singer)") }, uniquingKeysWith: { a, _ in a })
                for key in result.skipped { context.console.line("already offline: \((titles[key] ?? key).safe)") }
                for key in result.noSource { context.console.error("no audio URL to download from: \((titles[key] ?? key).safe)") }
                context.console.line("queued \(result.queued.count) download\(result.queued.count == 1 ? "" : "s")")
                try await context.downloads.start(manager, progress: progress)
                if !result.noSource.isEmpty { throw ExitCode.failure }
            }
        }
    }

    /// pause and cancel: one task or all, no waiting.
    struct Stop<Action: StopAction>: AsyncLibraryCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: Action.action.rawValue, abstract: Action.abstract)
        }
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("A task id from 'downloads', or all.", valueName: "id")) var target: DownloadTarget

        @MainActor func run(in context: CommandContext) async throws {
            try await Download.act(Action.action, on: target, context: context, settings: nil, progress: nil)
        }
    }

    enum PauseAction: StopAction {
        static let action = DownloadAction.pause
        static let abstract = "Pause a download (its .part is kept)."
    }

    enum CancelAction: StopAction {
        static let action = DownloadAction.cancel
        static let abstract = "Cancel a download and delete its .part."
    }

    struct Resume: AsyncLibraryCommand {
        static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume a download, and any an earlier run left.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var options: DownloadOptions
        @OptionGroup var progress: Progress
        @Argument(help: ArgumentHelp("A task id from 'downloads', or all.", valueName: "id")) var target: DownloadTarget

        @MainActor func run(in context: CommandContext) async throws {
            try await Download.act(.resume, on: target, context: context, settings: try options.settings(),
                                   progress: progress)
        }
    }

    @MainActor static func act(_ action: DownloadAction, on target: DownloadTarget, context: CommandContext,
                               settings: DownloadSettings?, progress: Progress?) async throws {
        try await context.downloads.using(context, settings) { manager in
            guard let count = try await manager.apply(action, to: target) else {
                if case .task(let id) = target { throw CommandError.noSuchDownload(id) }
                return
            }
            context.console.line("\(action.rawValue): \(count) task\(count == 1 ? "" : "s")")
            if let progress { try await context.downloads.start(manager, progress: progress) }
        }
    }
}

enum DownloadJSON {
    static func event(_ event: DownloadEvent) -> String {
        let (name, info): (String, DownloadTaskInfo)
        switch event {
        case .progress(let i): (name, info) = ("progress", i)
        case .finished(let i): (name, info) = ("finished", i)
        case .failed(let i): (name, info) = ("failed", i)
        }
        struct Line: Encodable { let event: String; let task: DownloadTaskInfo }
        // Strings and numbers always encode; "{}" only keeps one line per event should that ever change.
        return (try? Format.json(Line(event: name, task: info))) ?? "{}"
    }
}

struct Downloads: AsyncLibraryCommand {
    static let configuration = CommandConfiguration(commandName: "downloads", abstract: "List download tasks: state, bytes, rate, ETA, last error.")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    @MainActor func run(in context: CommandContext) async throws {
        let tasks = try await context.downloads.using(context, nil) { try await $0.tasks() }
        if json {
            try Format.printJSON(tasks, console: context.console)
            return
        }
        if tasks.isEmpty { context.console.line("No downloads.") }
        for task in tasks {
            var line = DisplayWidth.fit("\(task.id)", to: 4, alignRight: true) + "  "
                + DisplayWidth.fit(task.state.rawValue, to: 9) + "  " + DownloadText.progress(task)
            if let error = task.lastError, !error.isEmpty { line += "  — \(error.safe)" }
            context.console.line(line)
        }
    }
}
