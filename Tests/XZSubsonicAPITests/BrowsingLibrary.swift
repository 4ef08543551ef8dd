import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZHostCore
import XZStats
import XZTestSupport
@testable import XZSubsonicAPI

/// A host (null output) over a generated music folder, scanned into a real catalogue, with two users:
/// - `王菲/红豆/` two MP3s (Pop, 1998), `周杰伦/叶惠美/` a FLAC of two genres (Pop and Mandopop, 2003) and an MP3,
///   `ヨルシカ/夜/` and `방탄소년단/Wings/` one MP3 each (J-Pop 2019, K-Pop 2016), `The Beatles/Abbey Road/` two
///   MP3s (Rock, 1969), `top.mp3` at the top (Solo), and `rip/` a FLAC image with `CueFixtures.sheet`'s three
///   tracks, all The Band's (The Album, Rock, 1999).
final class BrowsingLibrary: @unchecked Sendable {
    // Held for the test's length only, by one test at a time.
    let folder: TemporaryFolder
    let host: PlayerHost
    let library: SubsonicLibrary
    let owner: LibraryUser
    let guest: LibraryUser

    init() throws {
        folder = try TemporaryFolder("browse")
        let music = folder.url.appendingPathComponent("music")
        func mp3(_ path: String, _ title: String, _ artist: String, _ album: String?, track: Int?, year: Int?, genre: String?) throws {
            let url = music.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try AudioFixtures.makeMP3(at: url.path, seconds: 1, tags: .init(title: title, artist: artist, album: album, track: track, year: year),
                                      lameOptions: ["-b", "64"] + (genre.map { ["--tg", $0] } ?? []))
        }
        try mp3("王菲/红豆/02.mp3", "红豆", "王菲", "红豆", track: 2, year: 1998, genre: "Pop")
        try mp3("王菲/红豆/01.mp3", "当时的月亮", "王菲", "红豆", track: 1, year: 1998, genre: "Pop")
        try mp3("周杰伦/叶惠美/02.mp3", "晴天", "周杰伦", "叶惠美", track: 2, year: 2003, genre: "Pop")
        let flac = music.appendingPathComponent("周杰伦/叶惠美/01.flac").path
        try CueFixtures.makeFLAC(at: flac, seconds: 1)
        try TestProcess.runChecked("metaflac", ["--set-tag=TITLE=以父之名", "--set-tag=ARTIST=周杰伦", "--set-tag=ALBUM=叶惠美",
                                                "--set-tag=TRACKNUMBER=1", "--set-tag=DATE=2003", "--set-tag=GENRE=Pop",
                                                "--set-tag=GENRE=Mandopop", flac])
        try mp3("ヨルシカ/夜/01.mp3", "ただ君に晴れ", "ヨルシカ", "夜", track: 1, year: 2019, genre: "J-Pop")
        try mp3("방탄소년단/Wings/01.mp3", "Blood Sweat & Tears", "방탄소년단", "Wings", track: 1, year: 2016, genre: "K-Pop")
        try mp3("The Beatles/Abbey Road/01.mp3", "Come Together", "The Beatles", "Abbey Road", track: 1, year: 1969, genre: "Rock")
        try mp3("The Beatles/Abbey Road/02.mp3", "Something", "The Beatles", "Abbey Road", track: 2, year: 1969, genre: "Rock")
        try mp3("top.mp3", "Alone", "Solo", nil, track: nil, year: nil, genre: nil)
        // The shared sheet with every track The Band's, so the rip is one album of one artist.
        try CueFixtures.makeRip(in: music.appendingPathComponent("rip"),
                                sheet: CueFixtures.sheet.replacingOccurrences(of: #"PERFORMER "Singer A""#, with: ""))

        let libraryFolder = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let database = try libraryFolder.open(seedingDemoFrom: nil)
        host = PlayerHost(folder: libraryFolder, database: database, output: .null, musicDirectory: music, seed: 7) { _ in }
        host.scanMusicFolderIfUnscanned()
        host.updates.wait()
        let accounts = AccountStore(library: libraryFolder, database: database)
        owner = try accounts.add(name: "owner", password: "secret")
        guest = try accounts.add(name: "guest", password: "secret2")
        library = SubsonicLibrary(host: host, accounts: accounts,
                                  settings: SubsonicSettings(cacheFolder: folder.url.appendingPathComponent("cache")))
    }

    deinit { host.shutdown() }

    var database: LibraryDatabase { host.database }

    /// Every song browsing should list: the files, the CUE tracks in place of their image.
    static let songCount = 9 + 3

    /// The reply `endpoint` answers `parameters` with, as `user` (the owner by default), from `library` (the
    /// fixture's by default), as the router calls it.
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

    func answer<Payload>(_ endpoint: String, _ parameters: [(String, String)] = [], as user: LibraryUser? = nil,
                         of type: Payload.Type) throws -> Payload {
        let payload = try payload(endpoint, parameters, as: user)
        guard let typed = payload as? Payload else { throw TestFailure("\(endpoint) answered \(Swift.type(of: payload))") }
        return typed
    }

    /// The error code `endpoint` fails with (its message one line), nil when it answers.
    func errorCode(_ endpoint: String, _ parameters: [(String, String)], from library: SubsonicLibrary? = nil) -> Int? {
        do {
            _ = try reply(endpoint, parameters, from: library)
            return nil
        } catch let error as SubsonicError {
            XCTAssertFalse(error.message.contains("\n"), error.message)
            return error.code
        } catch {
            return -1
        }
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

    func song(titled title: String) throws -> Song {
        guard let song = try database.search(title, limit: 5).songs.first(where: { $0.title == title }) else {
            throw TestFailure("no song \(title)")
        }
        return song
    }
}
