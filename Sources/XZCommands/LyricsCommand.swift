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
        abstract: "Show lyrics of an LRC file or a song.",
        discussion: "TARGET is a .lrc file or a SONG (#ID, a number, or a search).")

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A .lrc file or a song.", valueName: "target")) var target: [String] = []
    @Flag(help: "Print JSON: {\"tags\":{..},\"lines\":[{\"time_ms\":..,\"text\":..,\"words\":[..]}]}.") var json = false

    func validate() throws {
        if target.joined().trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("give a .lrc file or a song")
        }
    }

    func run() throws {
        let text = target.joined(separator: " ")
        let path = LibraryFolder.expandTilde(text)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
           !path.lowercased().hasSuffix(".mp3") {
            try show(SongLyrics.document(at: path), console: .shared)
            return
        }
        let context = try CommandContext.open(global)
        let song = try SongReference(text, interactive: context.isInteractive).resolve(in: context)
        switch SongLyrics.locate(for: song) {
        case .file(let lrc):
            try show(SongLyrics.document(at: lrc), console: context.console)
        case .embedded(let plain):
            if json {
                let object: [String: Any] = ["tags": [String: String](), "lines": [[String: Any]](), "text": plain]
                context.console.line(try jsonText(object))
            } else {
                plain.split(separator: "\n", omittingEmptySubsequences: false).forEach { context.console.line(String($0).safe) }
            }
        case nil:
            throw CommandError("no lyrics for \(song.title.safe) — \(song.singer.safe)")
        }
    }

    private func show(_ document: LRCDocument, console: Console) throws {
        if json {
            console.line(try jsonText(document.jsonObject()))
        } else if document.lines.isEmpty {
            throw CommandError("no timed lyric lines found")
        } else {
            console.line(document.plainText())
        }
    }

    private func jsonText(_ object: Any) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}
