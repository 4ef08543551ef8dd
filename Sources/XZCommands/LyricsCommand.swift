import ArgumentParser
import Foundation
import XZProtocol
import XZCatalogue
import XZFolderScan
import XZLyrics
import XZHostCore
import XZHostAssembly
import XZSystem

extension SongLyrics {
    static func document(at path: String) throws -> LRCDocument {
        guard let data = RegularFile.contents(atPath: path, limit: LRCParser.fileLimit) else {
            throw CommandError.noSuchFile("cannot read \(path.safe)")
        }
        return LRCParser.parse(bytes: data)
    }
}

struct LyricsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lyrics",
        abstract: "Show lyrics; 'lyrics on|off' while playing; 'lyrics offset [+200|-150|0]'; 'lyrics fetch'.",
        discussion: "TARGET is a .lrc file or a SONG (#ID, a number, or a search). Alone, shows the playing "
            + "song's lyrics around the current line. 'lyrics offset +200' shows the playing song's "
            + "lyrics 200 ms sooner than now, '=200' (or '200') 200 ms sooner than the file; remembered for that song.",
        subcommands: [ShowLyrics.self, On.self, Off.self, Offset.self, FetchLyrics.self], defaultSubcommand: ShowLyrics.self)

    struct On: LibraryCommand {
        static let configuration = CommandConfiguration(commandName: "on", abstract: "Print lyric lines above the prompt.")
        @OptionGroup var global: GlobalOptions
        func run(in context: CommandContext) throws { try LyricsCommand.switchLines(true, context) }
    }

    struct Off: LibraryCommand {
        static let configuration = CommandConfiguration(commandName: "off", abstract: "Stop printing lyric lines above the prompt.")
        @OptionGroup var global: GlobalOptions
        func run(in context: CommandContext) throws { try LyricsCommand.switchLines(false, context) }
    }

    static func switchLines(_ on: Bool, _ context: CommandContext) throws {
        guard let lines = context.lyricLines else { throw CommandError.usage("lyric lines show inside the prompt") }
        lines.showsLyrics = on
        context.console.line("lyrics \(on ? "on" : "off")")
    }

    /// Milliseconds, positive for sooner, within ten minutes: a signed value (`+200`, `-150`) changes the
    /// shift, a bare one or `=N` sets it, as `volume` and `seek` read their values.
    enum Shift: ExpressibleByArgument, Equatable {
        case to(Int), by(Int)

        static let limitMs = 600_000
        static let usage = "use 'lyrics offset', 'lyrics offset +200|-150' to change it or 'lyrics offset 0|=200' to set it (milliseconds)"

        /// The argument's transform reports why a shift is bad; this form, which the protocol asks for, only says no.
        init?(argument: String) {
            try? self.init(parsing: argument)
        }

        init(parsing text: String) throws {
            let relative = text.hasPrefix("+") || text.hasPrefix("-")
            let number = text.hasPrefix("=") ? String(text.dropFirst()) : text
            guard let value = Int(number), abs(value) <= Self.limitMs else { throw ValidationError(Self.usage) }
            self = relative ? .by(value) : .to(value)
        }

        /// The shift after this change of `current`; a sum past ten minutes is refused, not cut.
        func applied(to current: Int) throws -> Int {
            switch self {
            case .to(let value): return value
            case .by(let step):
                let value = current + step
                guard abs(value) <= Self.limitMs else {
                    throw CommandError.usage("the lyrics offset stays within ±\(Self.limitMs) ms (it is \(current) ms)")
                }
                return value
            }
        }
    }

    struct Offset: PlayerCommand {
        static let configuration = CommandConfiguration(commandName: "offset", abstract: "Show, change or set the playing song's lyrics shift.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("+MS shows the lyrics MS sooner than now, -MS later; MS or =MS sets the shift (0: as the file says).",
                                     valueName: "ms"),
                  transform: Shift.init(parsing:))
        var shift: Shift?

        func run(on door: HostDoor, context: CommandContext) throws {
            guard let item = try context.currentItem(door), let key = item.songKey else {
                throw CommandError.nothingPlaying("play a catalogue song first: the offset is kept per song")
            }
            if let shift {
                let value = try shift.applied(to: context.database.lyricsAdjustment(songKey: key))
                try context.database.setLyricsAdjustment(songKey: key, offsetMs: value)
                try door.run("lyricsoffset", [String(value)])
            }
            let value = try context.database.lyricsAdjustment(songKey: key)
            context.console.line("lyrics offset for \(item.title.safe): \(value > 0 ? "+" : "")\(value) ms"
                + (value > 0 ? " (sooner)" : value < 0 ? " (later)" : ""))
        }
    }
}

