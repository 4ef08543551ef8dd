import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport
import XZHostCore
import XZMPDCommands

/// A file without tags has no Artist and no Title in the protocol, as in MPD: its records leave them out,
/// `list` shows it under "", filters see the tags as absent. The prompt still names it by its file and
/// "Unknown".
final class UntaggedSongTests: XCTestCase {
    var folder: TemporaryFolder!
    var hosts: ComparedHosts?

    override func tearDown() {
        hosts?.stop()
        folder = nil
    }

    func testAnUntaggedFileHasNoArtistNorTitleAsInMPD() throws {
        folder = try TemporaryFolder("untagged")
        let music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("loose"), withIntermediateDirectories: true)
        let wav = folder.path("tone.wav")
        try TestProcess.runChecked("sox", ["-r", "44100", "-c", "2", "-n", "-b", "16", wav, "synth", "1", "sine", "440", "gain", "-20"])
        try FileManager.default.copyItem(atPath: wav, toPath: music.appendingPathComponent("loose/bare.wav").path)
        try TestProcess.runChecked("flac", ["-s", "-f", "-o", music.appendingPathComponent("loose/bare.flac").path, wav])
        // Tagged but for its title, and for its artist.
        try TestProcess.runChecked("flac", ["-s", "-f", "-o", music.appendingPathComponent("loose/no-title.flac").path, wav,
                                            "-T", "ARTIST=Someone", "-T", "ALBUM=Loose"])
        try TestProcess.runChecked("flac", ["-s", "-f", "-o", music.appendingPathComponent("loose/no-artist.flac").path, wav,
                                            "-T", "TITLE=Nobody's", "-T", "ALBUM=Loose"])
        let hosts = try ComparedHosts(folder: folder, music: music)
        self.hosts = hosts
        let (ours, theirs) = (hosts.ours, hosts.theirs)
        for request in [["add", "loose/bare.flac"], ["add", "loose/no-artist.flac"], ["play", "0"], ["pause", "1"]] {
            XCTAssertNoThrow(try hosts.runOnBoth(request), "\(request)")
        }
        let script = [
            "lsinfo loose", "listallinfo", "playlistinfo", "currentsong", "find \"(Artist == '')\"", "find \"(Title == '')\"",
            "find artist Unknown", "search any unknown", "search title bare", "find \"(AlbumArtist == '')\"",
            "list artist", "list title", "list album", "list albumartist", "list album group artist", "count group artist",
            "count group title", "count \"(Artist == '')\"", "playlistfind \"(Artist == '')\"", "playlistsearch any bare",
        ]
        for line in script {
            XCTAssertEqual(ComparedHosts.records(ours, line), ComparedHosts.records(theirs, line), line)
        }
        // Sorted by the tags they lack, as MPD sorts them (MPD leaves `Format` out of sorted records).
        for line in ["find \"(Artist != 'Someone')\" sort Artist", "find \"(Album == 'Loose')\" sort Title"] {
            XCTAssertEqual(ComparedHosts.records(ours, line).map { $0.filter { !$0.hasPrefix("Format: ") } },
                           ComparedHosts.records(theirs, line), line)
        }
        XCTAssertEqual(ComparedHosts.records(ours, "list artist"), [["Artist: ", "Artist: Someone"]])
        // The prompt's names for it are the file's and "Unknown".
        let bare = try XCTUnwrap(try hosts.host.database.song(localPath: music.appendingPathComponent("loose/bare.flac").path))
        XCTAssertEqual(bare.title, "bare")
        XCTAssertEqual(bare.singer, "Unknown")
        XCTAssertEqual(bare.untagged, [.title, .artist])
    }
}
