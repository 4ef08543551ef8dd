import Foundation
import XZAccounts
import XZCatalogue
import XZFuzzSupport
import XZHostCore
import XZSubsonicAPI
import XZSystem

/// The real library the API fuzzer asks: the music folder of a `FuzzFolder`, the demo catalogue, and two
/// users (`fuzz`, the owner and an admin; `guest`, with an API key).
final class SubsonicFuzzLibrary: @unchecked Sendable {  // used from the fuzzing thread only
    let folder: FuzzFolder
    var music: URL { folder.music }
    var canary: String { folder.canary }
    let host: PlayerHost
    let accounts: AccountStore
    let library: SubsonicLibrary
    let router: SubsonicRouter
    let guestKey: String
    /// Sample values of the library, by kind (`song`, `album`, `artist`, `folder`, `playlist`).
    private(set) var ids: [String: [String]] = [:]

    static let password = "fuzz-pw"

    init() throws {
        folder = try FuzzFolder(name: "xzmusic-subsonic-fuzz")
        let libraryFolder = LibraryFolder(url: folder.root.appendingPathComponent("library"))
        let demo = ProcessInfo.processInfo.environment["XZ_FUZZ_DEMO"].map { URL(fileURLWithPath: $0) }
        let database = try libraryFolder.open(seedingDemoFrom: demo)
        host = PlayerHost(folder: libraryFolder, database: database, output: .null, musicDirectory: folder.music, seed: 1) { _ in }
        host.scanMusicFolderIfUnscanned()
        host.updates.wait()
        accounts = AccountStore(library: libraryFolder, database: database)
        try accounts.add(name: "fuzz", password: Self.password)
        try accounts.add(name: "guest", password: "guest-pw")
        guestKey = try accounts.newAPIKey(name: "guest")
        var settings = SubsonicSettings(cacheFolder: folder.root.appendingPathComponent("cache"))
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
        folder.remove()
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
            + Array(Set(songs.filter { $0.album == nil }.map(\.singerId))).sorted().map { SubsonicID.unknownAlbum($0).text }
        ids["artist"] = Array(Set(songs.map(\.singerId))).sorted().prefix(4).map { SubsonicID.artist($0).text }
        ids["folder"] = ["", "album", "音乐", "音乐/周杰伦", "flac"].map { SubsonicID.folder($0).text }
        ids["playlist"] = ["mix", "列表"].map { SubsonicID.playlist($0).text }
        ids["radio"] = [SubsonicID.radioStation(1).text]
    }
}
