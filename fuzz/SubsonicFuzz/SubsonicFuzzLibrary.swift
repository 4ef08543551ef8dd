import Foundation
import XZAccounts
import XZCatalogue
import XZHostCore
import XZSubsonicAPI
import XZSystem
import XZTestSupport

/// The real library the API fuzzer asks: a temporary folder (removed at exit) with a small music folder —
/// two MP3s and a cover, a CJK-named MP3, a FLAC — the demo catalogue, two users (`fuzz`, the owner and
/// an admin; `guest`, with an API key), and beside the music folder a folder named by the canary that no
/// answer may ever show.
final class SubsonicFuzzLibrary: @unchecked Sendable {  // used from the fuzzing thread only
    let root: URL
    let music: URL
    /// A word chosen at random when the process starts, never in a seed or an input: the folder beside the
    /// music folder, its song's tags, its cover's and its file's bytes. A reply holding it shows what the
    /// API read outside the library.
    let canary = "k" + String(UInt64.random(in: 1 << 60...UInt64.max), radix: 36)
    let host: PlayerHost
    let accounts: AccountStore
    let library: SubsonicLibrary
    let router: SubsonicRouter
    let guestKey: String
    /// Sample values of the library, by kind (`song`, `album`, `artist`, `folder`, `playlist`).
    private(set) var ids: [String: [String]] = [:]

    static let password = "fuzz-pw"

    init() throws {
        root = ProcessInfo.processInfo.environment["XZ_FUZZ_ROOT"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("xzmusic-subsonic-fuzz-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        music = root.appendingPathComponent("music")
        try Self.makeMusic(in: music)
        try Self.makeOutside(in: root, canary: canary, music: music)
        let folder = LibraryFolder(url: root.appendingPathComponent("library"))
        let demo = ProcessInfo.processInfo.environment["XZ_FUZZ_DEMO"].map { URL(fileURLWithPath: $0) }
        let database = try folder.open(seedingDemoFrom: demo)
        host = PlayerHost(folder: folder, database: database, output: .null, musicDirectory: music, seed: 1) { _ in }
        host.scanMusicFolderIfUnscanned()
        host.updates.wait()
        accounts = AccountStore(library: folder, database: database)
        try accounts.add(name: "fuzz", password: Self.password)
        try accounts.add(name: "guest", password: "guest-pw")
        guestKey = try accounts.newAPIKey(name: "guest")
        var settings = SubsonicSettings(cacheFolder: root.appendingPathComponent("cache"))
        settings.maxTranscodes = 2
        settings.transcodeCacheBytes = 32 << 20
        settings.coverCacheBytes = 8 << 20
        library = SubsonicLibrary(host: host, accounts: accounts, settings: settings)
        router = SubsonicRouter(library: library)
        try collectIDs(database)
    }

    /// Puts back what an input may have changed that would hide the rest from later inputs: the users
    /// and their passwords, the host's player.
    func reset() {
        for user in (try? accounts.list()) ?? [] where user.name != "fuzz" && user.name != "guest" {
            try? accounts.remove(name: user.name)
        }
        try? accounts.setPassword(name: "fuzz", password: Self.password)
        if (try? accounts.user(named: "guest")) == nil {
            _ = try? accounts.add(name: "guest", password: "guest-pw")
        }
        _ = try? accounts.update(name: "guest", isAdmin: false, mayJukebox: false)
        host.stop()
        host.clearQueue()
        host.updates.wait()
    }

    func remove() {
        host.shutdown()
        try? FileManager.default.removeItem(at: root)
    }

    /// Whether a path a file reply would send lies in the music folder, the API's cache, or the library
    /// folder's songs (downloads and the demo's) — never its database, key file or state.
    func mayServe(_ path: String) -> Bool {
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        func within(_ folder: URL) -> Bool {
            let base = folder.resolvingSymlinksInPath().path
            return real.hasPrefix(base + "/")
        }
        if within(music) || within(library.settings.cacheFolder) { return true }
        let name = URL(fileURLWithPath: real).lastPathComponent
        return within(host.folder.url) && !name.hasPrefix("library.sqlite") && !name.hasSuffix(".key") && !name.hasSuffix(".state")
    }

    private func collectIDs(_ database: LibraryDatabase) throws {
        let songs = try database.localSongs()
        ids["song"] = songs.prefix(6).map { SubsonicID.song($0.id).text }
        // Rows are numbered from 1: the first few albums are the music folder's and the demo's.
        ids["album"] = (1...4).map { SubsonicID.album($0).text }
        ids["artist"] = Array(Set(songs.map(\.singerId))).sorted().prefix(4).map { SubsonicID.artist($0).text }
        ids["folder"] = ["", "album", "音乐", "flac"].map { SubsonicID.folder($0).text }
        ids["playlist"] = ["mix", "列表"].map { SubsonicID.playlist($0).text }
        ids["radio"] = [SubsonicID.radioStation(1).text]
    }

    private static func makeOutside(in root: URL, canary: String, music: URL) throws {
        let folder = root.appendingPathComponent(canary)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: folder.appendingPathComponent("song.mp3").path, seconds: 1,
                                  tags: .init(title: canary, artist: canary, album: canary))
        var cover = try Data(contentsOf: music.appendingPathComponent("album/cover.jpg"))
        cover.insert(contentsOf: Data(canary.utf8), at: 20)
        try cover.write(to: folder.appendingPathComponent("cover.jpg"))
        try Data(canary.utf8).write(to: folder.appendingPathComponent("\(canary).txt"))
        // Reached by inputs as `../outside` from the music folder.
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("outside").path, withDestinationPath: canary)
    }

    private static func makeMusic(in music: URL) throws {
        let fm = FileManager.default
        for folder in ["album", "音乐", "flac"] {
            try fm.createDirectory(at: music.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        for (index, title) in ["One", "Two"].enumerated() {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("album/\(index + 1).mp3").path, seconds: 1,
                                      tags: .init(title: title, artist: "Band", album: "LP", track: index + 1, year: 1999))
        }
        try AudioFixtures.makeMP3(at: music.appendingPathComponent("音乐/晴天.mp3").path, seconds: 1,
                                  tags: .init(title: "晴天", artist: "周杰伦", album: "叶惠美", track: 1, year: 2003))
        // A tiny JPEG (SOI, APP0 JFIF, EOI): enough for a cover's bytes.
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
            + [UInt8](repeating: 0x55, count: 300) + [0xFF, 0xD9]
        try Data(jpeg).write(to: music.appendingPathComponent("album/cover.jpg"))
        try TestProcess.runChecked("sox", ["-n", "--comment", "TITLE=Flac Tone", "-r", "44100", "-c", "2", "-b", "16",
                                           music.appendingPathComponent("flac/tone.flac").path, "synth", "1", "sine", "330"])
    }
}

struct FuzzSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Writes to standard error unbuffered, as a finding's last words must arrive before the abort.
func printError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