struct ShowLyrics: LibraryCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a lyrics file's or a song's lyrics.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A .lrc file or a song.", valueName: "target")) var target: [String] = []
    @Flag(help: "Print JSON: {\"tags\":{..},\"lines\":[{\"time_ms\":..,\"text\":..,\"words\":[..]}]}.") var json = false

    /// One-shot, a lyrics file is shown without opening the library.
    func run() throws {
        if !target.isEmpty, try showFile() { return }
        try run(in: CommandContext.open(global))
    }

    func run(in context: CommandContext) throws {
        if target.isEmpty {
            try showCurrent(context)
            return
        }
        if try showFile() { return }
        let text = target.joined(separator: " ")
        let song = try SongReference(text, listing: context.lastListing).resolve(in: context)
        switch SongLyrics.locate(for: song) {
        case .file(let lrc):
            try show(SongLyrics.document(at: lrc), console: context.console)
        case .embedded(let plain):
            if json {
                struct Embedded: Encodable { let tags: [String: String] = [:]; let lines: [LyricLine] = []; let text: String }
                try Format.printJSON(Embedded(text: plain), console: context.console)
            } else {
                plain.split(separator: "\n", omittingEmptySubsequences: false).forEach { context.console.line(String($0).safe) }
            }
        case nil:
            // Lyrics `lyrics fetch` kept in the library.
            guard let fetched = try context.database.fetchedLyrics(songKey: song.songKey),
                  fetched.kind == .synced || fetched.kind == .plain else {
                throw CommandError.noLyrics("no lyrics for \(song.title.safe) — \(song.singer.safe)")
            }
            if fetched.kind == .synced {
                try show(LRCParser.parse(bytes: Array(fetched.text.utf8)), console: context.console)
            } else {
                fetched.text.split(separator: "\n", omittingEmptySubsequences: false).forEach { context.console.line(String($0).safe) }
            }
        }
    }

    /// Shows TARGET when it names a lyrics file; false when it names no file (a song, then).
    private func showFile() throws -> Bool {
        let text = target.joined(separator: " ")
        let path = LibraryFolder.expandTilde(text)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists, !isDirectory.boolValue, !LibraryFolder.isSongFileName(path) {
            try show(SongLyrics.document(at: path), console: .shared)
            return true
        }
        if exists, isDirectory.boolValue { throw CommandError.noSuchFile("\(text.safe) is a folder, not a lyrics file") }
        if !exists, path.lowercased().hasSuffix(".lrc") { throw CommandError.noSuchFile("\(text.safe): no such file") }
        return false
    }

    /// The playing song's lyrics, a few lines either side of the current one.
    private func showCurrent(_ context: CommandContext) throws {
        let (status, playing) = try context.withPlayer { door in
            let status = try door.status()
            return (status, status.isActive ? try context.currentItem(door) : nil)
        }
        guard let item = playing else {
            throw CommandError.nothingPlaying("nothing is playing: use 'lyrics SONG'")
        }
        guard let path = item.lyricsPath else { throw CommandError.noLyrics("no synced lyrics for \(item.title.safe)") }
        let adjustment = try item.songKey.map { try context.database.lyricsAdjustment(songKey: $0) } ?? item.lyricsAdjustmentMs
        let timeline = LyricTimeline(try SongLyrics.document(at: path), adjustmentMs: adjustment)
        let current = timeline.lineIndex(at: status.elapsedMs ?? 0) ?? -1
        for index in max(0, current - 5)...min(timeline.lines.count - 1, current + 5) where timeline.lines.indices.contains(index) {
            let line = timeline.lines[index]
            let text = "\(LRCFormat.stamp(line.timeMs, fractionDigits: 2)) \(line.text.safe)"
            context.console.line(index == current ? context.console.styled("> " + text, "1") : "  " + text)
        }
    }

    private func show(_ document: LRCDocument, console: Console) throws {
        if json {
            try Format.printJSON(document, console: console)
        } else if document.lines.isEmpty {
            throw CommandError.noLyrics("no timed lyric lines found")
        } else {
            console.line(document.plainText())
        }
    }
}
