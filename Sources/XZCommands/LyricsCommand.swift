import ArgumentParser
import Foundation
import XZAudio
import XZCatalogue
import XZLyrics

/// Where a song's lyrics come from: the catalogue's lyrics file, else a sibling NAME.lrc beside the
/// audio, else the MP3's own unsynchronised lyrics tag (plain text, no sync).
enum SongLyrics: Equatable {
    case file(String)
    case embedded(String)

    static func locate(for song: Song) -> SongLyrics? {
        let manager = FileManager.default
        if !song.lyricsPath.isEmpty, manager.fileExists(atPath: song.lyricsPath) { return .file(song.lyricsPath) }
        guard !song.localPath.isEmpty else { return nil }
        let audio = URL(fileURLWithPath: song.localPath)
        let sibling = audio.deletingPathExtension().appendingPathExtension("lrc").path
        if manager.fileExists(atPath: sibling) { return .file(sibling) }
        if let text = try? MP3Probe.readTags(path: song.localPath).lyrics, !text.isEmpty { return .embedded(text) }
        return nil
    }

    static func document(at path: String) throws -> LRCDocument {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandError("cannot read \(path.safe)")
        }
        return LRCParser.parse(bytes: [UInt8](data))
    }
}

struct LyricsCommand: ParsableCommand {
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

    func run() throws {
        switch target.first {
        case "on", "off":
            let context = try CommandContext.open(global)
            try context.playbackSession().showsLyrics = target.first == "on"
            context.console.line("lyrics \(target[0])")
            return
        case "offset":
            try adjustOffset()
            return
        case nil:
            try showCurrent()
            return
        default:
            break
        }
        let text = target.joined(separator: " ")
        let path = LibraryFolder.expandTilde(text)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists, !isDirectory.boolValue, !path.lowercased().hasSuffix(".mp3") {
            try show(SongLyrics.document(at: path), console: .shared)
            return
        }
        if exists, isDirectory.boolValue { throw CommandError("\(text.safe) is a folder, not a lyrics file") }
        if !exists, path.lowercased().hasSuffix(".lrc") { throw CommandError("\(text.safe): no such file") }
        let context = try CommandContext.open(global)
        let song = try SongReference(text, interactive: context.isInteractive).resolve(in: context)
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

    /// The playing song's lyrics, a few lines either side of the current one.
    private func showCurrent() throws {
        let context = try CommandContext.open(global)
        guard context.isInteractive else { throw ValidationError("give a .lrc file or a song") }
        let snapshot = try context.playbackSession().player.snapshot()
        guard let item = snapshot.current, snapshot.state == .playing || snapshot.state == .paused else {
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

    private func adjustOffset() throws {
        let context = try CommandContext.open(global)
        let session = try context.playbackSession()
        guard let item = session.player.snapshot().current, let key = item.songKey else {
            throw CommandError("play a catalogue song first: the offset is kept per song")
        }
        if target.count == 2, let value = Self.offset(target[1]) {
            try context.database.setLyricsAdjustment(songKey: key, offsetMs: value)
            session.player.setLyricsAdjustment(value)
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
