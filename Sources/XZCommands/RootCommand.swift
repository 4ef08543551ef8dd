import ArgumentParser
import Foundation
import XZText

/// Options every command takes; in the REPL the library is already open.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Library folder (default: $XZMUSIC_HOME, else $XDG_DATA_HOME/xzmusic).",
                                             valueName: "dir"))
    var library: String?
}

/// The one command table, shared by the one-shot CLI and the REPL.
package struct XZMusic: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "xzmusic",
        abstract: "A terminal music library and player with CJK-first search and synced lyrics.",
        discussion: "Run without a command to start the interactive prompt.",
        version: XZMusicVersion.string,
        subcommands: [
            Import.self, CatalogueCommand.self, Search.self, Find.self, SingerCommand.self, Info.self, LyricsCommand.self,
            Play.self, Add.self, Queue.self, Next.self, Prev.self, Pause.self, Stop.self, Seek.self, Volume.self,
            Crossfade.self, Outputs.self, Repeat.self, Shuffle.self, Now.self, PlaylistCommand.self, Like.self, Unlike.self, Liked.self, StatsCommand.self, History.self,
            Download.self, Downloads.self, LoudnessCommand.self, Fingerprint.self, Serve.self, Check.self, ConfigCommand.self,
            UserCommand.self,
        ])

    @OptionGroup var global: GlobalOptions

    package init() {}

    @MainActor package func run() async throws {
        try await Repl.run(options: global)
    }
}
