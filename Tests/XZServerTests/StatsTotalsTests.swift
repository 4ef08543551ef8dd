import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport
import XZHostCore
import XZMPDCommands

/// `stats` counts as MPD counts: distinct values of the Artist tag (each of a song's several), distinct
/// values of the Album tag, whoever else sang an album of the same name; songs without them add none.
final class StatsTotalsTests: XCTestCase {
    var folder: TemporaryFolder!
    var hosts: ComparedHosts?

    override func tearDown() {
        hosts?.stop()
        folder = nil
    }

    private func totals(_ client: MPDClient) throws -> [String] {
        try client.run("stats").filter { ["artists", "albums", "songs", "db_playtime"].contains($0.key) }
            .map { "\($0.key): \($0.value)" }
    }

    func testArtistsAndAlbumsAreDistinctTagValuesAsInMPD() throws {
        folder = try TemporaryFolder("stats-totals")
        let music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        let wav = folder.path("tone.wav")
        try TestProcess.runChecked("sox", ["-r", "44100", "-c", "2", "-n", "-b", "16", wav, "synth", "1.5", "sine", "440", "gain", "-20"])
        let songs: [(String, [String])] = [
            // Two artists on one song, each an artist; "Greatest Hits" by three artists is one album.
            ("a.flac", ["ARTIST=Alpha", "ARTIST=Beta", "ALBUM=Greatest Hits"]),
            ("b.flac", ["ARTIST=Beta", "ALBUM=Greatest Hits"]),
            ("c.flac", ["ARTIST=Gamma", "ALBUM=Greatest Hits"]),
            ("d.flac", ["ARTIST=Gamma", "ALBUM=Other"]),
            ("e.flac", ["ARTIST=Alpha"]),
            ("f.flac", ["ALBUM=Nameless"]),
            ("g.flac", []),
        ]
        for (name, comments) in songs {
            try TestProcess.runChecked("flac", ["-s", "-f", "-o", music.appendingPathComponent(name).path, wav]
                                       + comments.flatMap { ["-T", $0] })
        }
        let hosts = try ComparedHosts(folder: folder, music: music)
        self.hosts = hosts
        let (ours, theirs) = (hosts.ours, hosts.theirs)
        XCTAssertEqual(try totals(ours), try totals(theirs))
        XCTAssertEqual(try totals(ours), ["artists: 3", "albums: 3", "songs: 7", "db_playtime: 10"])
        // Asked again unchanged, then after the folder changed: the totals follow the catalogue.
        XCTAssertEqual(try totals(ours), ["artists: 3", "albums: 3", "songs: 7", "db_playtime: 10"])
        try TestProcess.runChecked("flac", ["-s", "-f", "-o", music.appendingPathComponent("h.flac").path, wav,
                                            "-T", "ARTIST=Delta", "-T", "ALBUM=Greatest Hits"])
        _ = try ours.run("update")
        hosts.host.updates.wait()
        XCTAssertEqual(try totals(ours), ["artists: 4", "albums: 3", "songs: 8", "db_playtime: 12"])
    }
}
