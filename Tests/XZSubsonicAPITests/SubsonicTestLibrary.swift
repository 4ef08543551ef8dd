import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZHostCore
import XZStats
import XZTestSupport
@testable import XZSubsonicAPI

/// The API tests' one host set-up: a host (null output) over a music folder the subclass generates, scanned
/// into a real catalogue, with `owner` (the first user, an admin) and the users the subclass names (each
/// with the password "secret"). Endpoints are called as the router calls them.
// Its properties are set in init and only read after, from whichever thread a test calls an endpoint on.
class SubsonicTestLibrary: @unchecked Sendable {
    // Held for the test's length only, by one test at a time.
    let folder: TemporaryFolder
    let music: URL
    let host: PlayerHost
    let library: SubsonicLibrary
    let owner: LibraryUser
    private let users: [String: LibraryUser]

    /// `makeMusic` writes the songs into the music folder, which exists.
    init(label: String, users names: [(name: String, mayJukebox: Bool)] = [], makeMusic: (URL) throws -> Void) throws {
        folder = try TemporaryFolder(label)
        music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        try makeMusic(music)
        let libraryFolder = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let database = try libraryFolder.open(seedingDemoFrom: nil)
        host = PlayerHost(folder: libraryFolder, database: database, output: .null, musicDirectory: music, seed: 7) { _ in }
        host.scanMusicFolderIfUnscanned()
        host.updates.wait()
        let accounts = AccountStore(library: libraryFolder, database: database)
        owner = try accounts.add(name: "owner", password: "secret")
        var users: [String: LibraryUser] = [:]
        for user in names { users[user.name] = try accounts.add(name: user.name, password: "secret", mayJukebox: user.mayJukebox) }
        self.users = users
        library = SubsonicLibrary(host: host, accounts: accounts,
                                  settings: SubsonicSettings(cacheFolder: folder.url.appendingPathComponent("cache")))
    }

    deinit { host.shutdown() }

    var database: LibraryDatabase { host.database }

    /// A user the subclass named.
    func user(_ name: String) -> LibraryUser {
        guard let user = users[name] else { preconditionFailure("the fixture has no user \(name)") }
        return user
    }

    // MARK: Songs

    func song(titled title: String) throws -> Song {
        guard let song = try database.search(title, limit: 10).songs.first(where: { $0.title == title }) else {
            throw TestFailure("no song \(title)")
        }
        return song
    }

    /// The song's id as clients know it.
    func id(_ title: String) throws -> String { SubsonicID.song(try song(titled: title).id).text }

    /// Every local song of the catalogue, by title.
    func songs() throws -> [String: Song] {
        Dictionary(try database.localSongs().map { ($0.title, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// A counted play of `song` by `user`, as a client's scrobble records it.
    func play(_ song: Song, as user: LibraryUser, at date: Date = Date()) throws {
        try StatsStore(database: database, user: user.id).recordPlay(songKey: song.songKey, title: song.title, singer: song.singer,
                                                                     durationMs: 1000, at: date)
    }

    /// The song liked and played once by `user`.
    func likeAndPlay(_ song: Song, as user: LibraryUser) throws {
        try StatsStore(database: database, user: user.id).like(songKey: song.songKey)
        try play(song, as: user)
    }

    // MARK: Calls

    /// The reply `endpoint` answers `parameters` with, as `user` (the owner by default), from `library` (the
    /// fixture's by default), as the router calls it.
    @discardableResult
    func reply(_ endpoint: String, _ parameters: [(String, String)] = [], as user: LibraryUser? = nil,
               from library: SubsonicLibrary? = nil) throws -> SubsonicReply {
        guard let row = SubsonicEndpoints.all[endpoint] else { throw TestFailure("no endpoint \(endpoint)") }
        let request = SubsonicRequest(endpoint: endpoint, parameters: parameters.map { (name: $0.0, value: $0.1) },
                                      clientAddress: "127.0.0.1")
        return try row.answer(SubsonicCall(request: request, user: user ?? owner, library: library ?? self.library))
    }

    /// The payload `endpoint` answers `parameters` with, as `user` (the owner by default).
    func payload(_ endpoint: String, _ parameters: [(String, String)] = [], as user: LibraryUser? = nil) throws -> any Encodable {
        guard case .document(let document) = try reply(endpoint, parameters, as: user), let payload = document.payload else {
            throw TestFailure("\(endpoint) answered no document")
        }
        return payload
    }

    /// The payload `endpoint` answers with, of `type` (and under `key` when given).
    func answer<Payload>(_ endpoint: String, _ parameters: [(String, String)] = [], as user: LibraryUser? = nil,
                         key: String? = nil, of type: Payload.Type) throws -> Payload {
        guard case .document(let document) = try reply(endpoint, parameters, as: user), let payload = document.payload else {
            throw TestFailure("\(endpoint) answered no document")
        }
        if let key { XCTAssertEqual(document.key, key, endpoint) }
        guard let typed = payload as? Payload else { throw TestFailure("\(endpoint) answered \(Swift.type(of: payload))") }
        return typed
    }

    /// Whether `endpoint` answers the envelope alone.
    func answersEmpty(_ endpoint: String, _ parameters: [(String, String)] = [], as user: LibraryUser? = nil) throws -> Bool {
        guard case .document(let document) = try reply(endpoint, parameters, as: user) else { return false }
        return document.key == nil && document.payload == nil
    }

    /// The spec's code `endpoint` fails with (its message one line), nil when it answers; -1 for an error of
    /// another kind.
    func errorCode(_ endpoint: String, _ parameters: [(String, String)] = [], as user: LibraryUser? = nil,
                   from library: SubsonicLibrary? = nil) -> Int? {
        do {
            try reply(endpoint, parameters, as: user, from: library)
            return nil
        } catch let error as SubsonicError {
            XCTAssertFalse(error.message.contains("\n"), error.message)
            return error.code
        } catch {
            return -1
        }
    }
}
