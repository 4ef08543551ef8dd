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

/// Real MPD and this host on one folder of songs carrying Composer, Performer, Conductor, the sort tags,
/// MusicBrainz ids and more: `tagtypes`, records, filters, `list`, `sort` and `readcomments` answer alike.
final class MoreTagsComparisonTests: XCTestCase {
    var folder: TemporaryFolder!
    var mpd: RealMPD?
    var host: PlayerHost!
    var server: ProtocolServer!

    override func tearDown() {
        mpd?.stop()
        server?.shutdown()
        host?.shutdown()
        folder = nil
    }

    /// FLAC comments written in the order MPD lists a song's tags, so its file-order records and the
    /// catalogue's one order agree line by line.
    private func makeFLAC(_ path: String, _ comments: [String], wav: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try TestProcess.runChecked("flac", ["-s", "-f", "-o", path, wav] + comments.flatMap { ["-T", $0] })
    }

    /// A user text frame (TXXX): UTF-8, description, value.
    private func userText(_ description: String, _ value: String) -> (String, [UInt8]) {
        ID3Builder.text("TXXX", .utf8, Array(description.utf8) + [0] + Array(value.utf8))
    }

    private func makeMusic() throws -> URL {
        let music = folder.url.appendingPathComponent("music")
        let wav = folder.path("tone.wav")
        try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "1", "sine", "440"])
        try makeFLAC(music.appendingPathComponent("classical/1.flac").path, [
            "ARTIST=Gould", "ALBUMARTIST=Glenn Gould", "ARTISTSORT=Gould, Glenn", "ALBUMSORT=Goldberg",
            "ALBUMARTISTSORT=Gould, G.", "TITLE=Aria", "ALBUM=Goldberg Variations", "TRACKNUMBER=1", "DATE=1981",
            "ORIGINALDATE=1955", "GENRE=Classical", "COMPOSER=Bach", "COMPOSERSORT=Bach, J. S.", "CONDUCTOR=Nobody",
            "PERFORMER=Glenn Gould", "PERFORMER=Piano", "GROUPING=Keyboard", "DISCNUMBER=1", "LABEL=Sony",
            "WORK=BWV 988", "MOVEMENTNAME=Aria", "MOVEMENT=1", "ENSEMBLE=Solo", "LOCATION=New York",
            "MUSICBRAINZ_ARTISTID=artist-1", "MUSICBRAINZ_TRACKID=track-1", "MUSICBRAINZ_WORKID=work-1",
            "Comment=kept by neither", "myKey=Own Value", "Odd Key=not a protocol key", "9LIVES=nor this",
            "x_y-z=a protocol key", "NOTE=two\nlines",
        ], wav: wav)
        try makeFLAC(music.appendingPathComponent("classical/2.flac").path, [
            // ArtistSort without AlbumArtist: `sort AlbumArtistSort` reads it, `list AlbumArtistSort` does not.
            "ARTIST=Uchida", "ARTISTSORT=Aaa Uchida", "TITLE=Sonata", "ALBUM=Sonatas", "TRACKNUMBER=2", "COMPOSER=Mozart",
            "PERFORMER=Mitsuko Uchida", "LABEL=Philips",
        ], wav: wav)
        try makeFLAC(music.appendingPathComponent("pop/song.flac").path, [
            "ARTIST=Zed", "TITLE=Hit", "ALBUM=Pop Album", "COMPOSER=Bacharach", "PERFORMER=Zed",
        ], wav: wav)
        // Ogg Vorbis and Opus comments, as their encoders write them.
        let comments = ["ARTIST=Vee", "TITLE=Vorbis Song", "COMPOSER=Bach", "myKey=mine"]
        try FileManager.default.createDirectory(at: music.appendingPathComponent("other"), withIntermediateDirectories: true)
        try TestProcess.runChecked("oggenc", ["-Q", "-o", music.appendingPathComponent("other/v.ogg").path]
                                   + comments.flatMap { ["-c", $0] } + [wav])
        try TestProcess.runChecked("opusenc", ["--quiet"] + comments.flatMap { ["--comment", $0] }
                                   + [wav, music.appendingPathComponent("other/o.opus").path])
        // An MP3 with the frames MPD's ID3 scanner reads, TXXX frames for its comments among them.
        try ID3Builder.makeTaggedMP3(at: music.appendingPathComponent("classical/3.mp3").path, frames: [
            ID3Builder.list("TPE1", ["Berliner"]), ID3Builder.list("TPE2", ["Berliner Philharmoniker"]),
            ID3Builder.list("TSOP", ["Berliner, Die"]), ID3Builder.list("TIT2", ["Fifth"]),
            ID3Builder.list("TALB", ["Symphonies"]), ID3Builder.list("TRCK", ["5"]), ID3Builder.list("TDRC", ["1963"]),
            ID3Builder.list("TDOR", ["1962"]), ID3Builder.list("TCON", ["Classical"]),
            ID3Builder.list("TCOM", ["Beethoven"]), ID3Builder.list("TPE3", ["Karajan"]),
            ID3Builder.list("TPE4", ["Orchestra"]), ID3Builder.list("TIT1", ["Symphonies"]),
            ID3Builder.list("TPUB", ["DG"]),
            userText("MusicBrainz Artist Id", "artist-9"), userText("RANDOM Key", "random value"),
            userText("replaygain_track_gain", "-3.50 dB"), userText("MusicBrainz Album Id", "album-9"),
            ("UFID", Array("http://musicbrainz.org".utf8) + [0] + Array("track-9".utf8)),
        ])
        return music
    }

    func testMoreTagsAnswerAsMPDAnswers() throws {
        folder = try TemporaryFolder("compare-more-tags")
        let music = try makeMusic()
        let real = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"))
        mpd = real
        let theirs = try real.connect()
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        host = PlayerHost(folder: library, database: try library.open(seedingDemoFrom: nil), output: .null,
                          musicDirectory: music) { _ in }
        server = ProtocolServer(host: host, password: nil)
        let ours = try MPDClient.connect(host: "127.0.0.1", port: try server.listen(host: "127.0.0.1", port: 0))
        _ = try ours.run("update")
        host.updates.wait()

        let script = [
            "tagtypes", "lsinfo classical", "lsinfo pop", "listallinfo",
            "find composer Bach", "find \"(Composer == 'Bach')\"", "search composer bach", "find Performer Piano",
            "find \"(Performer contains 'Uchida')\"", "find \"(Conductor == '')\"", "find \"(Label != 'DG')\"",
            "find \"(MUSICBRAINZ_TRACKID == 'track-9')\"", "find \"(OriginalDate =~ '^19')\"",
            "find \"(ComposerSort == 'Bach, J. S.')\"", "find \"(AlbumSort == 'Sonatas')\"", "search any gould",
            "search any track-9", "find \"(Comment contains 'kept')\"", "find \"(Work == 'BWV 988')\"",
            "count composer Bach", "count group composer",
            "list composer", "list performer", "list performer group album", "list conductor group composer",
            "list label", "list artistsort", "list albumsort", "list albumartistsort", "list composersort",
            "list originaldate", "list musicbrainz_trackid", "list work", "list movement group movementnumber",
            "list grouping", "list ensemble", "list location",
            "find \"(Title != 'x')\" sort Composer", "find \"(Title != 'x')\" sort -Composer",
            "find \"(Title != 'x')\" sort ArtistSort", "find \"(Title != 'x')\" sort AlbumArtistSort",
            "find \"(Title != 'x')\" sort -AlbumSort", "find \"(Title != 'x')\" sort ComposerSort",
            "find \"(Title != 'x')\" sort Performer", "find \"(Title != 'x')\" sort -Label",
            "readcomments classical/1.flac", "readcomments classical/3.mp3", "readcomments pop/song.flac", "readcomments other/v.ogg", "readcomments other/o.opus",
            "readcomments nothere.flac", "readcomments ../x", "readcomments classical",
            "tagtypes disable Composer Performer", "tagtypes", "find composer Bach", "tagtypes enable Performer",
            "lsinfo classical/1.flac", "tagtypes clear", "tagtypes", "lsinfo classical/3.mp3", "tagtypes all",
            "tagtypes", "tagtypes enable Frob",
            "add classical/1.flac", "add classical/3.mp3", "playlistinfo", "playlistfind composer Beethoven",
            "playlistsearch \"(Performer contains 'piano')\"",
        ]
        for line in script {
            XCTAssertEqual(RealMPD.answer(ours, line), RealMPD.answer(theirs, line), line)
        }
        // Agreeing on nothing would agree too: the answers hold what the files carry.
        _ = RealMPD.answer(ours, "tagtypes all")
        XCTAssertEqual(RealMPD.answer(ours, "tagtypes").count, 30)
        XCTAssertEqual(Array(RealMPD.answer(ours, "readcomments classical/1.flac").suffix(3)),
                       ["Comment: kept by neither", "myKey: Own Value", "x_y-z: a protocol key"])
        XCTAssertEqual(RealMPD.answer(ours, "list composer"),
                       ["Composer: Bach", "Composer: Bacharach", "Composer: Beethoven", "Composer: Mozart"])
        for client in [ours, theirs] { _ = RealMPD.answer(client, "play 0") }
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(RealMPD.answer(ours, "currentsong"), RealMPD.answer(theirs, "currentsong"), "currentsong")
        XCTAssertTrue(RealMPD.answer(ours, "currentsong").contains("Composer: Bach"))
        for client in [ours, theirs] { _ = RealMPD.answer(client, "stop") }
    }
}
