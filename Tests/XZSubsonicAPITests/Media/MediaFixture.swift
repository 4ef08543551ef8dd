import Foundation
import XZAccounts
import XZCatalogue
import XZFolderScan
import XZHostCore
import XZSubsonicAPI
import XZSystem
import XZTestSupport

/// A library of generated songs in every format the media tests stream: 6 s of pink noise as MP3, FLAC,
/// Ogg Vorbis, Opus, M4A (AAC) and WAV, a 96 kHz 24-bit FLAC, a mono 22.05 kHz WAV, and a CUE rip of three
/// tracks; the host on the null output, and the API's library over it.
final class MediaFixture: Sendable {
    static let seconds = 6.0
    let folder: TemporaryFolder
    let music: URL
    let host: PlayerHost
    let library: SubsonicLibrary
    /// Song ids by file name in the music folder ("song.mp3", "Rip/image.cue/track0002").
    let songs: [String: Int64]

    static let formats: [(name: String, arguments: [String])] = [
        ("song.mp3", ["-c:a", "libmp3lame", "-b:a", "160k"]),
        ("song.flac", ["-c:a", "flac"]),
        ("song.ogg", ["-c:a", "libvorbis", "-q:a", "4"]),
        ("song.opus", ["-c:a", "libopus", "-b:a", "96k"]),
        ("song.m4a", ["-c:a", "aac", "-b:a", "128k"]),
        ("song.wav", ["-c:a", "pcm_s16le"]),
        ("hires.flac", ["-ar", "96000", "-sample_fmt", "s32", "-c:a", "flac"]),
        ("mono.wav", ["-ar", "22050", "-ac", "1", "-c:a", "pcm_s16le"]),
    ]

    init(settings adjust: (inout SubsonicSettings) -> Void = { _ in }) throws {
        folder = try TemporaryFolder("media")
        music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        for (name, arguments) in Self.formats {
            let title = (name as NSString).deletingPathExtension + " " + (name as NSString).pathExtension
            try TestProcess.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
                                                  "anoisesrc=d=\(Self.seconds):c=pink:r=44100:a=0.3", "-ac", "2"]
                + arguments + ["-metadata", "title=\(title)", "-metadata", "artist=Noise", music.appendingPathComponent(name).path])
        }
        try CueFixtures.makeRip(in: music.appendingPathComponent("Rip"))
        let libraryFolder = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let database = try libraryFolder.open(seedingDemoFrom: nil)
        try database.importFolder(at: music)
        host = PlayerHost(folder: libraryFolder, database: database, output: .null, musicDirectory: music) { _ in }
        var settings = SubsonicSettings(cacheFolder: folder.url.appendingPathComponent("cache"))
        adjust(&settings)
        library = SubsonicLibrary(host: host, accounts: AccountStore(library: libraryFolder, database: database), settings: settings)
        let root = music.standardizedFileURL.resolvingSymlinksInPath().path
        var songs: [String: Int64] = [:]
        for name in Self.formats.map(\.name) + (1...3).map({ "Rip/image.cue/track000\($0)" }) {
            guard let song = try database.song(localPath: root + "/" + name) else { throw TestFailure("\(name) was not imported") }
            songs[name] = song.id
        }
        self.songs = songs
    }

    deinit { host.shutdown() }

    var transcodeFolder: URL { library.settings.cacheFolder.appendingPathComponent("transcodes") }

    func song(_ name: String) throws -> Song {
        guard let id = songs[name], let song = try host.database.song(id: id) else { throw TestFailure("no song \(name)") }
        return song
    }

    func request(_ name: String, _ parameters: [(String, String)] = [], endpoint: String = "stream",
                 range: String? = nil, isHead: Bool = false) throws -> SubsonicRequest {
        guard let id = songs[name] else { throw TestFailure("no song \(name)") }
        return SubsonicRequest(endpoint: endpoint, parameters: [("id", "so-\(id)")] + parameters.map { (name: $0.0, value: $0.1) },
                               isHead: isHead, range: range, clientAddress: "127.0.0.1")
    }

    /// The endpoint's answer through the API's own table, as the transport calls it.
    func answer(_ request: SubsonicRequest) throws -> SubsonicReply {
        guard let endpoint = SubsonicEndpoints.all[request.endpoint] else {
            throw TestFailure("no endpoint \(request.endpoint)")
        }
        return try endpoint.answer(SubsonicCall(request: request, user: nil, library: library))
    }
}

/// A client that takes every byte; it leaves (its writes throw) after `leaveAfter` bytes, or waits on
/// `gate` before its first write.
final class CollectingSink: MediaSink {
    struct ClientGone: Error {}
    private let collected = Mutex<[UInt8]>([])
    private let leaveAfter: Int?
    let gate: DispatchSemaphore?
    let started = DispatchSemaphore(value: 0)

    init(leaveAfter: Int? = nil, gate: DispatchSemaphore? = nil) {
        self.leaveAfter = leaveAfter
        self.gate = gate
    }

    var bytes: [UInt8] { collected.withLock { $0 } }

    func write(_ bytes: [UInt8]) throws {
        let first = collected.withLock { $0.isEmpty }
        if first {
            started.signal()
            gate?.wait()
        }
        try collected.withLock { held in
            if let leaveAfter, held.count + bytes.count > leaveAfter { throw ClientGone() }
            held += bytes
        }
    }
}

/// What ffmpeg makes of encoded bytes: their length when decoded, their size, and their codec.
struct DecodedMedia {
    let seconds: Double
    let bytes: Int
    let codec: String

    init(_ bytes: [UInt8], in folder: TemporaryFolder, name: String) throws {
        let path = folder.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Decoded to 8 kHz mono s16: two bytes a sample, 16,000 a second.
        let pcm = try TestProcess.runChecked("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-ar", "8000", "-"]).stdoutData
        seconds = Double(pcm.count) / 16_000
        self.bytes = bytes.count
        codec = try TestProcess.runChecked("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name",
                                                       "-of", "default=nw=1:nk=1", path]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Average kbit/s over the decoded length.
    var kbps: Double { Double(bytes) * 8 / seconds / 1000 }
}
