import Foundation
import XZDownloader
import XZMPRIS
import XZPlaybackEngine
import XZPlaybackValues
import XZSystem

/// Everything a host of one library is started from: the host's config keys (`HostSettings`), the audio
/// output, how streams are fetched, ReplayGain and crossfade. Read from the config file once; a command's
/// options then change what they override.
package struct HostConfiguration: Sendable {
    package var settings: HostSettings
    package var output: OutputSpec
    /// The config file whose `audio_output` blocks the host plays to; nil when it has none, or when this run
    /// chose its output (`--output`, `$XZMUSIC_OUTPUT`), which wins over the blocks.
    package var outputBlocks: ConfigFile?
    /// File outputs paced to real time (`play --realtime`).
    package var realtime = false
    /// How streams are fetched and kept (`online_cache`, the prebuffer).
    package var downloads: DownloadSettings
    package var replayGain: ReplayGainSettings
    package var crossfade: CrossfadeSettings
    /// Plain URLs played here are kept in the library too (`play --keep`).
    package var keepsURLs = false
    /// The bus and cover folder of MPRIS, on when `settings.mpris`.
    package var mpris = MPRISSettings()
    /// A headless host, whose work is answering clients, makes every song's record before the first
    /// listing (`MPDService.watchCatalogue`); a prompt keeps its memory.
    package var makesRecordsAhead = false
    /// Says that MPRIS is off for want of a session bus: in `serve`'s log, once; a prompt on a machine
    /// without a desktop session would say it at every start.
    package var notesMissingSessionBus = false
    /// Keys that could not be read and were left at their defaults, one line each, told when the host starts.
    package private(set) var notes: [String] = []

    /// The host's keys must be valid: a bad one is an error naming its line. The player's own keys
    /// (ReplayGain, crossfade) and the downloader's fall back to their defaults with a note, so a bad
    /// one never stops the music.
    /// `output`: nil for `$XZMUSIC_OUTPUT`, else the system's default output.
    package init(config: ConfigFile, output: OutputSpec? = nil,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        settings = try HostSettings(config: config)
        let chosen = try output ?? environment["XZMUSIC_OUTPUT"].map(OutputSpec.init(parsing:))
        self.output = chosen ?? .systemDefault
        let blocks = config.blocks(named: "audio_output").count
        if blocks > 0, let chosen {
            notes.append("output \(chosen) chosen for this run: the \(blocks) audio_output block\(blocks == 1 ? "" : "s") of \(config.source) are not used")
        }
        outputBlocks = blocks > 0 && chosen == nil ? config : nil
        // A config file the downloader cannot read must not stop playing files: its defaults stream.
        downloads = (try? DownloadSettings(config: config)) ?? DownloadSettings()
        do {
            replayGain = try ReplayGainSettings(config: config)
        } catch {
            replayGain = ReplayGainSettings()
            notes.append("\(error); ReplayGain stays off")
        }
        do {
            crossfade = try CrossfadeSettings().reading(config)
        } catch {
            crossfade = CrossfadeSettings()
            notes.append("\(error); crossfade keys ignored")
        }
    }

    /// The one output `output` stands for, the outputs of the config's `audio_output` blocks (none without
    /// blocks: the host plays to `output`), and a line for each block left out. With blocks that all failed,
    /// the host plays to `output` and says so.
    package func makeOutputs() throws -> (output: NamedOutput, outputs: [NamedOutput], notes: [String]) {
        let single = try AudioOutputTypes.output(for: output, realtime: realtime)
        guard let outputBlocks else { return (single, [], []) }
        let made = AudioOutputTypes.outputs(of: outputBlocks)
        let fallback = made.outputs.isEmpty ? ["no audio_output block could be used; playing to the \(output) output"] : []
        return (single, made.outputs, made.notes + fallback)
    }

    /// The config file's configuration (`ConfigFile.load`); a file that cannot be read is an error.
    package static func load(output: OutputSpec? = nil,
                            environment: [String: String] = ProcessEnvironment.variables("XDG_CONFIG_HOME", "HOME", "XZMUSIC_OUTPUT"))
        throws -> HostConfiguration {
        try HostConfiguration(config: ConfigFile.load(environment: environment), output: output, environment: environment)
    }
}
