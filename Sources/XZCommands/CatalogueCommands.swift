import ArgumentParser
import Foundation
import XZCatalogue
import XZFolderScan
import XZHostCore
import XZStats
import XZText

struct Import: LibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a folder of audio files (MP3, FLAC, Ogg Vorbis, Opus, M4A, WAV, AIFF…) or a catalogue feed (.jsonl).",
        discussion: "Folders are scanned recursively; a rescan skips unchanged files and drops vanished ones. "
            + "A feed holds one JSON object per line; see README.md for its keys.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Folders or .jsonl feeds.", valueName: "path")) var paths: [String]

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one folder or .jsonl feed to import") }
    }

    func run(in context: CommandContext) throws {
        // Every path is checked before anything is imported: a typo in the last one changes nothing.
        let sources = try paths.map { path -> (path: String, url: URL, isFolder: Bool) in
            let url = URL(fileURLWithPath: LibraryFolder.expandTilde(path))
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw CommandError.noSuchFile("\(path.safe): no such file or folder")
            }
            guard isDirectory.boolValue || url.pathExtension.lowercased() == "jsonl" else {
                throw CommandError.noSuchFile("\(path.safe): not a folder or a .jsonl feed")
            }
            return (path, url, isDirectory.boolValue)
        }
        var failures = 0
        for (path, url, isFolder) in sources {
            let progress = ProgressBar(label: url.lastPathComponent.safe, console: context.console)
            let summary = isFolder
                ? try context.database.importFolder(at: url, progress: progress.update)
                : try context.database.importFeed(at: url, progress: progress.update)
            progress.finish()
            for problem in summary.problems { context.console.error("\(path.safe): \(problem.safe)") }
            context.console.line("\(path.safe): \(summary.line)")
            failures += summary.failed
        }
        if failures > 0 { throw ExitCode.failure }
    }
}

/// A progress bar on stderr, only on a terminal, redrawn at most every 100 ms.
final class ProgressBar {
    private let label: String
    private let console: Console
    private var lastDraw = Date.distantPast

    init(label: String, console: Console) {
        self.label = label
        self.console = console
    }

    func update(_ fraction: Double) {
        guard console.stderrIsTTY, Date().timeIntervalSince(lastDraw) > 0.1 else { return }
        lastDraw = Date()
        let width = 30
        let filled = Int((min(max(fraction, 0), 1) * Double(width)).rounded())
        console.status("\(DisplayWidth.truncate(label, to: 30)) [" + String(repeating: "█", count: filled)
            + String(repeating: "·", count: width - filled) + "] \(Int(fraction * 100))%")
    }

    func finish() { console.clearStatus() }
}

struct Search: LibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search songs and singers (any script, pinyin, initials).",
        discussion: "Every word must match in the title, singer or album; the last word may be a prefix. "
            + "Field terms narrow it: title:, singer:, album:, albumartist:, genre: (quote values with spaces: "
            + "singer:\"Taylor Swift\"), year: and plays: (2003, 2003..2005, 10.., ..5), liked:yes|no.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "What to look for.") var query: [String]
    @Option(help: "Most songs to show.") var limit = 20
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        if query.joined(separator: " ").trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("give something to search for")
        }
        if limit < 1 || limit > 10_000 { throw ValidationError("--limit must be between 1 and 10000") }
    }

    /// Songs that play here first, then those only online, each group in the order it came.
    static func playableFirst(_ songs: [Song]) -> [Song] {
        songs.filter(\.isLocal) + songs.filter { !$0.isLocal }
    }

    func run(in context: CommandContext) throws {
        let text = query.joined(separator: " ")
        if FieldTerms.hasFields(text) {
            let filters: [SongFilter]
            do {
                filters = try FieldTerms.parse(text)
            } catch {
                throw CommandError.usage(error.description.safe)
            }
            let selection = SongSelection(filters: filters, window: 0..<limit, foldedExtras: true)
            try FilterListing.show(Self.playableFirst(try context.database.songs(selection, naming: .paths)), limit: limit,
                                   json: json, in: context)
            return
        }
        var result = try context.database.search(text, limit: limit)
        result.songs = Self.playableFirst(result.songs)
        context.lastListing = result.songs.map(\.id)
        if json {
            struct Output: Encodable { let songs: [SongJSON]; let singers: [SingerHit]; let suggestions: [SearchSuggestion] }
            try Format.printJSON(Output(songs: result.songs.map(Format.songJSON), singers: result.singers,
                                        suggestions: result.suggestions), console: context.console)
            return
        }
        if result.songs.isEmpty && result.singers.isEmpty {
            context.console.line("No matches.")
            if !result.suggestions.isEmpty {
                context.console.line("did you mean: " + result.suggestions.map(Self.describe).joined(separator: "; "))
            }
            return
        }
        if !result.songs.isEmpty {
            context.console.lines(Format.songTable(result.songs, width: context.console.width, console: context.console))
            if result.songs.count == limit { context.console.line("(the first \(limit); --limit N shows more)") }
        }
        if !result.singers.isEmpty {
            let names = result.singers.prefix(8).map { "\($0.name.safe) (\($0.songs))" }
            let more = result.singers.count > 8 ? ", …" : ""
            context.console.line(context.console.styled("Singers: ", "1") + names.joined(separator: ", ") + more)
        }
    }
}

