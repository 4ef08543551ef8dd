import ArgumentParser
import Foundation
import XZSystem
import XZProtocol
import XZHostCore
import XZHostAssembly
import XZPlaybackValues
#if canImport(Glibc)
import Glibc
#endif

extension ReplayGainMode: ExpressibleByArgument {}

struct Play: AsyncLibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play songs: replace the queue and start.",
        discussion: "Each SONG is #ID, a number, an audio file, or a search (quote searches of several words). "
            + "With a host running (the prompt or 'xzmusic serve') the host plays them. Otherwise, and always with "
            + "--output, --realtime or --json, the queue plays here to its end: exit 0 when every track played, "
            + "1 when any failed.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Songs to play.", valueName: "song")) var songs: [String] = []
    @Option(help: ArgumentHelp("Play here into \(OutputSpec.usage).", valueName: "output"),
            transform: OutputSpec.init(parsing:))
    var output: OutputSpec?
    @Flag(help: "Pace file outputs to real time (playing here).") var realtime = false
    @Flag(help: "Print events as JSON lines (playing here).") var json = false
    @Flag(help: "Keep http(s) URLs that are no catalogue song in the library once fetched (playing here).")
    var keep = false
    @Option(name: .customLong("replay-gain"),
            help: ArgumentHelp("ReplayGain: off, track, album or auto (playing here; else the config's replay_gain_mode).",
                               valueName: "mode"))
    var replayGain: ReplayGainMode?
    @Option(help: ArgumentHelp("Seconds the end of a song overlaps the next (0: gapless); kept by the player.",
                               valueName: "seconds"), transform: Crossfade.seconds(parsing:))
    var crossfade: Int?

    /// Options that only make sense for a player of this process.
    private var playsHere: Bool { output != nil || realtime || json || keep || replayGain != nil }

    @MainActor func run(in context: CommandContext) async throws {
        if !playsHere, let door = try context.door ?? context.connectToHost() {
            context.door = door
            let setCrossfade = crossfade.map { [MPDRequest(name: "crossfade", arguments: [String($0)])] } ?? []
            if songs.isEmpty {
                try context.withPlayer { door in
                    try door.runList(setCrossfade)
                    let status = try door.status()
                    guard status.playlistLength > 0 else { throw CommandError.emptyQueue }
                    switch status.state {
                    case .stop: try door.run("play")
                    case .pause: try door.run("pause", ["0"])
                    case .play: break
                    }
                }
                return
            }
            // One command list: no other client sees the queue emptied or half filled.
            let requests = setCrossfade + [MPDRequest(name: "clear")] + MPDRequest.adds(try context.playables(for: songs))
                + [MPDRequest(name: "play", arguments: ["0"])]
            _ = try context.withPlayer { try $0.runList(requests) }
            return
        }
        guard !songs.isEmpty else { throw ValidationError("name at least one song to play") }
        let playables = try context.playables(for: songs)
        var configuration = try HostConfiguration.load(output: output)
        configuration.realtime = realtime
        configuration.keepsURLs = keep
        if let replayGain { configuration.replayGain.mode = replayGain }
        if let crossfade { configuration.crossfade.seconds = crossfade }
        let running = try await context.startHost(configuration, listening: .nowhere,
                                                  showing: PlaybackSession(console: context.console, presentation: json ? .json : .text))
        let items: [QueueItem]
        do {
            items = try queueItems(playables, host: running.host)
        } catch {
            await running.stop()
            throw error
        }
        // Ctrl-C, SIGTERM and a closed terminal stop playback cleanly: the current track ends as
        // "stopped", its play session is saved and the output is closed.
        let interrupted = InterruptFlag()
        let signals = SignalWatch([SIGINT, SIGTERM, SIGHUP]) { number in
            // Seeing the flag leads to shutdown, which ignores a later stop(): the flag shows only once stop() is in.
            interrupted.set(number) { running.stopPlaying() }
        }
        running.play(items)
        // A signal that came before the queue started stopped nothing: stopped now, the wait below ends.
        if interrupted.signal != nil { running.stopPlaying() }
        // Waiting blocks the main thread, which is no thread of the cooperative pool.
        running.waitUntilFinished()
        let failed = running.failedTrackCount
        await running.stop()
        signals.cancel()
        if let number = interrupted.signal { throw ExitCode(128 + number) }
        if failed > 0 { throw ExitCode.failure }
    }
}

extension Play {
    /// The songs to play here; a playlist's URL (by its suffix) gives the streams its lines name (its
    /// other lines are another machine's files, never read here). One that cannot be read stops the play.
    private func queueItems(_ playables: [Playable], host: PlayerHost) throws -> [QueueItem] {
        var items: [QueueItem] = []
        // The user's own files by path, through the host's one resolver, as a local client's `add`.
        let resolver = SongResolver(host: host, allowsAbsolute: true)
        for playable in playables {
            if case .file(let path) = playable {
                // A file that is gone or unreadable is queued still: playing it says what is wrong, the rest plays on.
                items += (try? resolver.items(path)) ?? [QueueItem(playable, database: host.database)]
                continue
            }
            guard case .stream(let url) = playable, RemotePlaylist.format(ofURL: url) != nil else {
                items.append(QueueItem(playable, database: host.database))
                continue
            }
            do {
                let entries = try host.remotePlaylist(url, maxEntries: host.maxQueueLength)
                items += entries.filter { QueueItem.isStreamURL($0.location) }
                    .map { QueueItem(.stream($0.location), database: host.database) }
            } catch {
                throw CommandError.failed("\(url.safe): \(error)")
            }
        }
        return items
    }
}

struct Add: PlayerCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Append songs to the queue.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Songs to add.", valueName: "song")) var songs: [String]

    func run(on door: HostDoor, context: CommandContext) throws {
        let playables = try context.playables(for: songs)
        // The adds and the count that follows them, in one command list.
        let status = PlayerStatus(try door.runList(MPDRequest.adds(playables) + [MPDRequest(name: "status")]))
        context.console.line("added \(playables.count) to the queue (\(status.playlistLength) in all)")
    }
}
