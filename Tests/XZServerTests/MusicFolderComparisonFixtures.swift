import Foundation
import XZTestSupport

/// The comparison's internet radio, on the test station (`ICYStation`): `/stream` is an endless MP3 that
/// repeats `StreamTitle` every `metaInterval` bytes, unpaced, to a client that asks (`Icy-MetaData: 1`), as
/// many SHOUTcast servers do; `/station.m3u` is a remote playlist naming it; `/gone` is a station that no
/// longer exists.
final class LoopbackRadio {
    static let name = "Loopback FM"
    static let title = "Loopback Artist - Café Song"
    static let metaInterval = 16_000
    private let station: ICYStation

    var stream: String { station.url("/stream") }
    var playlist: String { station.url("/station.m3u") }
    var gone: String { station.url("/gone") }

    /// `scratch` holds the encoded audio while it is made.
    init(scratch: URL) throws {
        let mp3 = scratch.appendingPathComponent("radio.mp3").path
        // No LAME info frame: a station announces no length.
        try AudioFixtures.makeMP3(at: mp3, seconds: 20, frequency: 523, lameOptions: ["-b", "128", "-t"])
        let audio = [UInt8](try Data(contentsOf: URL(fileURLWithPath: mp3)))
        try? FileManager.default.removeItem(atPath: mp3)
        let block = ICYStation.titleBlock(Self.title)
        station = try ICYStation { _, request in
            let path = request.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            switch path {
            case "/stream":
                return ICYStation.Broadcast(
                    head: "HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\nicy-name: \(Self.name)\r\nicy-br: 128",
                    audio: audio, metaint: Self.metaInterval, block: { _ in block })
            case "/station.m3u":
                // The station's own address, as the client reached it.
                let host = request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("host:") }?.dropFirst(5)
                    .trimmingCharacters(in: .whitespaces) ?? ""
                let text = Array("#EXTM3U\n#EXTINF:-1,\(Self.name)\nhttp://\(host)/stream\n".utf8)
                return ICYStation.Broadcast(head: "HTTP/1.0 200 OK\r\nContent-Type: audio/x-mpegurl\r\nContent-Length: \(text.count)",
                                            audio: text, dropAfter: text.count)
            default:
                let text = Array("no such station".utf8)
                return ICYStation.Broadcast(head: "HTTP/1.0 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: \(text.count)",
                                            audio: text, dropAfter: text.count)
            }
        }
    }

    func stop() { station.stop() }
}

/// A music folder holding every case an MPD user's folder holds, made with the encoders at test time
/// (a few seconds each): tagged songs in six formats with accented, CJK and multi-value artists and full
/// dates; an untagged song; a junk `.ogg` that does not decode; a CD image with a `.cue` beside it and a
/// FLAC with a cue sheet embedded; `.mpdignore` files hiding a folder, a pattern and a playlist; an
/// `.m3u` and a `.pls` in a sub-folder (naming songs, a missing file, a cue track and the radio).
enum EveryCaseMusicFolder {
    static let tools = ["sox", "flac", "metaflac", "lame", "oggenc", "opusenc", "ffmpeg"]

    /// The external sheet: a pregap before track 2 (INDEX 00) and a track with its own performer.
    static let cueSheet = """
        REM GENRE "Ambient"
        REM DATE 1999
        PERFORMER "Cue Artist"
        TITLE "Cue Album"
        FILE "album.flac" WAVE
          TRACK 01 AUDIO
            TITLE "Opening"
            INDEX 01 00:00:00
          TRACK 02 AUDIO
            TITLE "Middle"
            PERFORMER "Guest Artist"
            INDEX 00 00:04:00
            INDEX 01 00:04:37
          TRACK 03 AUDIO
            TITLE "Closing"
            INDEX 01 00:08:00

        """

    /// The sheet inside embedded.flac's comments (MPD's `embcue`), a CUESHEET block holding the same.
    static let embeddedSheet = """
        REM DATE 2001-02-03
        PERFORMER "Embedded Artist"
        TITLE "Embedded Album"
        FILE "embedded.flac" WAVE
          TRACK 01 AUDIO
            TITLE "Uno"
            INDEX 01 00:00:00
          TRACK 02 AUDIO
            TITLE "Dos"
            INDEX 01 00:03:00
          TRACK 03 AUDIO
            TITLE "Tres"
            PERFORMER "Tercero"
            INDEX 01 00:07:50

        """

    /// Makes the folder at `music`; `scratch` holds the tones while they are encoded; `radio` is named by
    /// the folder's `.m3u`.
    static func make(at music: URL, scratch: URL, radio: String) throws {
        func path(_ name: String) throws -> String {
            let url = music.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            return url.path
        }
        func write(_ text: String, _ name: String) throws {
            try text.write(toFile: try path(name), atomically: true, encoding: .utf8)
        }
        func tone(_ name: String, _ seconds: Int, bits: Int = 16, _ synth: [String]) throws -> String {
            let wav = scratch.appendingPathComponent(name).path
            try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-b", "\(bits)", wav, "synth", "\(seconds)"]
                                       + synth + ["vol", "0.5"])
            return wav
        }
        func flac(_ name: String, _ wav: String, _ comments: [String]) throws {
            try TestProcess.runChecked("flac", ["-s", "-f", "-o", try path(name), wav] + comments.flatMap { ["-T", $0] })
        }
        // A sweep and a chord: something for a fingerprint to hear.
        let sweep = try tone("sweep.wav", 5, ["sine", "220-1760", "sine", "330"])
        let deep = try tone("deep.wav", 3, bits: 24, ["sine", "660"])
        let short = try tone("short.wav", 3, ["sine", "440"])
        let image = try tone("image.wav", 12, ["sine", "330-990"])
        defer { for wav in [sweep, deep, short, image] { try? FileManager.default.removeItem(atPath: wav) } }

