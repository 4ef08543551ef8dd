import ArgumentParser
import Foundation
import XZCatalogue
import XZDownloader
import XZHostCore
import XZSystem
import XZText

/// `lyrics fetch`: lyrics for library songs from an LRCLIB-compatible server, kept in the library.
struct FetchLyrics: AsyncLibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch lyrics for songs (or --all / --missing local songs) into the library.",
        discussion: "Asks the lyrics server (lyrics_server, default https://lrclib.net) for each song that has no "
            + "synced lyrics of its own (.lrc beside it or in its tags) and no kept answer. --all: every local "
            + "song without synced lyrics; --missing: only those without any lyrics. Answers are kept in the "
            + "library; a song found nowhere is asked again after lyrics_miss_days (30). lyrics_sidecar = yes "
            + "also writes synced lyrics as .lrc beside the song. An interrupted run continues where it stopped.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Songs to fetch lyrics for.", valueName: "song")) var songs: [String] = []
    @Flag(help: "Every local song without synced lyrics.") var all = false
    @Flag(help: "Every local song without any lyrics.") var missing = false
    @Flag(help: "Print one JSON event per song.") var json = false
    @Option(help: "Lookups at once (default 2).") var concurrency: Int?
    @Option(help: "An LRCLIB-compatible lyrics server (default https://lrclib.net).") var lyricsServer: String?

    func validate() throws {
        let ways = (songs.isEmpty ? 0 : 1) + (all ? 1 : 0) + (missing ? 1 : 0)
        if ways != 1 { throw ValidationError("name songs, or use one of --all and --missing") }
        if let concurrency, !(1...8).contains(concurrency) { throw ValidationError("--concurrency must be 1 to 8") }
        if let lyricsServer, URL(string: lyricsServer)?.scheme.map({ ["http", "https"].contains($0) }) != true {
            throw ValidationError("--lyrics-server must be an http or https URL")
        }
    }

    @MainActor func run(in context: CommandContext) async throws {
        var settings: DownloadSettings
        do { settings = try DownloadSettings.load() } catch { throw CommandError.failed(error) }
        if let concurrency { settings.lyricsConcurrency = concurrency }
        if let lyricsServer { settings.lyricsServer = lyricsServer }
        let database = try context.database
        let targets = songs.isEmpty
            ? nil
            : try songs.map { try SongReference($0, listing: context.lastListing).resolve(in: context) }
        let fetch = try LyricsFetchRun(songs: targets, database: database, settings: settings, missingOnly: missing,
                                       ownLyrics: { SongLyrics.kind(for: $0, fetched: nil) })
        var report = LyricsFetchReport(console: context.console, json: json)
        for (song, reason) in fetch.skipped { try report.skipped(song, reason: reason) }
        if !json, context.downloads is BackgroundDownloads {
            // Inside the prompt the lookups go on in the background, with progress lines above the prompt.
            context.console.line("fetching lyrics for \(fetch.pending.count) song\(fetch.pending.count == 1 ? "" : "s") in the background"
                + (report.counts.skipped > 0 ? " (\(report.counts.skipped) skipped)" : ""))
            report.announcing = true
            report.startLookups(fetch.pending.count)
            let shared = Mutex(report)
            fetch.runInBackground(report: { event in shared.withLock { try? $0.tell(event) } },
                                  finished: { shared.withLock { $0.finish() } })
            return
        }
        report.startLookups(fetch.pending.count)
        let counts = try await fetch.run { try report.tell($0) }
        report.finish()
        if counts.failed > 0 { throw ExitCode.failure }
    }
}

/// The output of one run: a JSON event per song, or a progress line with counts and ETA and each kind of
/// failure told once.
struct LyricsFetchReport {
    struct Event: Encodable {
        let id: Int64
        let title: String
        let singer: String
        /// synced, plain, instrumental, not_found, failed or skipped.
        let result: String
        /// get or search, for answers.
        let via: String?
        let reason: String?
    }

    let console: Console
    let json: Bool
    private(set) var counts = LyricsFetchCounts()
    private var lookups = 0
    private var looked = 0
    private var started = Date()
    private var told: Set<DownloadError> = []
    /// Lines above the prompt (a background run) rather than a redrawn status line.
    var announcing = false
    private let throttle = ProgressThrottle(interval: 3)

    init(console: Console, json: Bool) {
        self.console = console
        self.json = json
    }

    mutating func skipped(_ song: Song, reason: String) throws {
        counts.skipped += 1
        if json { try emit(Event(id: song.id, title: song.title, singer: song.singer, result: "skipped", via: nil, reason: reason)) }
    }

    mutating func startLookups(_ count: Int) {
        lookups = count
        started = Date()
        showProgress()
    }

    /// Renders one event of the run.
    mutating func tell(_ event: LyricsFetchRun.Event) throws {
        switch event {
        case .sidecarNotWritten(let song, let error):
            tell("lyrics: cannot write lyrics beside \(song.title.safe): \("\(error)".safe)")
        case .answered(let song, let result):
            try finished(song, result)
        case .notKept(let song, let error):
            console.announce("lyrics: cannot keep the lyrics of \(song.title.safe): \("\(CatalogueError.readable(error))".safe)")
        }
    }

    private mutating func finished(_ song: Song, _ result: LyricsLookupResult) throws {
        looked += 1
        counts.count(result)
        let event: Event
        switch result {
        case .found(let lyrics, let via):
            event = Event(id: song.id, title: song.title, singer: song.singer, result: lyrics.kind.rawValue, via: via, reason: nil)
        case .failed(let error, _):
            event = Event(id: song.id, title: song.title, singer: song.singer, result: "failed", via: nil, reason: error.description)
            // One line per kind of failure in a run, not one per song.
            if !json, told.insert(error).inserted { tell("lyrics: \(error.description.safe)") }
        }
        if json { try emit(event) } else { showProgress() }
    }

    mutating func finish() {
        guard !json else { return }
        let line = "lyrics: \(summary)" + (counts.skipped > 0 ? ", \(counts.skipped) skipped" : "")
        if announcing {
            console.announce(line)
        } else {
            console.clearStatus()
            console.line(line)
        }
    }

    /// A failure, once per kind: above the prompt in the background, else on stderr.
    private func tell(_ line: String) {
        if announcing {
            console.announce(line)
        } else {
            console.clearStatus()
            console.error(line)
        }
    }

    var summary: String {
        "\(counts.synced) synced, \(counts.plain) plain, \(counts.instrumental) instrumental, "
            + "\(counts.notFound) not found, \(counts.failed) failed"
    }

    private func showProgress() {
        guard !json, lookups > 0 else { return }
        let elapsed = Date().timeIntervalSince(started)
        let eta = looked > 0 ? " ETA \(DurationText.clock(ms: Int(elapsed / Double(looked) * Double(lookups - looked) * 1000)))" : ""
        let line = "lyrics \(looked)/\(lookups): \(summary)\(eta)"
        if !announcing {
            console.status(line)
        } else if looked > 0, looked < lookups, throttle.ready() {
            console.announce(line)
        }
    }

    private func emit(_ event: Event) throws {
        console.line(try Format.json(event))
    }
}
