import ArgumentParser
import Foundation
import XZCatalogue
import XZDownloader
import XZText

/// Open catalogues (the Internet Archive, Jamendo, ccMixter): search them, add what they offer.
struct CatalogueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalogue",
        abstract: "Search open music catalogues and add their songs (archive, jamendo, ccmixter).",
        discussion: "Addresses come from the config: archive_url, jamendo_url, jamendo_client_id, ccmixter_url.",
        subcommands: [CatalogueSearch.self, CatalogueAdd.self])
}

struct CatalogueSearch: AsyncLibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "search", abstract: "List a catalogue's songs for a search; changes nothing but the remembered results.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "archive, jamendo or ccmixter.") var source: String
    @Argument(help: "What to look for.") var query: [String]
    @Option(help: "Most songs to list.") var limit = 20
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        if query.joined(separator: " ").trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("give something to search for")
        }
        if limit < 1 || limit > 200 { throw ValidationError("--limit must be between 1 and 200") }
    }

    @MainActor func run(in context: CommandContext) async throws {
        let settings: DownloadSettings
        do { settings = try DownloadSettings.load() } catch { throw CommandError.failed(error) }
        let searcher = CatalogueSearcher(settings: settings)
        let songs: [CatalogueSong]
        do {
            songs = try await searcher.search(source: source, query: query.joined(separator: " "), limit: limit)
        } catch {
            await searcher.shutdown()
            // Words from the source (an error message it sent) reach the terminal as data, on one line.
            throw CommandError.failed("\(error)".safe)
        }
        await searcher.shutdown()
        try context.database.rememberCatalogueSearch(songs)
        if json {
            struct Output: Encodable { let songs: [CatalogueSong] }
            try Format.printJSON(Output(songs: songs), console: context.console)
            return
        }
        guard !songs.isEmpty else {
            context.console.line("No matches.")
            return
        }
        context.console.lines(Self.table(songs, width: context.console.width))
        context.console.line("catalogue add \(source.safe) ID… (or --all) adds them.")
    }

    /// One line a song: id, title — singer, duration, and whether it can be kept offline.
    static func table(_ songs: [CatalogueSong], width: Int) -> [String] {
        let idWidth = min(40, songs.map { DisplayWidth.of($0.id.safe) }.max() ?? 0)
        return songs.map { song in
            let duration = song.durationMs.map { DurationText.clock(ms: $0) } ?? ""
            let note = song.downloadAllowed ? "" : "  (online only)"
            let rest = "\(song.title) — \(song.singer)".safe
            let head = DisplayWidth.fit(song.id.safe, to: idWidth) + "  "
            let tail = (duration.isEmpty ? "" : "  " + duration) + note
            let room = max(10, width - DisplayWidth.of(head) - DisplayWidth.of(tail))
            return head + DisplayWidth.truncate(rest, to: room) + tail
        }
    }
}

struct CatalogueAdd: LibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add songs of the last catalogue search to the library.",
        discussion: "Added songs are catalogue songs like a feed's: download, play and MPD clients see them.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "archive, jamendo or ccmixter.") var source: String
    @Argument(help: "IDs as the last search listed them.") var ids: [String] = []
    @Flag(help: "Every song of the last search.") var all = false

    func validate() throws {
        if ids.isEmpty == !all { throw ValidationError("give the IDs to add, or --all") }
    }

    func run(in context: CommandContext) throws {
        let name = source.lowercased()
        guard CatalogueSources.names.contains(name) else {
            throw CommandError.usage("no catalogue source \"\(source.safe)\"; the sources are \(CatalogueSources.names.joined(separator: ", "))")
        }
        let found = try context.database.lastCatalogueSearch(source: name)
        let songs: [CatalogueSong]
        if all {
            songs = found
        } else {
            let byId = Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            // Every ID is checked before anything is added: a typo in the last one changes nothing.
            songs = try ids.map { id in
                guard let song = byId[id] else {
                    throw CommandError.noSuchSong("\(id.safe) is not in the last '\(name)' search ('catalogue search \(name) …' first)")
                }
                return song
            }
        }
        guard !songs.isEmpty else {
            throw CommandError.noSuchSong("the last '\(name)' search found nothing to add")
        }
        let summary = try context.database.addCatalogueSongs(songs)
        context.console.line("\(name): \(summary.line)")
    }
}
