import Foundation
import XZSystem
import GRDB
import XCTest
import XZCatalogue
@testable import XZDownloader
import XZTestSupport

/// MP3 bodies made once per test run with sox and lame, kept in memory.
enum MP3Bodies {
    private static let cache = Mutex<[String: Data]>([:])

    static func make(seconds: Double, frequency: Int, bitrate: Int = 128) throws -> Data {
        let name = "tone-\(seconds)-\(frequency)-\(bitrate).mp3"
        if let data = cache.withLock({ $0[name] }) { return data }
        let folder = try TemporaryFolder("download-fixture")
        let path = folder.path(name)
        try AudioFixtures.makeMP3(at: path, seconds: seconds, frequency: frequency, lameOptions: ["-b", "\(bitrate)"])
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        cache.withLock { $0[name] = data }
        return data
    }

    /// About 32 KB.
    static func small() throws -> Data { try make(seconds: 2, frequency: 440) }
    /// About 320 KB.
    static func medium(frequency: Int = 440) throws -> Data { try make(seconds: 20, frequency: frequency) }
}

/// A library in a temporary folder with songs pointing at a test server.
final class DownloadFixture {
    let temporary: TemporaryFolder
    let library: LibraryFolder
    let database: LibraryDatabase
    let server: TestHTTPServer
    var settings = DownloadSettings()

    init(_ label: String = "download", handler: @escaping TestHTTPServer.Handler) throws {
        temporary = try TemporaryFolder(label)
        library = LibraryFolder(url: temporary.url.appendingPathComponent("library"))
        database = try library.open(seedingDemoFrom: nil)
        server = try TestHTTPServer(handler: handler)
        settings.initialBackoff = 0.01
        settings.maxBackoff = 0.05
        settings.idleTimeout = 5
        settings.retries = 3
        settings.progressInterval = 0.05
        settings.lyricsServer = server.base
    }

    deinit { server.stop() }

    /// Imports songs from feed fields (source_id, title, singer, album, track, audio_url, …).
    func addSongs(_ songs: [[String: Any]]) throws {
        let url = temporary.url.appendingPathComponent("feed-\(UUID().uuidString).jsonl")
        let lines = songs.map { fields -> String in
            let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        let summary = try database.importFeed(at: url)
        XCTAssertEqual(summary.failed, 0, summary.problems.joined(separator: "; "))
    }

    func song(_ sourceId: String) throws -> Song {
        let id = try database.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM song WHERE song_key = ?", arguments: ["src:\(sourceId)"])
        }
        guard let id, let song = try database.song(id: id) else { throw XCTSkip("no song \(sourceId)") }
        return song
    }

    func manager() -> DownloadManager {
        DownloadManager(database: database, library: library, settings: settings)
    }

    /// Enqueues the songs, waits for the queue to drain, shuts down; returns the tasks.
    @discardableResult
    func download(_ sourceIds: [String]) async throws -> [DownloadTaskInfo] {
        let manager = manager()
        let songs = try sourceIds.map { try song($0) }
        try await manager.enqueue(songs: songs)
        await manager.waitUntilIdle()
        let tasks = try await manager.tasks()
        await manager.shutdown()
        return tasks
    }

    /// Every file under `songs/`, relative to the library folder.
    func songFiles() -> [String] {
        let root = library.url.appendingPathComponent("songs")
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return walker.compactMap { item -> String? in
            guard let name = item as? String else { return nil }
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root.appendingPathComponent(name).path, isDirectory: &isFolder)
            return isFolder.boolValue ? nil : "songs/" + name
        }.sorted()
    }

    func partFiles() -> [String] {
        let folder = library.url.appendingPathComponent("downloads").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".part") }.sorted()
    }

    func partSize(_ name: String) -> Int {
        let path = library.url.appendingPathComponent("downloads/\(name)").path
        return ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    /// Task rows as stored, by kind.
    func task(_ kind: DownloadKind, of sourceId: String, in tasks: [DownloadTaskInfo]) -> DownloadTaskInfo? {
        tasks.first { $0.songKey == "src:\(sourceId)" && $0.kind == kind }
    }
}

func sha256Hex(_ data: Data) -> String { Checksum.sha256Hex(data) }

/// A song's feed fields with an audio URL and no lyrics lookups worth making.
func songFields(_ id: String, title: String = "Song", singer: String = "Singer", album: String? = "Album",
                track: Int? = 1, url: String, extra: [String: Any] = [:]) -> [String: Any] {
    var fields: [String: Any] = ["source_id": id, "title": title, "singer": singer, "audio_url": url]
    if let album { fields["album"] = album }
    if let track { fields["track"] = track }
    for (key, value) in extra { fields[key] = value }
    return fields
}

/// Answers every LRCLIB request with TrackNotFound, for tests about audio.
func lyricsNotFound(_ request: TestHTTPServer.Request) -> TestHTTPServer.Response? {
    guard request.path.hasPrefix("/api/") else { return nil }
    return .json(404, ["message": "Failed to find specified track", "name": "TrackNotFound", "statusCode": 404])
}

/// A switch a test flips while the server's handler reads it.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var state = false
    var value: Bool {
        get { lock.withLock { state } }
        set { lock.withLock { state = newValue } }
    }
}
