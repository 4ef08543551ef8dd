import ArgumentParser
import Foundation
import XZCatalogue
import XZDownloader
import XZHost
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
            ? try database.localSongs()
            : try songs.map { try SongReference($0, listing: context.lastListing).resolve(in: context) }
        var run = LyricsFetchRun(console: context.console, json: json, total: targets.count)

        let kept = try database.fetchedLyrics(songKeys: targets.map(\.songKey))
        var pending: [LyricsLookup] = []
        var byKey: [String: Song] = [:]
        for song in targets {
            if let reason = Self.skipReason(song, kept: kept[song.songKey], settings: settings, missingOnly: missing) {
                try run.skipped(song, reason: reason)
            } else if byKey[song.songKey] == nil {
                byKey[song.songKey] = song
                pending.append(LyricsLookup(song))
            }
        }
        if !json, context.downloads is BackgroundDownloads {
            // Inside the prompt the lookups go on in the background, with progress lines above the prompt.
            context.console.line("fetching lyrics for \(pending.count) song\(pending.count == 1 ? "" : "s") in the background"
                + (run.counts.skipped > 0 ? " (\(run.counts.skipped) skipped)" : ""))
            Self.runInBackground(run, pending: pending, songs: byKey, database: database, settings: settings)
            return
        }
        run.startLookups(pending.count)
        let fetch = LyricsFetch(settings: settings)
        for await (lookup, result) in fetch.results(for: pending) {
            guard let song = byKey[lookup.songKey] else { continue }
            try run.keep(song, result, database: database, settings: settings)
        }
        await fetch.shutdown()
        run.finish()
        if run.counts.failed > 0 { throw ExitCode.failure }
    }

    /// The lookups on the cooperative pool, their results kept by a thread of their own (SQLite and
    /// sidecar files block), which announces progress every few seconds and the counts at the end.
    private static func runInBackground(_ start: LyricsFetchRun, pending: [LyricsLookup], songs: [String: Song],
                                        database: LibraryDatabase, settings: DownloadSettings) {
        let results = ThreadHandOff<(LyricsLookup, LyricsLookupResult)>()
        let keeper = Thread {
            var run = start
            run.announcing = true
            run.startLookups(pending.count)
            while let (lookup, result) = results.take() {
                guard let song = songs[lookup.songKey] else { continue }
                do {
                    try run.keep(song, result, database: database, settings: settings)
                } catch {
                    run.console.announce("lyrics: cannot keep the lyrics of \(song.title.safe): \("\(CatalogueError.readable(error))".safe)")
                }
            }
            run.finish()
        }
        keeper.start()
        Task.detached {
            let fetch = LyricsFetch(settings: settings)
            for await answer in fetch.results(for: pending) { results.put(answer) }
            await fetch.shutdown()
            results.finish()
        }
    }

    /// Why a song is not asked for, nil when it is. Synced lyrics of its own always win; a kept answer
    /// stands, a miss until it is older than `lyrics_miss_days`.
    static func skipReason(_ song: Song, kept: FetchedLyrics?, settings: DownloadSettings,
                           missingOnly: Bool, now: Date = Date()) -> String? {
        switch SongLyrics.locate(for: song) {
        case .file: return "has synced lyrics"
        case .embedded(let text) where LyricStamps.isSynced(text): return "has synced lyrics"
        case .embedded where missingOnly: return "has lyrics"
        default: break
        }
        guard let kept else { return nil }
        if kept.kind != .notFound { return "already fetched (\(kept.kind.rawValue))" }
        return now.timeIntervalSince(kept.fetchedAt) < settings.lyricsMissDays * 86_400 ? "not found recently" : nil
    }
}

/// Counts of one `lyrics fetch` run: what it found, in the progress line and the summary.
struct LyricsFetchCounts: Equatable {
    var synced = 0, plain = 0, instrumental = 0, notFound = 0, failed = 0, skipped = 0
}

/// The output of one run: a JSON event per song, or a progress line with counts and ETA and each kind of
/// failure told once.
struct LyricsFetchRun {
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
    let total: Int
    private(set) var counts = LyricsFetchCounts()
    private var lookups = 0
    private var looked = 0
    private var started = Date()
    private var told: Set<DownloadError> = []
    /// Lines above the prompt (a background run) rather than a redrawn status line.
    var announcing = false
    private let throttle = ProgressThrottle(interval: 3)

    init(console: Console, json: Bool, total: Int) {
        self.console = console
        self.json = json
        self.total = total
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

    /// Keeps an answer in the library (and beside the song with `lyrics_sidecar = yes`), then counts it.
    mutating func keep(_ song: Song, _ result: LyricsLookupResult, database: LibraryDatabase, settings: DownloadSettings) throws {
        if case .found(let lyrics, _) = result {
            try database.saveFetchedLyrics(lyrics, songKey: song.songKey)
            if settings.lyricsSidecar {
                do {
                    _ = try LyricsFetch.writeSidecar(lyrics, song: song)
                } catch {
                    tell("lyrics: cannot write lyrics beside \(song.title.safe): \("\(error)".safe)")
                }
            }
        }
        try finished(song, result)
    }

    mutating func finished(_ song: Song, _ result: LyricsLookupResult) throws {
        looked += 1
        let event: Event
        switch result {
        case .found(let lyrics, let via):
            switch lyrics.kind {
            case .synced: counts.synced += 1
            case .plain: counts.plain += 1
            case .instrumental: counts.instrumental += 1
            case .notFound: counts.notFound += 1
            }
            event = Event(id: song.id, title: song.title, singer: song.singer, result: lyrics.kind.rawValue, via: via, reason: nil)
        case .failed(let error, _):
            counts.failed += 1
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
