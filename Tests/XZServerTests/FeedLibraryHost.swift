import Foundation
import XZCatalogue
@testable import XZServer
import XZTestSupport
import XZHostCore

/// A real host whose catalogue holds `titles.count` songs in no time: empty files `f/N.mp3` of its music
/// folder, named by a bundled feed, so a filter has a large library to run over.
final class FeedLibraryHost {
    let folder: TemporaryFolder
    let host: PlayerHost
    let server: ProtocolServer
    let port: Int

    init(titles: [String], limits: ServerLimits = ServerLimits()) throws {
        folder = try TemporaryFolder("feed-host")
        let music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("f"), withIntermediateDirectories: true)
        var feed = ""
        for (index, title) in titles.enumerated() {
            FileManager.default.createFile(atPath: music.appendingPathComponent("f/\(index).mp3").path, contents: nil)
            let object: [String: Any] = ["source_id": "\(index)", "title": title, "singer": "Singer \(index % 7)",
                                         "album": "Album \(index % 13)", "audio_file": "f/\(index).mp3"]
            feed += String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self) + "\n"
        }
        let feedURL = music.appendingPathComponent("feed.jsonl")
        try feed.write(to: feedURL, atomically: true, encoding: .utf8)
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let database = try library.open(seedingDemoFrom: nil)
        _ = try database.importFeed(at: feedURL, resolveBundledFiles: true)
        host = PlayerHost(folder: library, database: database, output: .null, musicDirectory: music) { _ in }
        server = ProtocolServer(host: host, password: nil, limits: limits)
        port = try server.listen(host: "127.0.0.1", port: 0)
    }

    func client() throws -> MPDClient { try MPDClient.connect(host: "127.0.0.1", port: port) }

    func shutdown() {
        server.shutdown()
        host.shutdown()
    }
}
