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

/// Real MPD (null output, software mixer) and this host on the same folder, sent the same requests:
/// the answers must agree wherever the two hold the same facts.
final class MPDComparisonTests: XCTestCase {
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

    /// Real MPD on `music`, its database updated.
    private func startMPD(music: URL) throws -> MPDClient {
        let real = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"))
        mpd = real
        return try real.connect()
    }

    /// This host on `music`, with a library of its own, and a client connected to it.
    private func startHost(music: URL) throws -> MPDClient {
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        host = PlayerHost(folder: library, database: try library.open(seedingDemoFrom: nil), output: .null,
                          musicDirectory: music) { _ in }
        // As a host started on the folder scans it first (MPD's database).
        host.scanMusicFolderIfUnscanned()
        host.updates.wait()
        server = ProtocolServer(host: host, password: nil)
        return try MPDClient.connect(host: "127.0.0.1", port: try server.listen(host: "127.0.0.1", port: 0))
    }

    /// Lines of an answer, or the ACK line, minus what only one side can know.
    private func answer(_ client: MPDClient, _ line: String) -> [String] {
        do {
            try client.sendLine(line)
            return try client.readResponse().map { "\($0.key): \($0.value)" }
                .filter { !["Format", "duration", "bitrate", "audio", "elapsed", "time", "Last-Modified",
                            "playlist", "uptime", "playtime", "db_update", "Id", "songid", "nextsongid"]
                    .contains(String($0.prefix { $0 != ":" })) }
        } catch let error as MPDError {
            return ["ACK \(error.code.rawValue) {\(error.command ?? "")} \(error.message)"]
        } catch {
            return ["\(error)"]
        }
    }

    /// find/search/list/count/lsinfo on a folder of several artists, albums and genres, multi-artist
    /// ID3v2.4 tags among them; searches whose needles folding adds nothing to, so the answers are equal.
    func testDatabaseAnswersAgree() throws {
        folder = try TemporaryFolder("compare-db")
        let music = folder.url.appendingPathComponent("music")
        let songs: [(String, [(String, [String])])] = [
            ("rock/first/1.mp3", [("TPE1", ["Alpha"]), ("TIT2", ["Stone Song"]), ("TALB", ["First"]), ("TRCK", ["1"]),
                                  ("TCON", ["Rock"]), ("TDRC", ["2001"]), ("TPE2", ["Alpha Band"])]),
            ("rock/first/2.mp3", [("TPE1", ["Alpha", "Beta"]), ("TIT2", ["Rolling"]), ("TALB", ["First"]),
                                  ("TRCK", ["2"]), ("TCON", ["Rock", "Blues"]), ("TDRC", ["2001"]),
                                  ("TPE2", ["Alpha Band"])]),
            ("rock/second/1.mp3", [("TPE1", ["Beta"]), ("TIT2", ["Road"]), ("TALB", ["Second"]), ("TRCK", ["1"]),
                                   ("TCON", ["Rock"]), ("TPOS", ["2"])]),
            ("pop/a.mp3", [("TPE1", ["piman", "jzig"]), ("TIT2", ["Sunny"]), ("TALB", ["Light"]), ("TCON", ["Pop"])]),
            ("pop/b.mp3", [("TPE1", ["Gamma"]), ("TIT2", ["Rain"]), ("TCON", ["Pop"]), ("TRCK", ["3"])]),
            ("top.mp3", [("TPE1", ["Gamma"]), ("TIT2", ["Top Song"]), ("TALB", ["Light"]), ("TRCK", ["7"])]),
        ]
        for (path, frames) in songs {
            let url = music.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try ID3Builder.makeTaggedMP3(at: url.path, seconds: 1, frames: frames.map { ID3Builder.list($0.0, $0.1) })
        }
        let real = try startMPD(music: music)
        let ours = try startHost(music: music)
        XCTAssertEqual(try ours.run("update").first?.key, "updating_db")
        host.updates.wait()

        let script = [
            "find artist Alpha", "find \"(Artist == 'Beta')\"", "find \"(Artist == 'jzig')\"", "find Artist alpha",
            "find \"(AlbumArtist == 'Gamma')\"", "find \"(Genre == 'Blues')\"", "find \"(Album == '')\"",
            "find \"(Artist != 'Alpha')\"", "find \"(!(Genre == 'Rock'))\"", "find \"(Title =~ '^R')\"",
            "find \"(Title contains 'o')\"", "find \"((Genre == 'Rock') AND (Track == '1'))\"",
            "find \"(base 'rock')\"", "find \"(file == 'pop/a.mp3')\"", "find \"(Disc == '2')\"",
            "find \"(Date == '2001')\" sort -Track", "find \"(Artist != 'x')\" sort Title window 1:3",
            "search any ro", "search title SONG", "search \"(Genre contains 'O')\"", "search artist a",
            "search any xyz", "search album \"light\" artist gamma",
            "list artist", "list album", "list albumartist", "list genre", "list date", "list album Alpha",
            "list album group albumartist", "list title \"(Genre == 'Rock')\" group artist", "list file",
            "count artist Alpha", "count \"(Genre == 'Rock')\" group artist", "count \"(Track != '0')\" group genre",
            "lsinfo", "lsinfo rock", "lsinfo rock/first", "lsinfo pop/a.mp3", "lsinfo nothere", "listall", "listall pop",
            "listallinfo rock/second",
            "find \"(Artist == 'x'\"", "find \"(Artist = 'x')\"", "find \"((Artist == 'x') OR (Album == 'y'))\"",
            "find \"(Artist == x)\"", "find \"(frob == 'x')\"", "find frob x", "find artist", "find \"(Artist == 'x') y\"",
            "find \"(!Artist == 'x')\"", "find \"(base '../x')\"", "find base ../x", "find artist x sort frob",
            "count group frob", "list frob", "list title x", "list album group album", "update ../x",
        ]
        for line in script {
            XCTAssertEqual(answer(ours, line), answer(real, line), line)
        }
        // A folder that is not there is still a job (the job numbers differ: MPD ran one at start-up).
        XCTAssertEqual(answer(ours, "update nothere").map { $0.prefix(12) }, answer(real, "update nothere").map { $0.prefix(12) })
        host.updates.wait()
    }

