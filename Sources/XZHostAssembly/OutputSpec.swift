import Foundation
import XZSystem
import XZPlaybackValues

/// One output written as a word (`--output`, `$XZMUSIC_OUTPUT`): `default`, `null`, `wav:PATH`, `au:PATH`
/// or `raw:PATH`. Each word stands for an `audio_output` block, made through the same table of output types
/// (`AudioOutputTypes`) as the config's blocks.
package struct OutputSpec: Equatable, Sendable, CustomStringConvertible {
    /// The word as written, which `init(parsing:)` reads back.
    package let description: String
    /// The block the word stands for; its `name` is the output's in `outputs` and in the state file.
    package let block: ConfigFile.Block

    package static let usage = "default, null, wav:PATH, au:PATH or raw:PATH"

    /// libao's default live device, as MPD names an output it found itself; the null output when none opens.
    package static let systemDefault = OutputSpec(word: "default", type: "ao", name: "default detected output")

    /// The null output, by the name MPD's examples give it.
    package static let null = OutputSpec(word: "null", type: "null", name: "Null Output")

    package init(parsing text: String) throws(PlaybackError) {
        try self.init(parsing: text, currentDirectory: FileManager.default.currentDirectoryPath)
    }

    /// A relative `PATH` is taken from `currentDirectory`, so a host started elsewhere writes where it was asked.
    package init(parsing text: String, currentDirectory: String) throws(PlaybackError) {
        switch text.lowercased() {
        case "default": self = .systemDefault; return
        case "null": self = .null; return
        default: break
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw PlaybackError.invalidOutput("unknown output \"\(text.prefix(60))\"; use \(OutputSpec.usage)")
        }
        let kind = text[..<colon].lowercased()
        var path = String(text[text.index(after: colon)...])
        // The recorder's encoder for each file word.
        guard let encoder = ["wav": "wave", "au": "au", "raw": "null"][kind] else {
            throw PlaybackError.invalidOutput("unknown output kind \"\(kind.prefix(20))\" in \"\(text.prefix(60))\"; use \(OutputSpec.usage)")
        }
        guard !path.isEmpty else {
            throw PlaybackError.invalidOutput("output \"\(text.prefix(60))\" needs a file path after \"\(kind):\"")
        }
        if !path.hasPrefix("/") && !path.hasPrefix("~") { path = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: currentDirectory, isDirectory: true)).path }
        self = OutputSpec(word: text, type: "recorder", name: text, ["encoder": encoder, "path": path])
    }

    private init(word: String, type: String, name: String, _ settings: [String: String] = [:]) {
        description = word
        let entries = [("type", type), ("name", name)] + settings.sorted { $0.key < $1.key }
        block = ConfigFile.Block(name: "audio_output", entries: entries.map { ConfigFile.Entry(key: $0.0, value: $0.1, line: 0) }, line: 0)
    }
}
