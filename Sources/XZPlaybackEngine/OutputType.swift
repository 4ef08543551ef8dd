import XZSystem

/// One type of audio output, MPD's plugin: the keys its `audio_output` block takes, each with its domain,
/// and how the output is made from a block read by them. Each type is declared beside its output; the
/// registry of every type (`AudioOutputTypes.all`, XZHostAssembly) is one line per type, and config blocks,
/// `--output`, `$XZMUSIC_OUTPUT` and the state file's outputs all go through it.
package struct OutputType: Sendable {
    /// A key of a block and the values it takes (the config file's domains and parser).
    package struct Key: Sendable {
        package let name: String
        package let kind: ConfigKey.Kind

        package init(_ name: String, _ kind: ConfigKey.Kind) {
            self.name = name
            self.kind = kind
        }
    }

    /// MPD's plugin name, the block's `type`.
    package let name: String
    /// The type's own keys, beside `commonKeys`.
    package let keys: [Key]
    /// Makes the output; a setting it cannot use is an error naming its line (`OutputBlock.error`).
    package let make: @Sendable (OutputBlock) throws -> AudioOutput

    package init(_ name: String, keys: [Key] = [], make: @escaping @Sendable (OutputBlock) throws -> AudioOutput) {
        self.name = name
        self.keys = keys
        self.make = make
    }

    /// The keys of every block: `type` and `name` (both required, as in MPD) and `enabled`.
    package static let commonKeys = [Key("type", .text(allowsEmpty: false)), Key("name", .text(allowsEmpty: false)), Key("enabled", .yesNo)]

    /// Keys MPD's outputs take that XZMusic does not read: told as MPD's and ignored, not as misspellings.
    package static let mpdOnlyKeys: Set<String> = [
        "format", "mixer_type", "mixer_device", "mixer_control", "mixer_index", "replay_gain_handler", "filters",
        "always_on", "tags", "genre", "website", "dscp_class", "buffer_time", "period_time", "auto_resample",
        "auto_channels", "auto_format", "use_mmap", "dop", "allowed_formats", "stop_dsd_silence", "thesaurus",
        "media_role", "scale_factor", "write_size", "mixer", "stream_name",
    ]

    /// Every key a block of this type takes.
    package var allKeys: [Key] { Self.commonKeys + keys }
}

/// An `audio_output` block read by its type's keys: each value parsed into its domain up front, so a bad
/// one is an error naming its line before anything is made.
package struct OutputBlock: Sendable {
    package let block: ConfigFile.Block
    /// The file the block is in, for error lines.
    package let config: ConfigFile
    /// The host's `password`, which a stream listened to beyond loopback asks for.
    package let hostPassword: String?
    /// The one output this run chose (`--output`, `$XZMUSIC_OUTPUT`) rather than a block of the config:
    /// a sound card that cannot open falls back to the null output, and files are paced only when `realtime`.
    package let chosenForRun: Bool
    package let realtime: Bool
    private let values: [String: ConfigValue]

    package init(_ block: ConfigFile.Block, of type: OutputType, in config: ConfigFile, hostPassword: String? = nil,
                 chosenForRun: Bool = false, realtime: Bool = false) throws(SystemError) {
        self.block = block
        self.config = config
        self.hostPassword = hostPassword
        self.chosenForRun = chosenForRun
        self.realtime = realtime
        var values: [String: ConfigValue] = [:]
        for key in type.allKeys {
            guard let entry = Self.entry(key.name, block) else { continue }
            guard let value = key.kind.parse(entry.value) else {
                throw config.error(in: block, entry, ConfigKey.refusal(key.name, key.kind, entry.value))
            }
            values[key.name] = value
        }
        self.values = values
    }

    /// A text, word or path key's value (a path with `~` expanded); nil when the block does not set it.
    package func text(_ key: String) -> String? {
        if case .text(let value) = values[key] { return value }
        return nil
    }

    package func yesNo(_ key: String) -> Bool? {
        if case .yesNo(let value) = values[key] { return value }
        return nil
    }

    package func wholeNumber(_ key: String) -> Int? {
        if case .wholeNumber(let value) = values[key] { return value }
        return nil
    }

    /// The value of `key`, which the block must have.
    package func required(_ key: String) throws(SystemError) -> String {
        guard let value = text(key), !value.isEmpty else {
            throw config.error(in: block, nil, "\(block.value("type").map { "a \($0) output" } ?? "an output") needs \(key) \"…\"")
        }
        return value
    }

    /// The block's settings of `keys` as written (an encoder's `bitrate`, `quality`, …), for their reader to check.
    package func settings(of keys: [String]) -> [String: String] {
        var settings: [String: String] = [:]
        for key in keys { if let entry = Self.entry(key, block) { settings[key] = entry.value } }
        return settings
    }

    /// An error naming the line of `key` (the block's own line when it is not set).
    package func error(_ key: String?, _ why: String) -> SystemError {
        config.error(in: block, key.flatMap { Self.entry($0, block) }, why)
    }

    /// The line that sets `key`: the last, when set twice.
    private static func entry(_ key: String, _ block: ConfigFile.Block) -> ConfigFile.Entry? {
        block.entries.last { $0.key == key }
    }
}
