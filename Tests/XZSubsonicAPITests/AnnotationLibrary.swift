import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZHostCore
import XZMPDCommands
import XZStats
import XZTestSupport
@testable import XZSubsonicAPI

/// A host (null output) over four generated MP3s scanned into a real catalogue — `Band/Album/01.mp3` "One"
/// and `02.mp3` "Two", `Other/Record/01.mp3` "Three" and `02.mp3` "Four" — with four users: the owner (an
/// admin), `guest` and `third` (plain users) and `dj` (given the jukebox role). Endpoints are called as the
/// router calls them, MPD commands as a connection sends them.
final class AnnotationLibrary: @unchecked Sendable {
    // Held for the test's length only, by one test at a time.
    let folder: TemporaryFolder
    let host: PlayerHost
    let library: SubsonicLibrary
    let owner: LibraryUser
    let guest: LibraryUser
    let third: LibraryUser
    let dj: LibraryUser
    private var session = ClientSession(peer: .network, passwordRequired: false)
    private let service: MPDService

    init(seconds: Double = 1) throws {
        folder = try TemporaryFolder("annotate")
        let music = folder.url.appendingPathComponent("music")
        for (path, title, artist, album, track) in [("Band/Album/01.mp3", "One", "Band", "Album", 1), ("Band/Album/02.mp3", "Two", "Band", "Album", 2),
                                                    ("Other/Record/01.mp3", "Three", "Other", "Record", 1),
                                                    ("Other/Record/02.mp3", "Four", "Other", "Record", 2)] {
            let url = music.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            _ = try AudioFixtures.makeMP3(at: url.path, seconds: seconds, tags: .init(title: title, artist: artist, album: album, track: track),
                                          lameOptions: ["-b", "64"])
        }
        let libraryFolder = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let database = try libraryFolder.open(seedingDemoFrom: nil)
        host = PlayerHost(folder: libraryFolder, database: database, output: .null, musicDirectory: music, seed: 7) { _ in }
        host.scanMusicFolderIfUnscanned()
        host.updates.wait()
        let accounts = AccountStore(library: libraryFolder, database: database)
        owner = try accounts.add(name: "owner", password: "secret")
        guest = try accounts.add(name: "guest", password: "secret")
        third = try accounts.add(name: "third", password: "secret")
        dj = try accounts.add(name: "dj", password: "secret", mayJukebox: true)
        library = SubsonicLibrary(host: host, accounts: accounts,
                                  settings: SubsonicSettings(cacheFolder: folder.url.appendingPathComponent("cache")))
        service = MPDService(host: host)
    }

    deinit { host.shutdown() }

    var database: LibraryDatabase { host.database }

    func song(_ title: String) throws -> Song {
        guard let song = try database.search(title, limit: 10).songs.first(where: { $0.title == title }) else {
            throw TestFailure("no song \(title)")
        }
        return song
    }

    func id(_ title: String) throws -> String { SubsonicID.song(try song(title).id).text }

    /// The album row of a song, as its Child names it.
    func albumID(_ song: Song) throws -> Int64 {
        guard let text = try library.children(of: [song]).first?.albumId, case .album(let id)? = SubsonicID(text) else {
            throw TestFailure("\(song.title) has no album")
        }
        return id
    }

    /// The reply `endpoint` answers `parameters` with, as `user`.
    @discardableResult
    func call(_ endpoint: String, _ parameters: [(String, String)] = [], as user: LibraryUser) throws -> SubsonicReply {
        guard let row = SubsonicEndpoints.all[endpoint] else { throw TestFailure("no endpoint \(endpoint)") }
        let request = SubsonicRequest(endpoint: endpoint, parameters: parameters.map { (name: $0.0, value: $0.1) },
                                      clientAddress: "127.0.0.1")
        return try row.answer(SubsonicCall(request: request, user: user, library: library))
    }

    /// The payload under `key` that `endpoint` answers with.
    func answer<Payload>(_ endpoint: String, _ parameters: [(String, String)] = [], as user: LibraryUser,
                         key: String, of type: Payload.Type) throws -> Payload {
        guard case .document(let document) = try call(endpoint, parameters, as: user) else { throw TestFailure("\(endpoint) answered no document") }
        XCTAssertEqual(document.key, key)
        guard let typed = document.payload as? Payload else { throw TestFailure("\(endpoint) answered \(String(describing: document.payload))") }
        return typed
    }

    /// Whether `endpoint` answers the envelope alone.
    func answersEmpty(_ endpoint: String, _ parameters: [(String, String)] = [], as user: LibraryUser) throws -> Bool {
        guard case .document(let document) = try call(endpoint, parameters, as: user) else { return false }
        return document.key == nil && document.payload == nil
    }

    /// The spec's code `endpoint` fails with, nil when it answers.
    func errorCode(_ endpoint: String, _ parameters: [(String, String)], as user: LibraryUser) -> Int? {
        do {
            try call(endpoint, parameters, as: user)
            return nil
        } catch let error as SubsonicError {
            return error.code
        } catch {
            return -1
        }
    }

    /// What an MPD client connected over the network reads in answer to `line`.
    func mpd(_ line: String) -> String {
        String(decoding: session.receive(line: line, service: service).bytes, as: UTF8.self)
    }

    /// The values of `name: value` lines of an MPD answer.
    func mpdValues(_ name: String, _ line: String) -> [String] {
        mpd(line).split(separator: "\n").compactMap { row in
            row.hasPrefix(name + ": ") ? String(row.dropFirst(name.count + 2)) : nil
        }
    }
}
