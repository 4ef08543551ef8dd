import XZPlaybackTerms

/// One line of MPD's `outputs`: an output by its id, name and plugin, and whether it takes audio.
public struct OutputStatus: Sendable, Equatable {
    public let id: Int
    public let name: String
    public let plugin: String
    public let enabled: Bool

    public init(id: Int, name: String, plugin: String, enabled: Bool) {
        self.id = id
        self.name = name
        self.plugin = plugin
        self.enabled = enabled
    }
}

extension OutputSpec {
    /// The output's name in `outputs`, as MPD names the same output: the null output by the name MPD's
    /// examples give it, libao's default device as MPD names an output it found itself, a file by its setting.
    public var mpdName: String {
        switch self {
        case .null: return "Null Output"
        case .systemDefault: return "default detected output"
        case .wav, .au, .raw: return description
        }
    }

    /// MPD's plugin for the same output: `null`, libao's `ao`, and for a file the `recorder`.
    public var mpdPlugin: String {
        switch self {
        case .null: return "null"
        case .systemDefault: return "ao"
        case .wav, .au, .raw: return "recorder"
        }
    }
}
