import XZPlaybackTerms

/// One line of MPD's `outputs`: an output by its id, name and plugin, and whether it takes audio.
package struct OutputStatus: Sendable, Equatable {
    package let id: Int
    package let name: String
    package let plugin: String
    package let enabled: Bool

    package init(id: Int, name: String, plugin: String, enabled: Bool) {
        self.id = id
        self.name = name
        self.plugin = plugin
        self.enabled = enabled
    }
}

extension OutputSpec {
    /// The output's name in `outputs`, as MPD names the same output: the null output by the name MPD's
    /// examples give it, libao's default device as MPD names an output it found itself, a file by its setting.
    package var mpdName: String {
        switch self {
        case .null: return "Null Output"
        case .systemDefault: return "default detected output"
        case .wav, .au, .raw: return description
        }
    }

    /// MPD's plugin for the same output: `null`, libao's `ao`, and for a file the `recorder`.
    package var mpdPlugin: String {
        switch self {
        case .null: return "null"
        case .systemDefault: return "ao"
        case .wav, .au, .raw: return "recorder"
        }
    }
}
