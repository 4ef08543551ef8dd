import XZSystem
import XZPlaybackEngine
import XZPlaybackValues
import XZStreamOutput

/// The table of output types: the config's `audio_output` blocks, the word of `--output` and
/// `$XZMUSIC_OUTPUT`, and through their names the state file's outputs, are all made by it. Each block
/// has MPD's keys `type` and `name` (both required, as in MPD), `enabled`, and its type's own.
package enum AudioOutputTypes {
    /// Every output type, each declared beside its output; a new type is its file and a line here.
    package static let all: [OutputType] = [
        .null,
        .ao,
        .alsa,
        .pulse,
        .fifo,
        .httpd,
        .recorder,
    ]

    package static func type(named name: String) -> OutputType? {
        all.first { $0.name == name }
    }

    /// The outputs of `config`'s blocks, and one line for each block left out (the host starts with the others,
    /// as MPD users expect a host that is up).
    package static func outputs(of config: ConfigFile) -> (outputs: [NamedOutput], notes: [String]) {
        var outputs: [NamedOutput] = []
        var notes: [String] = []
        // A bad password is the host's error; the stream then only listens on loopback.
        let password = (try? config.text(.password)) ?? nil
        for block in config.blocks(named: "audio_output") {
            do {
                outputs.append(try make(block, config, taken: Set(outputs.map(\.name)), hostPassword: password))
            } catch {
                notes.append("\(error); the host starts without this output")
            }
        }
        return (outputs, notes)
    }

    /// The output the word of `--output` stands for; `realtime` paces a file to real time.
    package static func output(for spec: OutputSpec, realtime: Bool) throws -> NamedOutput {
        try make(spec.block, ConfigFile(source: "--output \(spec)", entries: []), taken: [], chosenForRun: true, realtime: realtime)
    }

    /// One line for each key of a block that sets nothing: misspelt (with the key meant), unknown to its
    /// type, or MPD's and not read here, as the file's own keys are told (`ConfigFile.warnings`).
    package static func warnings(of config: ConfigFile) -> [String] {
        config.blocks(named: "audio_output").flatMap { block in
            // A block of no known type is refused whole, and told so when the host starts.
            guard let type = block.value("type").flatMap(type(named:)) else { return [String]() }
            return config.warnings(in: block, known: type.allKeys.map(\.name), mpdOnly: OutputType.mpdOnlyKeys)
        }
    }

    private static func make(_ block: ConfigFile.Block, _ config: ConfigFile, taken: Set<String>, hostPassword: String? = nil,
                             chosenForRun: Bool = false, realtime: Bool = false) throws -> NamedOutput {
        guard let typeName = block.value("type"), !typeName.isEmpty else { throw config.error(in: block, nil, "an output needs type \"…\"") }
        guard let type = type(named: typeName) else {
            throw config.error(in: block, entry("type", block),
                               "no output type \"\(typeName.prefix(40))\"; types: \(all.map(\.name).sorted().joined(separator: ", "))")
        }
        let read = try OutputBlock(block, of: type, in: config, hostPassword: hostPassword, chosenForRun: chosenForRun, realtime: realtime)
        let name = try read.required("name")
        guard !taken.contains(name) else { throw read.error("name", "another output is named \"\(name.prefix(60))\"") }
        // Output names are lines of the state file.
        guard !name.contains(where: \.isNewline) else { throw read.error("name", "a name is one line") }
        return NamedOutput(name: name, plugin: type.name, output: try type.make(read), enabled: read.yesNo("enabled") ?? true)
    }

    private static func entry(_ key: String, _ block: ConfigFile.Block) -> ConfigFile.Entry? {
        block.entries.last { $0.key == key }
    }
}