    /// A folder of every format, tagged by each format's own tools: MPD and this host list the same tags,
    /// and durations within a few milliseconds (MPD does not trim an MP3's encoder delay and padding).
    func testMixedFormatFolderAgreesWithMPD() throws {
        folder = try TemporaryFolder("compare-formats")
        let music = folder.url.appendingPathComponent("music")
        let album = music.appendingPathComponent("mixed")
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        let wav = folder.path("source.wav")
        try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "2.5", "sine", "440", "gain", "-9"])
        func path(_ name: String) -> String { album.appendingPathComponent(name).path }
        try TestProcess.runChecked("flac", ["-s", "-f", "-o", path("1.flac"), wav,
                                            "-T", "ARTIST=Alpha", "-T", "ARTIST=Beta", "-T", "TITLE=Lossless",
                                            "-T", "ALBUM=Mixed", "-T", "TRACKNUMBER=1", "-T", "GENRE=Rock",
                                            "-T", "DATE=2019-04-02", "-T", "ALBUMARTIST=Various", "-T", "DISCNUMBER=1"])
        try TestProcess.runChecked("oggenc", ["-Q", "-o", path("2.ogg"), "-a", "Gamma", "-t", "Vorbis Song", "-l", "Mixed",
                                              "-N", "2", "-G", "Jazz", "-d", "2020", wav])
        try TestProcess.runChecked("opusenc", ["--quiet", "--artist", "Delta", "--title", "Opus Song", "--album", "Mixed",
                                               "--genre", "Pop", "--date", "2021", "--comment", "TRACKNUMBER=3", wav, path("3.opus")])
        try TestProcess.runChecked("ffmpeg", ["-v", "quiet", "-y", "-i", wav, "-c:a", "aac", "-b:a", "128k",
                                              "-metadata", "artist=Epsilon", "-metadata", "title=AAC Song",
                                              "-metadata", "album=Mixed", "-metadata", "track=4", "-metadata", "genre=Soul",
                                              "-metadata", "date=2022", path("4.m4a")])
        try TestProcess.runChecked("ffmpeg", ["-v", "quiet", "-y", "-i", wav, "-c:a", "alac",
                                              "-metadata", "artist=Zeta", "-metadata", "title=ALAC Song",
                                              "-metadata", "album=Mixed", "-metadata", "track=5", path("5.m4a")])
        try TestProcess.runChecked("lame", ["--quiet", "--tt", "MP3 Song", "--ta", "Eta", "--tl", "Mixed", "--tn", "6",
                                            "--ty", "2018", "--tg", "Blues", "--id3v2-only", wav, path("6.mp3")])
        let real = try startMPD(music: music)
        let ours = try startHost(music: music)
        _ = try ours.run("update")
        host.updates.wait()

        // MPD lists a song's tags in the order its file holds them; the catalogue has one order for all.
        func songsOf(_ lines: [String]) -> [[String]] {
            var songs: [[String]] = []
            for line in lines {
                if line.hasPrefix("file: ") || line.hasPrefix("directory: ") || songs.isEmpty {
                    songs.append([line])
                } else {
                    songs[songs.count - 1].append(line)
                }
            }
            return songs.map { [$0[0]] + $0.dropFirst().sorted() }
        }
        for line in ["listallinfo", "list artist", "list genre", "find \"(Artist == 'Beta')\"", "list album group date",
                     "search any song", "count group artist"] {
            XCTAssertEqual(songsOf(answer(ours, line)), songsOf(answer(real, line)), line)
        }
        func durations(_ client: MPDClient) throws -> [String: Double] {
            var result: [String: Double] = [:]
            var file = ""
            for pair in try client.run("listallinfo") {
                if pair.key == "file" { file = pair.value }
                if pair.key == "duration" { result[file] = Double(pair.value) }
            }
            return result
        }
        let ourDurations = try durations(ours)
        let theirDurations = try durations(real)
        XCTAssertEqual(Set(ourDurations.keys), Set(theirDurations.keys))
        for (file, seconds) in ourDurations where !file.hasSuffix(".mp3") {
            XCTAssertEqual(seconds, theirDurations[file] ?? -1, accuracy: 0.007, file)
        }
        XCTAssertEqual(ourDurations["mixed/6.mp3"] ?? 0, 2.5, accuracy: 0.001, "gapless length of the MP3")
    }

    func testTheSameRequestsGetTheSameAnswers() throws {
        folder = try TemporaryFolder("compare")
        let music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("album"), withIntermediateDirectories: true)
        for index in 1...3 {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("album/\(index).mp3").path, seconds: 6,
                                      tags: .init(title: "Song \(index)", artist: "Artist", album: "Album", track: index))
        }
        let real = try startMPD(music: music)
        let ours = try startHost(music: music)

        let script = [
            "status", "add album/1.mp3", "add album/2.mp3", "addid album/3.mp3 0", "status", "playlistinfo",
            "play 1", "status", "currentsong", "pause 1", "status", "random 1", "repeat 1", "single oneshot",
            "consume 1", "setvol 40", "status", "random 0", "single 0", "consume 0", "move 0 2", "playlistinfo",
            "swap 0 1", "playlistfind Title \"Song 3\"", "playlistsearch title \"song\"",
            "playlistsearch \"(title contains 'SONG 2')\"", "playlistfind \"(Artist == 'Artist')\"",
            "playlistfind \"(!(Track == '2'))\" album Album", "playlistsearch any \"ong 3\"",
            "playlistfind \"(AlbumArtist == 'Artist')\"", "playlistfind Title", "playlistfind \"(Title == 'x'\"",
            "playlistsearch \"(file =~ '2\\\\.mp3$')\"", "delete 0:1", "status",
            "stop", "status", "clear", "status", "getvol", "playlistinfo 1:0", "play 9", "playid 999", "setvol 300",
            "seek 0 abc", "add \"x", "frobnicate", "add nothere.mp3", "repeat 2", "single 2", "delete 7",
        ]
        for line in script {
            XCTAssertEqual(answer(ours, line), answer(real, line), line)
            if line.hasPrefix("play ") || line.hasPrefix("pause") { Thread.sleep(forTimeInterval: 0.3) }
        }
    }
}
