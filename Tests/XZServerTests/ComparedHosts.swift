import Foundation
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport
import XZHostCore
import XZMPDCommands

/// Real MPD and this host on one music folder, both databases updated, and a client of each; `stop` ends both.
final class ComparedHosts {
    let mpd: RealMPD
    let host: PlayerHost
    let server: ProtocolServer
    let ours: MPDClient
    let theirs: MPDClient

    init(folder: TemporaryFolder, music: URL) throws {
        mpd = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"))
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        host = PlayerHost(folder: library, database: try library.open(seedingDemoFrom: nil), output: .null,
                          musicDirectory: music) { _ in }
        server = ProtocolServer(host: host, password: nil)
        do {
            ours = try MPDClient.connect(host: "127.0.0.1", port: try server.listen(host: "127.0.0.1", port: 0))
            _ = try ours.run("update")
            host.updates.wait()
            theirs = try mpd.connect()
        } catch {
            mpd.stop()
            server.shutdown()
            host.shutdown()
            throw error
        }
    }

    func stop() {
        mpd.stop()
        server.shutdown()
        host.shutdown()
    }

    /// Sends `request` (name and arguments) to both.
    func runOnBoth(_ request: [String]) throws {
        for client in [ours, theirs] { try client.run(MPDRequest(name: request[0], arguments: Array(request.dropFirst()))) }
    }

    /// An answer's records, each song's tag lines sorted (MPD lists them in the order its file holds
    /// them, the catalogue in one order for all), less what only one server can know.
    static func records(_ client: MPDClient, _ line: String) -> [[String]] {
        let volatile: Set<String> = ["Id", "songid", "nextsongid", "elapsed", "bitrate", "audio", "uptime", "playtime",
                                     "db_update", "playlist", "time"]
        var songs: [[String]] = []
        let lines: [String]
        do {
            try client.sendLine(line)
            lines = try client.readResponse().map { "\($0.key): \($0.value)" }
        } catch {
            return [["\(error)"]]
        }
        for text in lines where !volatile.contains(String(text.prefix { $0 != ":" })) {
            if text.hasPrefix("file: ") || text.hasPrefix("directory: ") || text.hasPrefix("playlist: ") || songs.isEmpty {
                songs.append([text])
            } else {
                songs[songs.count - 1].append(text)
            }
        }
        return songs.map { [$0[0]] + $0.dropFirst().sorted() }
    }
}
