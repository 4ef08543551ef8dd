import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport
import XZHost
import XZMPDCommands

/// A real host on a temporary library, on TCP port 0, whose music folder holds album/1.mp3 to
/// album/3.mp3 ("Song N" by "Artist", 3 s); `mpd` is stopped with it when a test starts real MPD.
class MusicFolderHostTestCase: XCTestCase {
    var folder: TemporaryFolder!
    var music: URL!
    var library: LibraryFolder!
    var host: PlayerHost!
    var server: ProtocolServer!
    var port = 0
    var mpd: RealMPD?

    override func setUpWithError() throws {
        folder = try TemporaryFolder("music-host")
        music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("album"), withIntermediateDirectories: true)
        for index in 1...3 {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("album/\(index).mp3").path, seconds: 3,
                                      tags: .init(title: "Song \(index)", artist: "Artist", album: "Album", track: index))
        }
        library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        host = PlayerHost(folder: library, database: try library.open(seedingDemoFrom: nil), output: .null,
                          musicDirectory: music) { _ in }
        server = ProtocolServer(host: host, password: nil)
        port = try server.listen(host: "127.0.0.1", port: 0)
    }

    override func tearDown() {
        mpd?.stop()
        server?.shutdown()
        host?.shutdown()
        folder = nil
    }

    func client() throws -> MPDClient { try MPDClient.connect(host: "127.0.0.1", port: port) }

    /// Sends each line to real MPD (on the same music folder, its own playlist folder) and to this host:
    /// the answers must be the same.
    func compareWithRealMPD(_ script: [String], mpdConfig: String = "", file: StaticString = #filePath,
                            line: UInt = #line) throws {
        let real = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"), extraConfig: mpdConfig)
        mpd = real
        let theirs = try real.connect()
        let ours = try client()
        for request in script {
            XCTAssertEqual(RealMPD.answer(ours, request), RealMPD.answer(theirs, request), request, file: file, line: line)
        }
    }
}