        // Comments in the order MPD lists a song's tags (as its ID3 scanner reads frames), so that MPD's
        // file-order records and the catalogue's one order agree line by line.
        try flac("tagged/01-emilie.flac", sweep, [
            "ARTIST=Émilie Simon", "ALBUMARTIST=Émilie Simon", "ARTISTSORT=Simon, Émilie", "TITLE=Désert", "ALBUM=Végétal",
            "TRACKNUMBER=1", "DATE=2006-05-29", "GENRE=Électronique", "COMPOSER=Émilie Simon", "DISCNUMBER=1",
        ])
        try flac("tagged/02-duet.flac", deep, [
            "ARTIST=周杰伦", "ARTIST=费玉清", "ALBUMARTIST=周杰伦", "TITLE=千里之外", "ALBUM=依然范特西", "TRACKNUMBER=2",
            "DATE=2006-09-05", "GENRE=华语流行",
        ])
        try ID3Builder.makeTaggedMP3(at: try path("tagged/03-duet.mp3"), seconds: 3, frames: [
            ID3Builder.list("TPE1", ["周杰伦", "费玉清"]), ID3Builder.list("TIT2", ["菊花台"]),
            ID3Builder.list("TALB", ["依然范特西"]), ID3Builder.list("TPE2", ["周杰伦"]), ID3Builder.list("TRCK", ["3"]),
            ID3Builder.list("TDRC", ["2006-09-05"]), ID3Builder.list("TCON", ["华语流行"]),
        ])
        try TestProcess.runChecked("oggenc", ["-Q", "-o", try path("tagged/04-vorbis.ogg"),
                                              "-c", "ARTIST=Sigur Rós", "-c", "TITLE=Hoppípolla", "-c", "ALBUM=Takk...",
                                              "-c", "TRACKNUMBER=4", "-c", "DATE=2005-09-12", short])
        try TestProcess.runChecked("opusenc", ["--quiet", "--comment", "ARTIST=坂本龍一", "--comment", "TITLE=戦場のメリークリスマス",
                                               "--comment", "DATE=1983-05-28", short, try path("tagged/05-opus.opus")])
        try TestProcess.runChecked("ffmpeg", ["-loglevel", "error", "-y", "-i", short, "-c:a", "aac", "-b:a", "96k",
                                              // MPD lists what FFmpeg reads in the MP4 muxer's order: no album, which comes first.
                                              "-metadata", "artist=Björk", "-metadata", "title=Jóga", "-metadata", "date=1997-09-22",
                                              try path("tagged/06-aac.m4a")])
        try AudioFixtures.makeMP3(at: try path("untagged/no tags.mp3"), seconds: 3)
        // Random bytes behind an Ogg page's magic: named as a song, decoding to nothing.
        var junk = Data("OggS".utf8)
        var generator = SystemRandomNumberGenerator()
        junk += Data((0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try junk.write(to: URL(fileURLWithPath: try path("Broken/junk.ogg")))
        // Beside a song that plays: a folder of junk alone is listed by MPD or not depending on its updates.
        try FileManager.default.copyItem(atPath: try path("untagged/no tags.mp3"), toPath: try path("Broken/intact.mp3"))

        try flac("cue/album.flac", image, [])
        try write(cueSheet, "cue/album.cue")
        try flac("cue/embedded.flac", image, ["ARTIST=Embedded Artist", "ALBUM=Embedded Album", "CUESHEET=\(embeddedSheet)"])
        let sheetFile = scratch.appendingPathComponent("embedded.cue").path
        try embeddedSheet.write(toFile: sheetFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: sheetFile) }
        try TestProcess.runChecked("metaflac", ["--import-cuesheet-from=\(sheetFile)", try path("cue/embedded.flac")])

        // Hidden by the root's .mpdignore: a folder, and a pattern that also holds in sub-folders.
        try FileManager.default.copyItem(atPath: try path("tagged/03-duet.mp3"), toPath: try path("hidden/secret.mp3"))
        try FileManager.default.copyItem(atPath: try path("tagged/03-duet.mp3"), toPath: try path("tagged/skip-demo.mp3"))
        try write("hidden\n*-demo.mp3\n", ".mpdignore")
        try write("private.m3u\n", "lists/.mpdignore")
        try write("../tagged/01-emilie.flac\n", "lists/private.m3u")

        // Paths relative to the list's folder, one missing, a cue track, the radio and a path below the list.
        try write("""
            #EXTM3U
            #EXTINF:5,Émilie Simon - Désert
            ../tagged/01-emilie.flac
            ../untagged/no tags.mp3
            ../missing.mp3
            ../cue/album.cue/track0002
            \(radio)
            tagged/02-duet.flac

            """, "lists/road.m3u")
        try write("""
            [playlist]
            File1=../tagged/04-vorbis.ogg
            Title1=Hoppípolla
            File2=../tagged/05-opus.opus
            NumberOfEntries=2
            Version=2

            """, "lists/road.pls")
    }
}
