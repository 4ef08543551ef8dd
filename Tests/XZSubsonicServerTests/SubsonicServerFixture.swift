import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest
import XZAccounts
import XZCatalogue
import XZHostCore
import XZSubsonicAPI
import XZSubsonicServer
import XZTestSupport

/// A real host (null output) over a music folder of one generated MP3, its users — `owner` (the admin,
/// password "sesame"), `bob` (a user, password "bobpw", with an API key) — and the API's server on
/// 127.0.0.1, a port picked by the system.
// Its properties are set in init and only read after, by the test and the requests it sends at once.
final class SubsonicServerFixture: @unchecked Sendable {
    // Held for one test's length, by that test alone.
    let folder: TemporaryFolder
    let music: URL
    let host: PlayerHost
    let accounts: AccountStore
    let server: SubsonicServer
    let port: Int
    let bobKey: String
    let session: URLSession

    static let songPath = "Artist/Album/01 Song.mp3"

    init(limits: SubsonicServerLimits = SubsonicServerLimits(), withSong: Bool = true,
         endpoints: [String: SubsonicEndpoint] = SubsonicEndpoints.all) async throws {
        folder = try TemporaryFolder("subsonic-server")
        music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        if withSong {
            let url = music.appendingPathComponent(Self.songPath)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try TestProcess.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                                                  "-c:a", "libmp3lame", "-b:a", "128k", "-metadata", "title=Song",
                                                  "-metadata", "artist=Artist", "-metadata", "album=Album", url.path])
        }
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let database = try library.open(seedingDemoFrom: nil)
        host = PlayerHost(folder: library, database: database, output: .null, musicDirectory: music, seed: 3) { _ in }
        host.scanMusicFolderIfUnscanned()
        host.updates.wait()
        accounts = AccountStore(library: library, database: database)
        try accounts.add(name: "owner", password: "sesame", email: "owner@example.org")
        try accounts.add(name: "bob", password: "bobpw")
        bobKey = try accounts.newAPIKey(name: "bob")
        var settings = SubsonicSettings(cacheFolder: folder.url.appendingPathComponent("cache"))
        settings.port = 0
        server = SubsonicServer(library: SubsonicLibrary(host: host, accounts: accounts, settings: settings), limits: limits,
                                endpoints: endpoints)
        port = try await server.start(address: "127.0.0.1", port: 0)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 1200
        configuration.timeoutIntervalForRequest = 120
        session = URLSession(configuration: configuration)
    }

    func stop() async {
        session.invalidateAndCancel()
        await server.stop()
        host.shutdown()
    }

    var base: String { "http://127.0.0.1:\(port)" }

    /// The owner's clear-password credentials, as a query.
    static let owner = "u=owner&p=sesame&v=1.16.1&c=test"
    static let bob = "u=bob&p=bobpw&v=1.16.1&c=test"

    /// md5(password + salt) in lowercase hex, as clients compute the token.
    static func token(_ password: String, salt: String) -> String {
        Insecure.MD5.hash(data: Data((password + salt).utf8)).map { String(format: "%02x", $0) }.joined()
    }

    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: Data

        var text: String { String(decoding: body, as: UTF8.self) }

        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }

        /// The JSON envelope's `subsonic-response`.
        func envelope(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            return try XCTUnwrap(object?["subsonic-response"] as? [String: Any], "no subsonic-response in \(text)", file: file, line: line)
        }

        /// The error code of a failed JSON response; nil for an ok one.
        func errorCode(file: StaticString = #filePath, line: UInt = #line) throws -> Int? {
            let envelope = try envelope(file: file, line: line)
            guard envelope["status"] as? String == "failed" else {
                XCTAssertEqual(envelope["status"] as? String, "ok", file: file, line: line)
                return nil
            }
            return (envelope["error"] as? [String: Any])?["code"] as? Int
        }
    }

    func request(_ pathAndQuery: String, method: String = "GET", body: Data? = nil, contentType: String? = nil,
                 headers: [String: String] = [:]) async throws -> Reply {
        var request = URLRequest(url: URL(string: base + pathAndQuery)!)
        request.httpMethod = method
        request.httpBody = body
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)"] = "\(value)" }
        return Reply(status: http.statusCode, headers: fields, body: data)
    }

    /// `/rest/NAME?query` with JSON asked for.
    func json(_ endpoint: String, _ query: String) async throws -> Reply {
        try await request("/rest/\(endpoint)?f=json&\(query)")
    }

    /// The error code of `/rest/NAME?query` in JSON; nil for ok.
    func code(_ endpoint: String, _ query: String, file: StaticString = #filePath, line: UInt = #line) async throws -> Int? {
        let reply = try await json(endpoint, query)
        XCTAssertEqual(reply.status, 200, reply.text, file: file, line: line)
        return try reply.errorCode(file: file, line: line)
    }

    /// The catalogue's one song's id.
    func songID() throws -> String {
        let song = try XCTUnwrap(try host.database.localSongs().first)
        return SubsonicID.song(song.id).text
    }
}
