/// Where the player sends its audio, as the user writes it: `default`, `null`, `wav:PATH`, `au:PATH`, `raw:PATH`.
package enum OutputSpec: Equatable, Sendable, CustomStringConvertible {
    /// libao's default live driver; falls back to `null` (with one notice) when it cannot open.
    case systemDefault
    /// Discards audio, paced to real time by the player.
    case null
    /// RIFF WAVE file through libao's file driver.
    case wav(String)
    /// Sun AU file through libao's file driver.
    case au(String)
    /// Signed 16-bit native-endian interleaved PCM at each track's own rate and channels (what `mpg123 -s` writes).
    case raw(String)

    package static let usage = "default, null, wav:PATH, au:PATH or raw:PATH"

    package init(parsing text: String) throws {
        switch text.lowercased() {
        case "default": self = .systemDefault; return
        case "null": self = .null; return
        default: break
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw PlaybackError.invalidOutput("unknown output \"\(text)\"; use \(OutputSpec.usage)")
        }
        let kind = text[..<colon].lowercased()
        let path = String(text[text.index(after: colon)...])
        guard ["wav", "au", "raw"].contains(kind) else {
            throw PlaybackError.invalidOutput("unknown output kind \"\(kind)\" in \"\(text)\"; use \(OutputSpec.usage)")
        }
        guard !path.isEmpty else {
            throw PlaybackError.invalidOutput("output \"\(text)\" needs a file path after \"\(kind):\"")
        }
        switch kind {
        case "wav": self = .wav(path)
        case "au": self = .au(path)
        default: self = .raw(path)
        }
    }

    /// The spelling `init(parsing:)` reads back.
    package var description: String {
        switch self {
        case .systemDefault: return "default"
        case .null: return "null"
        case .wav(let path): return "wav:" + path
        case .au(let path): return "au:" + path
        case .raw(let path): return "raw:" + path
        }
    }

    /// A file that gets written as fast as the decoder runs unless realtime pacing is asked for.
    package var isFile: Bool {
        switch self {
        case .wav, .au, .raw: return true
        case .systemDefault, .null: return false
        }
    }
}