extension Search {
    /// "晴天 — 周杰伦 (qingtian)", "Björk (singer)", "周杰伦 (singer, zhoujielun)".
    static func describe(_ suggestion: SearchSuggestion) -> String {
        var text = suggestion.name.safe
        if let singer = suggestion.singer { text += " — " + singer.safe }
        let notes = (suggestion.kind == .singer ? ["singer"] : []) + (suggestion.pinyin.map { [$0] } ?? [])
        return notes.isEmpty ? text : text + " (" + notes.joined(separator: ", ") + ")"
    }
}

struct Find: LibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "Find songs by an MPD filter expression.",
        discussion: "As MPD's find: exact, case-sensitive matches, e.g. \"(Artist == '周杰伦')\", "
            + "\"((Genre == 'Pop') AND (Date starts_with '200'))\", or old-style pairs: artist 周杰伦 album 叶惠美.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The filter: expressions in parentheses, or TAG VALUE pairs.") var filter: [String]
    @Option(help: "Most songs to show.") var limit = 100
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        if filter.isEmpty { throw ValidationError("give a filter, e.g. \"(Artist == 'name')\"") }
        if limit < 1 || limit > 1_000_000 { throw ValidationError("--limit must be between 1 and 1000000") }
    }

    func run(in context: CommandContext) throws {
        let filters: [SongFilter]
        do {
            filters = try FilterParser.parse(filter, foldCase: false)
        } catch {
            throw CommandError.usage("bad filter: \(error.description.safe)")
        }
        let songs = try context.database.songs(SongSelection(filters: filters, window: 0..<limit), naming: .paths)
        try FilterListing.show(songs, limit: limit, json: json, in: context)
    }
}

/// Songs a filter found, as a table (or JSON), remembered for `#N` references.
enum FilterListing {
    static func show(_ songs: [Song], limit: Int, json: Bool, in context: CommandContext) throws {
        context.lastListing = songs.map(\.id)
        if json {
            struct Output: Encodable { let songs: [SongJSON] }
            try Format.printJSON(Output(songs: songs.map(Format.songJSON)), console: context.console)
            return
        }
        guard !songs.isEmpty else {
            context.console.line("No matches.")
            return
        }
        context.console.lines(Format.songTable(songs, width: context.console.width, console: context.console))
        if songs.count == limit { context.console.line("(the first \(limit); --limit N shows more)") }
    }
}

struct SingerCommand: LibraryCommand {
    static let configuration = CommandConfiguration(commandName: "singer", abstract: "List a singer's songs.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The singer's name, or part of it.") var name: [String]
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        if name.joined().trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("give a singer's name") }
    }

    func run(in context: CommandContext) throws {
        let text = name.joined(separator: " ")
        guard let singer = try context.database.singer(named: text) else {
            throw CommandError.noSuchSong("no singer matches \"\(text.safe)\"")
        }
        let songs = try context.database.songs(bySingerId: singer.id)
        context.lastListing = songs.map(\.id)
        if json {
            struct Output: Encodable { let id: Int64; let name: String; let songs: [SongJSON] }
            try Format.printJSON(Output(id: singer.id, name: singer.name, songs: songs.map(Format.songJSON)), console: context.console)
            return
        }
        context.console.line(context.console.styled(singer.name.safe, "1") + " — \(songs.count) song\(songs.count == 1 ? "" : "s")")
        context.console.lines(Format.songTable(songs, width: context.console.width, console: context.console))
    }
}

struct Info: LibraryCommand {
    static let configuration = CommandConfiguration(commandName: "info", abstract: "Show one song's fields.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "#ID, a number, or a search.") var song: [String]
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        if song.joined().trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("name a song") }
    }

    func run(in context: CommandContext) throws {
        let found = try SongReference(song.joined(separator: " "), listing: context.lastListing).resolve(in: context)
        if json {
            try Format.printJSON(found, console: context.console)
            return
        }
        // Likes, play counts and MPD clients' stickers (rating among them), as clients see them; they are
        // extras, so stickers that cannot be read leave their row out rather than fail the song's fields.
        let stickers = (try? StickerStore(database: context.database).all(songKey: found.songKey)) ?? []
        let origin = try context.database.songOrigin(songKey: found.songKey)
        let rows: [(String, String)] = [
            ("id", "#\(found.id)"), ("title", found.title), ("singer", found.singer), ("album", found.album ?? ""),
            ("albumartist", found.albumArtist ?? ""), ("genre", found.genres.joined(separator: " / ")),
            ("disc", found.disc.map(String.init) ?? ""), ("track", found.track.map(String.init) ?? ""),
            ("year", found.year.map(String.init) ?? ""),
            ("date", found.date == found.year.map(String.init) ? "" : found.date ?? ""),
            ("duration", DurationText.clock(ms: found.durationMs)), ("local file", found.localPath),
            ("lyrics file", found.lyricsPath),
            ("lyrics", SongLyrics.kind(for: found, database: try context.database)?.rawValue ?? ""),
            ("audio url", found.audioURL), ("lyrics url", found.lyricsURL),
            ("size", found.size.map(String.init) ?? ""), ("sha256", found.sha256), ("key", found.songKey),
            ("licence", origin?.licence ?? ""), ("source page", origin?.page ?? ""),
            ("online only", origin?.downloadAllowed == false ? "yes (\(origin?.source ?? "") allows no download)" : ""),
            ("added", found.addedAt), ("stickers", stickers.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")),
            ("loudness", LoudnessText.info(for: found, database: try context.database)),
        ]
        for (name, value) in rows where !value.isEmpty {
            context.console.line(DisplayWidth.fit(name, to: 12) + value.safe)
        }
    }
}
