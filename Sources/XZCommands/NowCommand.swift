import ArgumentParser
import Foundation
import XZSystem
import XZLyrics
import XZProtocol
import XZText
import XZHostCore
import XZHostAssembly
import XZPlaybackValues

struct Now: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "now", abstract: "What is playing, with the lyrics around it.")
    @OptionGroup var global: GlobalOptions

    func run(on door: HostDoor, context: CommandContext) throws {
        let console = context.console
        let status = try door.status()
        if status.isActive, let item = try context.currentItem(door) {
            // Which lyrics the song has is an extra: a failed read leaves it out.
            let database = try? context.database
            let lyrics = item.songKey.flatMap { key in database.flatMap { try? $0.song(key: key) } }
                .flatMap { song in database.flatMap { SongLyrics.kind(for: song, database: $0) } }
            console.lines(NowPlaying.lines(status: status, item: item, width: console.width, console: console,
                                           lyricsKind: lyrics?.rawValue))
        } else {
            console.line(status.playlistLength == 0 ? "Nothing is playing." : "Stopped (\(status.playlistLength) in the queue).")
        }
        // A client hears no error from before it came; 'now' tells the last one, once.
        if let error = status.error {
            console.line("last error: \(error.safe)")
            try door.run("clearerror")
        }
    }
}

enum NowPlaying {
    static func lines(status: PlayerStatus, item: QueueItem, width: Int, console: Console, lyricsKind: String? = nil) -> [String] {
        let total = status.durationMs ?? item.durationMs
        let position = status.elapsedMs ?? 0
        let barWidth = max(10, min(40, width - 30))
        let fraction = total.map { $0 > 0 ? min(1, Double(position) / Double($0)) : 0 } ?? 0
        let filled = Int(fraction * Double(barWidth))
        let bar = String(repeating: "━", count: filled) + "●" + String(repeating: "─", count: max(0, barWidth - filled))
        var lines = [
            console.styled(DisplayWidth.truncate(item.shownTitle, to: width - 2), "1"),
            "\(stateText(status))  \(DurationText.clock(ms: position)) \(bar) \(DurationText.clock(ms: total))"
                + "  vol \(status.volume.map(String.init) ?? "-")  repeat \(repeatMode(status).rawValue)\(status.random ? "  shuffle" : "")"
                + (lyricsKind.map { "  lyrics \($0)" } ?? ""),
        ]
        guard let path = item.lyricsPath, let data = RegularFile.contents(atPath: path, limit: LRCParser.fileLimit) else { return lines }
        let timeline = LyricTimeline(LRCParser.parse(bytes: data), adjustmentMs: item.lyricsAdjustmentMs)
        guard let current = timeline.lineIndex(at: position) ?? (timeline.isEmpty ? nil : -1) else { return lines }
        for index in (current - 1)...(current + 1) where timeline.lines.indices.contains(index) {
            let line = timeline.lines[index]
            var text = DisplayWidth.truncate(line.text.safe, to: width - 4)
            if index == current {
                // The sung part of a word-timed line is marked.
                if let word = timeline.wordIndex(line: index, at: position), !line.words.isEmpty {
                    let sung = line.words[...word].map(\.text).joined()
                    let rest = line.words[(word + 1)...].map(\.text).joined()
                    text = console.colorEnabled
                        ? console.styled(sung.safe, "1;36") + rest.safe
                        : DisplayWidth.truncate("[\(sung.safe)]\(rest.safe)", to: width - 4)
                }
                lines.append("> " + text)
            } else {
                lines.append("  " + console.styled(text, "2"))
            }
        }
        return lines
    }

    /// The state as our output shows it.
    static func stateText(_ status: PlayerStatus) -> String {
        switch status.state {
        case .play: status.isBuffering ? "buffering" : "playing"
        case .pause: "paused"
        case .stop: "stopped"
        }
    }

    static func repeatMode(_ status: PlayerStatus) -> RepeatMode {
        RepeatMode(repeats: status.repeats, single: SingleMode(rawValue: status.single) ?? .off)
    }
}
