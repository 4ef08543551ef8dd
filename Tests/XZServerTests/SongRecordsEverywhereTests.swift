import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport
import XZHostCore
import XZMPDCommands
#if canImport(Glibc)
import Glibc
#endif

/// A song's record is the one full record wherever a command lists it (the queue, the current song, folder
/// listings, find and search, stored playlists, queue searches and changes), line for line what real MPD
/// sends for the same file: every value of a tag on its own line, the full date, `Format`, and its length
/// rounded as MPD rounds it.
final class SongRecordsEverywhereTests: XCTestCase {
    var folder: TemporaryFolder!
    var hosts: ComparedHosts?

    override func tearDown() {
        hosts?.stop()
        folder = nil
    }

    func testEveryListingSendsTheSameFullRecordAsMPD() throws {
        folder = try TemporaryFolder("song-records")
        let music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("duet"), withIntermediateDirectories: true)
        // 1,345,033 frames at 44.1 kHz: 30.4996 s, which MPD sends as `Time: 30`, `duration: 30.499`.
        let long = folder.path("long.wav"), short = folder.path("short.wav")
        try TestProcess.runChecked("sox", ["-r", "44100", "-c", "2", "-n", "-b", "16", long, "synth", "31", "sine", "440", "gain", "-20",
                                            "trim", "0", "1345033s"])
        try TestProcess.runChecked("sox", ["-n", "-r", "48000", "-c", "1", "-b", "24", short, "synth", "1.2345", "sine", "330", "gain", "-20"])
        try TestProcess.runChecked("flac", ["-s", "-f", "-o", music.appendingPathComponent("duet/1.flac").path, long,
                                            "-T", "ARTIST=周杰伦", "-T", "ARTIST=费玉清", "-T", "ARTISTSORT=Zhou Jielun",
                                            "-T", "TITLE=千里之外", "-T", "ALBUM=依然范特西", "-T", "ALBUMARTIST=周杰伦",
                                            "-T", "DATE=2006-09-05", "-T", "GENRE=Pop", "-T", "GENRE=Mandopop",
                                            "-T", "COMPOSER=周杰伦", "-T", "DISCNUMBER=1", "-T", "TRACKNUMBER=3"])
        try TestProcess.runChecked("flac", ["-s", "-f", "-o", music.appendingPathComponent("duet/2.flac").path, short,
                                            "-T", "ARTIST=Solo", "-T", "TITLE=Short", "-T", "ALBUM=依然范特西",
                                            "-T", "DATE=2003-07-31", "-T", "TRACKNUMBER=4"])
        let hosts = try ComparedHosts(folder: folder, music: music)
        self.hosts = hosts
        let (ours, theirs) = (hosts.ours, hosts.theirs)
        for request in [["add", "duet/1.flac"], ["add", "duet/2.flac"], ["save", "both"], ["play", "0"], ["pause", "1"]] {
            XCTAssertNoThrow(try hosts.runOnBoth(request), "\(request)")
        }
        let script = [
            "listplaylistinfo both", "playlistinfo", "playlistinfo 1", "playlistid", "currentsong", "lsinfo duet",
            "lsinfo duet/1.flac", "listallinfo", "listallinfo duet", "find artist 费玉清", "find album 依然范特西",
            "search any 2003", "search title 千里", "playlistfind artist Solo", "playlistsearch any 范特西", "plchanges 0",
        ]
        for line in script {
            XCTAssertEqual(ComparedHosts.records(ours, line), ComparedHosts.records(theirs, line), line)
        }
        // MPD leaves `Format` out of a sorted find's records (it sorts copies without the audio format); this
        // host sends the same full record there too.
        let sorted = ComparedHosts.records(ours, "find album 依然范特西 sort Track")
        XCTAssertEqual(sorted.map { $0.filter { !$0.hasPrefix("Format: ") } }, ComparedHosts.records(theirs, "find album 依然范特西 sort Track"))
        XCTAssertEqual(sorted.map { $0.filter { $0.hasPrefix("Format: ") }.count }, [1, 1])
        // The record of every listing is the same record.
        let whole = ComparedHosts.records(ours, "lsinfo duet/1.flac")[0]
        XCTAssertTrue(whole.contains("Time: 30") && whole.contains("duration: 30.499"), "\(whole)")
        XCTAssertEqual(whole.filter { $0.hasPrefix("Artist: ") }, ["Artist: 周杰伦", "Artist: 费玉清"])
        XCTAssertTrue(whole.contains("Date: 2006-09-05") && whole.contains("Format: 44100:16:2"), "\(whole)")
        for line in ["listplaylistinfo both", "playlistinfo", "currentsong", "find title 千里之外", "listallinfo duet"] {
            let record = ComparedHosts.records(ours, line).first { $0.first == "file: duet/1.flac" }
            XCTAssertEqual(record?.filter { !$0.hasPrefix("Pos: ") && !$0.hasPrefix("Id: ") }, whole, line)
        }
        // The length of the song playing, as MPD rounds it.
        func length(_ client: MPDClient) throws -> [String] {
            let status = try client.run("status")
            return status.filter { ["duration", "time"].contains($0.key) }
                .map { $0.key == "time" ? "time: " + ($0.value.split(separator: ":").last ?? "") : "\($0.key): \($0.value)" }
        }
        XCTAssertEqual(try length(ours), try length(theirs))
        XCTAssertEqual(try length(ours), ["time: 30", "duration: 30.499"])
    }
}
