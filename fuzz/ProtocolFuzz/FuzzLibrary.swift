import Foundation
import XZCatalogue
import XZHostCore
import XZMPDCommands
import XZPlaybackEngine
import XZProtocol
import XZFuzzSupport
import XZSystem

/// The real host the fuzzer talks to: the music folder of a `FuzzFolder`, and a library beside it seeded
/// with the demo catalogue (CJK songs), updated once.
final class FuzzLibrary: @unchecked Sendable {  // used from the fuzzing thread only; `changes` is locked
    let folder: FuzzFolder
    var root: URL { folder.root }
    var canary: String { folder.canary }
    let host: PlayerHost
    let service: MPDService
    /// What the host announced since the session last heard of it, as the transport would collect it.
    let changes = Mutex(HostChanges())
    /// The library's names by placeholder of `MPDCommands.sampleArguments` (`song`, `folder`, …).
    private(set) var names: [String: [String]] = [:]

    init() throws {
        folder = try FuzzFolder(name: "xzmusic-protocol-fuzz")
        let root = folder.root
        let library = LibraryFolder(url: root.appendingPathComponent("library"))
        let demo = ProcessInfo.processInfo.environment["XZ_FUZZ_DEMO"].map { URL(fileURLWithPath: $0) }
        // Beside the null output, recorders on FIFOs nobody reads (raw PCM, and a WAV file through libao):
        // switching them may never hold the player.
        let fifos = ["raw.fifo", "wave.fifo"].map { [root] in root.appendingPathComponent($0).path }
        for fifo in fifos where mkfifo(fifo, 0o600) != 0 { throw FuzzSetupError("cannot make the FIFO \(fifo)") }
        let outputs = [NamedOutput.null, NamedOutput(name: "Raw FIFO", plugin: "recorder", output: RawFileOutput(path: fifos[0])),
                       NamedOutput(name: "Wave FIFO", plugin: "recorder", output: LibaoOutput(.file(driver: "wav", path: fifos[1])))]
        host = PlayerHost(folder: library, database: try library.open(seedingDemoFrom: demo), output: .null, outputs: outputs,
                          musicDirectory: folder.music, seed: 1) { _ in }
        service = MPDService(host: host)
        _ = host.observeChanges { [unowned self] change in changes.withLock { $0.formUnion(change) } }
        try update()
        collectNames()
    }

    /// Runs the lines on a fresh session and returns the answers, for set-up and reset.
    @discardableResult
    func answers(_ lines: [String]) -> String {
        var session = ClientSession(peer: .network, passwordRequired: false)
        return lines.map { String(decoding: session.receive(line: $0, service: service).bytes, as: UTF8.self) }.joined()
    }

    /// Puts the host back as it started: empty queue, options off, no stored playlists or stickers.
    func reset(stickers: Bool) {
        answers(["stop", "clear", "clearerror", "consume 0", "random 0", "repeat 0", "single 0", "crossfade 0",
                 "mixrampdelay nan", "mixrampdb 0", "replay_gain_mode off", "setvol 100", "enableoutput 0", "enableoutput 1",
                 "enableoutput 2"])
        let playlists = values("playlist", in: answers(["listplaylists"]))
        if !playlists.isEmpty { answers(playlists.map { "rm \(MPDRequest.quote($0))" }) }
        if stickers { answers((names["song"] ?? []).map { "sticker delete song \(MPDRequest.quote($0))" }) }
        changes.withLock { $0 = [] }
    }

    func remove() {
        host.shutdown()
        folder.remove()
    }

    private func update() throws {
        answers(["update"])
        let deadline = Date(timeIntervalSinceNow: 60)
        while answers(["status"]).contains("updating_db:") {
            guard Date() < deadline else { throw FuzzSetupError("the library update did not finish in 60 s") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    private func collectNames() {
        let listing = answers(["listall"])
        let catalogue = values("file", in: answers(["search any \"\""])).filter { !listing.contains("file: \($0)\n") }
        // The demo catalogue's songs sit under xzmusic/; the first few names of each kind differ in kind.
        let songs = values("file", in: listing)
        let demo = songs.filter { $0.hasPrefix("xzmusic/") }
        let own = songs.filter { !$0.hasPrefix("xzmusic/") }
        names["song"] = own.sorted { ($0.hasPrefix("album/") ? 1 : 0, $0) < ($1.hasPrefix("album/") ? 1 : 0, $1) }
        names["folder"] = values("directory", in: listing)
        names["catalogue"] = Array((catalogue + demo).prefix(4))
        names["playlist"] = ["mix", "列表", "a b"]
    }

    /// An answer line (not an ACK, which may repeat the client's words) holding the canary: a listing of the
    /// folder beside the music folder or of its parent, its song's tags, its cover's bytes.
    func leak(in answer: [UInt8]) -> String? {
        guard answer.count >= canary.utf8.count else { return nil }
        let text = String(decoding: answer, as: UTF8.self)
        guard text.contains(canary) else { return nil }
        return text.split(separator: "\n").first { !$0.hasPrefix("ACK ") && $0.contains(canary) }.map(String.init)
    }
}

/// The values of the `key: value` lines of an answer.
func values(_ key: String, in answer: String) -> [String] {
    answer.split(separator: "\n").compactMap { line in
        line.hasPrefix("\(key): ") ? String(line.dropFirst(key.count + 2)) : nil
    }
}
