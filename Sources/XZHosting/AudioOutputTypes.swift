import Foundation
import XZSystem
import XZPlayback
import XZPlaybackTerms
import XZStreamOutput
import XZEncoders

/// How the config's `audio_output` blocks become the host's outputs, with MPD's keys: `type` and `name`
/// (both required, as in MPD), `enabled`, and each type's own. One row per type.
package enum AudioOutputTypes {
    /// Makes the output of one block; a setting it cannot use is an error naming its line (`ConfigFile.error`).
    package typealias Maker = @Sendable (_ block: ConfigFile.Block, _ config: ConfigFile) throws -> AudioOutput

    package static let table: [String: Maker] = [
        "null": { _, _ in LibaoOutput(spec: .null) },
        "ao": { block, config in
            let driver = block.value("driver") ?? "default"
            return LibaoOutput(driver: driver, options: try libaoOptions(block, config))
        },
        // libao's drivers of MPD's names, with MPD's keys for them.
        "alsa": { block, _ in LibaoOutput(driver: "alsa", options: block.value("device").map { [("dev", $0)] } ?? []) },
        "pulse": { block, _ in
            LibaoOutput(driver: "pulse", options: [("server", block.value("server")), ("sink", block.value("sink"))]
                .compactMap { key, value in value.map { (key, $0) } })
        },
        // MPD's HTTP stream; its listeners need the host's password on any address but loopback.
        "httpd": { block, config in try HTTPStreamOutput(block: block, hostPassword: try config.text(.password)) },
        "fifo": { block, config in FifoOutput(path: try required("path", block, config)) },
        "recorder": { block, config in
            let path = try required("path", block, config)
            // `wave` stays libao's WAV file (its header has the real sizes); `null` is raw PCM; every other
            // encoder is MPD's, through the encoders (MPD's default vorbis).
            switch block.value("encoder") ?? "vorbis" {
            case "wave": return LibaoOutput(spec: .wav(path))
            case "null": return RawFileOutput(path: path)
            case let text:
                guard let kind = EncoderKind(rawValue: text) else {
                    throw config.error(in: block, entry("encoder", block),
                                       "no encoder \"\(text.prefix(40))\"; encoders: \((EncoderKind.allCases.map(\.rawValue) + ["null"]).sorted().joined(separator: ", "))")
                }
                let settings = RecorderOutput.encoderSettings(of: block)
                do {
                    return try RecorderOutput(name: try required("name", block, config), path: path, encoder: kind, settings: settings)
                } catch {
                    // A refused setting names its own line.
                    let key = (error as? EncoderError)?.setting.flatMap { settings[$0] == nil ? nil : $0 }
                    throw config.error(in: block, key.flatMap { entry($0, block) } ?? entry("encoder", block), "\(kind.rawValue) encoder: \(error)")
                }
            }
        },
    ]

    /// The outputs of `config`'s blocks, and one line for each block left out (the host starts with the others,
    /// as MPD users expect a host that is up).
    package static func outputs(of config: ConfigFile) -> (outputs: [NamedOutput], notes: [String]) {
        var outputs: [NamedOutput] = []
        var notes: [String] = []
        for block in config.blocks(named: "audio_output") {
            do {
                let output = try make(block, config, taken: Set(outputs.map(\.name)))
                outputs.append(output)
            } catch {
                notes.append("\(error); the host starts without this output")
            }
        }
        return (outputs, notes)
    }

    private static func make(_ block: ConfigFile.Block, _ config: ConfigFile, taken: Set<String>) throws -> NamedOutput {
        let type = try required("type", block, config)
        let name = try required("name", block, config)
        guard !taken.contains(name) else {
            throw config.error(in: block, entry("name", block), "another output is named \"\(name.prefix(60))\"")
        }
        // Output names are lines of the state file.
        guard !name.contains(where: \.isNewline) else { throw config.error(in: block, entry("name", block), "a name is one line") }
        var enabled = true
        if let text = block.value("enabled") {
            guard let value = ConfigKey.yesNo(text) else {
                throw config.error(in: block, entry("enabled", block), "enabled takes yes or no, not \"\(text.prefix(40))\"")
            }
            enabled = value
        }
        guard let maker = table[type] else {
            throw config.error(in: block, entry("type", block),
                               "no output type \"\(type.prefix(40))\"; types: \(table.keys.sorted().joined(separator: ", "))")
        }
        return NamedOutput(name: name, plugin: type, output: try maker(block, config), enabled: enabled)
    }

    /// The value of `key`, which the block must have.
    package static func required(_ key: String, _ block: ConfigFile.Block, _ config: ConfigFile) throws -> String {
        guard let value = block.value(key), !value.isEmpty else {
            throw config.error(in: block, nil, "\(block.value("type").map { "a \($0) output" } ?? "an output") needs \(key) \"…\"")
        }
        return value
    }

    /// The line of `key` in the block, for an error about its value.
    package static func entry(_ key: String, _ block: ConfigFile.Block) -> ConfigFile.Entry? {
        block.entries.last { $0.key == key }
    }

    /// MPD's `options "key=value;key=value"` of an `ao` output.
    private static func libaoOptions(_ block: ConfigFile.Block, _ config: ConfigFile) throws -> [(key: String, value: String)] {
        guard let text = block.value("options") else { return [] }
        return try text.split(separator: ";", omittingEmptySubsequences: true).map { pair in
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw config.error(in: block, entry("options", block), "options are key=value;key=value, not \"\(pair.prefix(40))\"")
            }
            return (key: pair[..<equals].trimmingCharacters(in: .whitespaces),
                    value: pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces))
        }
    }
}
