import ArgumentParser
import Foundation
import XZProtocol
import XZAudio
import XZCatalogue
import XZLyrics

extension SongLyrics {
    static func document(at path: String) throws -> LRCDocument {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandError("cannot read \(path.safe)")
        }
        return LRCParser.parse(bytes: [UInt8](data))
    }
}

struct LyricsCommand: LibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "lyrics",
        abstract: "Show lyrics; 'lyrics on|off' while playing; 'lyrics offset [+200|-150|0]'.",
        discussion: "TARGET is a .lrc file or a SONG (#ID, a number, or a search). Alone inside the prompt, shows "
            + "the playing song's lyrics around the current line. 'lyrics offset +200' shows the playing song's "
            + "lyrics 200 ms sooner, and is remembered for that song.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A .lrc file or a song.", valueName: "target")) var target: [String] = []
    @Flag(help: "Print JSON: {\"tags\":{..},\"lines\":[{\"time_ms\":..,\"text\":..,\"words\":[..]}]}.") var json = false

    func validate() throws {
        if target.first == "offset", target.count > 2 || (target.count == 2 && Self.offset(target[1]) == nil) {
            throw ValidationError("use 'lyrics offset' or 'lyrics offset +200|-150|0' (milliseconds)")
        }
        if (target.first == "on" || target.first == "off") && target.count > 1 {
            throw ValidationError("use 'lyrics on' or 'lyrics off'")
        }
    }

    static func offset(_ text: String) -> Int? {
        guard let value = Int(text.hasPrefix("+") ? String(text.dropFirst()) : text), abs(value) <= 600_000 else { return nil }
        return value
    }

    /// One-shot, a lyrics file is shown without opening the library.
    func run() throws {
        if !["on", "off", "offset", nil].contains(target.first), try showFile() { return }
        try run(in: CommandContext.open(global))
    }

    func run(in context: CommandContext) throws {
        switch target.first {
        case "on", "off":
            guard let lines = context.lyricLines else { throw CommandError("lyric lines show inside the prompt") }
            lines.showsLyrics = target.first == "on"
            context.console.line("lyrics \(target[0])")
            return
        case "offset":
            try adjustOffset(context)
            return
        case nil:
            try showCurrent(context)
            return
        default:
            break
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
            throw CommandError("no lyrics for \(song.title.safe) — \(song.singer.safe)")
        }
    }

    /// Shows TARGET when it names a lyrics file; false when it names no file (a song, then).
    private func showFile() throws -> Bool {
        let text = target.joined(separator: " ")
        let path = LibraryFolder.expandTilde(text)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists, !isDirectory.boolValue, !path.lowercased().hasSuffix(".mp3") {
            try show(SongLyrics.document(at: path), console: .shared)
            return true
        }
        if exists, isDirectory.boolValue { throw CommandError("\(text.safe) is a folder, not a lyrics file") }
        if !exists, path.lowercased().hasSuffix(".lrc") { throw CommandError("\(text.safe): no such file") }
        return false
    }

    /// The playing song's lyrics, a few lines either side of the current one.
    private func showCurrent(_ context: CommandContext) throws {
        let snapshot = try context.playerControl().view()
        guard let item = snapshot.current, snapshot.isActive else {
            throw CommandError("nothing is playing: use 'lyrics SONG'")
        }
        guard let path = item.lyricsPath else { throw CommandError("no synced lyrics for \(item.title.safe)") }
        let adjustment = try item.songKey.map { try context.database.lyricsAdjustment(songKey: $0) } ?? item.lyricsAdjustmentMs
        let timeline = LyricTimeline(try SongLyrics.document(at: path), adjustmentMs: adjustment)
        let current = timeline.lineIndex(at: snapshot.positionMs) ?? -1
        for index in max(0, current - 5)...min(timeline.lines.count - 1, current + 5) where timeline.lines.indices.contains(index) {
            let line = timeline.lines[index]
            let text = "\(LRCFormat.stamp(line.timeMs, fractionDigits: 2)) \(line.text.safe)"
            context.console.line(index == current ? context.console.styled("> " + text, "1") : "  " + text)
        }
    }

    private func adjustOffset(_ context: CommandContext) throws {
        let player = try context.playerControl()
        guard let item = try player.view().current, let key = item.songKey else {
            throw CommandError("play a catalogue song first: the offset is kept per song")
        }
        if target.count == 2, let value = Self.offset(target[1]) {
            try context.database.setLyricsAdjustment(songKey: key, offsetMs: value)
            try player.applyLyricsAdjustment(value)
        }
        let value = try context.database.lyricsAdjustment(songKey: key)
        context.console.line("lyrics offset for \(item.title.safe): \(value > 0 ? "+" : "")\(value) ms"
            + (value > 0 ? " (sooner)" : value < 0 ? " (later)" : ""))
    }

    private func show(_ document: LRCDocument, console: Console) throws {
        if json {
            try Format.printJSON(document, console: console)
        } else if document.lines.isEmpty {
            throw CommandError("no timed lyric lines found")
        } else {
            console.line(document.plainText())
        }
    }
}
