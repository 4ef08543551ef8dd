import Foundation
import XZCatalogue
import XZHostCore
import XZMPDCommands
import XZPlaybackEngine
import XZProtocol
import XZSystem
import XZTestSupport

/// The real host the fuzzer talks to: a temporary folder (removed at exit) holding a small music folder —
/// three MP3s with a cover, a CJK-named MP3 with an embedded picture, a FLAC — and a library seeded with
/// the demo catalogue (CJK songs), updated once.
final class FuzzLibrary: @unchecked Sendable {  // used from the fuzzing thread only; `changes` is locked
    let root: URL
    /// A word chosen at random when the process starts, never in a seed or an input: the name of the folder
    /// beside the music folder, and of what it holds. An answer holding it shows what the host read outside
    /// the music folder, never a client's own words echoed back.
    let canary = "k" + String(UInt64.random(in: 1 << 60...UInt64.max), radix: 36)
    let host: PlayerHost
    let service: MPDService
    /// What the host announced since the session last heard of it, as the transport would collect it.
    let changes = Mutex(HostChanges())
    /// The library's names by placeholder of `MPDCommands.sampleArguments` (`song`, `folder`, …).
    private(set) var names: [String: [String]] = [:]

    init() throws {
        // XZ_FUZZ_ROOT: one folder for every run of a session, so the absolute names of the folder
        // beside the music folder in its corpus stay right.
        root = ProcessInfo.processInfo.environment["XZ_FUZZ_ROOT"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("xzmusic-protocol-fuzz-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        let music = root.appendingPathComponent("music")
        try Self.makeMusic(in: music)
        try Self.makeOutside(in: root, canary: canary, music: music)
        let library = LibraryFolder(url: root.appendingPathComponent("library"))
        let demo = ProcessInfo.processInfo.environment["XZ_FUZZ_DEMO"].map { URL(fileURLWithPath: $0) }
        // Beside the null output, recorders on FIFOs nobody reads (raw PCM, and a WAV file through libao):
        // switching them may never hold the player.
        let fifos = ["raw.fifo", "wave.fifo"].map { [root] in root.appendingPathComponent($0).path }
        for fifo in fifos where mkfifo(fifo, 0o600) != 0 { throw FuzzSetupError("cannot make the FIFO \(fifo)") }
        let outputs = [NamedOutput.null, NamedOutput(name: "Raw FIFO", plugin: "recorder", output: RawFileOutput(path: fifos[0])),
                       NamedOutput(name: "Wave FIFO", plugin: "recorder", output: LibaoOutput(.file(driver: "wav", path: fifos[1])))]
        host = PlayerHost(folder: library, database: try library.open(seedingDemoFrom: demo), output: .null, outputs: outputs,
                          musicDirectory: music, seed: 1) { _ in }
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
        try? FileManager.default.removeItem(at: root)
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

    /// The folder beside the music folder, named by the canary and reached by inputs through the link
    /// `Grammar.outsideAlias`: a song tagged with the canary, a cover and a file carrying it, none a client may reach.
    private static func makeOutside(in root: URL, canary: String, music: URL) throws {
        let folder = root.appendingPathComponent(canary)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: folder.appendingPathComponent("song.mp3").path, seconds: 1,
                                  tags: .init(title: canary, artist: canary))
        var cover = try Data(contentsOf: music.appendingPathComponent("album/cover.jpg"))
        cover.insert(contentsOf: Data(canary.utf8), at: 20)
        try cover.write(to: folder.appendingPathComponent("cover.jpg"))
        try Data(canary.utf8).write(to: folder.appendingPathComponent("\(canary).txt"))
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent(Grammar.outsideAlias).path,
                                                   withDestinationPath: canary)
    }

    private static func makeMusic(in music: URL) throws {
        let fm = FileManager.default
        for folder in ["album", "音乐/周杰伦", "flac"] {
            try fm.createDirectory(at: music.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        for (index, title) in ["One", "Two", "Three"].enumerated() {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("album/\(index + 1).mp3").path, seconds: 1,
                                      tags: .init(title: title, artist: "Band", album: "LP", track: index + 1, year: 1999))
        }
        // A tiny JPEG (SOI, APP0 JFIF, EOI): the picture commands hand out bytes, nobody decodes them.
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
            + [UInt8](repeating: 0x55, count: 300) + [0xFF, 0xD9]
        try Data(jpeg).write(to: music.appendingPathComponent("album/cover.jpg"))
        try ID3Builder.makeTaggedMP3(at: music.appendingPathComponent("音乐/周杰伦/晴天.mp3").path, frames: [
            ID3Builder.text("TIT2", .utf8, Array("晴天".utf8)), ID3Builder.text("TPE1", .utf8, Array("周杰伦".utf8)),
            ID3Builder.text("TALB", .utf8, Array("叶惠美".utf8)), ID3Builder.picture(mimeType: "image/jpeg", data: jpeg),
            ID3Builder.lyrics("[00:00.50]故事的小黄花"),
        ])
        try TestProcess.runChecked("sox", ["-n", "--comment", "TITLE=Flac Tone", "-r", "44100", "-c", "2", "-b", "16",
                                           music.appendingPathComponent("flac/tone.flac").path, "synth", "1", "sine", "330"])
    }
}

struct FuzzSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The values of the `key: value` lines of an answer.
func values(_ key: String, in answer: String) -> [String] {
    answer.split(separator: "\n").compactMap { line in
        line.hasPrefix("\(key): ") ? String(line.dropFirst(key.count + 2)) : nil
    }
}

/// Writes to standard error unbuffered, as a finding's last words must arrive before the abort.
func printError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
