import Foundation

/// CD-rip fixtures made at test time: a FLAC image (sox and flac) and the CUE sheet beside it.
package enum CueFixtures {
    /// The sheet of `makeRip`: three tracks; track 2 has a pregap (INDEX 00) and no performer of its own,
    /// track 3 runs to the image's end.
    package static let sheet = """
        REM GENRE Rock
        REM DATE 1999
        PERFORMER "The Band"
        TITLE "The Album"
        FILE "image.flac" WAVE
          TRACK 01 AUDIO
            TITLE "First"
            PERFORMER "Singer A"
            INDEX 01 00:00:00
          TRACK 02 AUDIO
            TITLE "Second"
            INDEX 00 00:03:70
            INDEX 01 00:04:10
          TRACK 03 AUDIO
            TITLE "Third"
            INDEX 01 00:07:33

        """
    /// The bounds of `sheet`'s tracks in CD frames.
    package static let trackFrames: [(start: Int, end: Int?)] = [(0, 310), (310, 558), (558, nil)]

    /// `folder/image.flac` (10 s of 16-bit stereo 44.1 kHz noise, so every sample tells where it is, tagged
    /// ARTIST/COMPOSER/ALBUM/TITLE of its own) and `folder/image.cue` with `sheet`.
    package static func makeRip(in folder: URL, sheet text: String = sheet) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let image = folder.appendingPathComponent("image.flac").path
        try makeFLAC(at: image, seconds: 10)
        // In the order MPD and the catalogue both list a file's tags, as a track's record lists the image's.
        try TestProcess.runChecked("metaflac", ["--set-tag=ARTIST=ImgArtist", "--set-tag=TITLE=ImgTitle",
                                                "--set-tag=ALBUM=ImgAlbum", "--set-tag=COMPOSER=Comp", image])
        try text.write(to: folder.appendingPathComponent("image.cue"), atomically: true, encoding: .utf8)
    }

    /// `path`: a 6 s FLAC (tagged TITLE/ARTIST) carrying a two-track CUE sheet in a CUESHEET comment.
    package static func makeEmbedded(at path: String) throws {
        try makeFLAC(at: path, seconds: 6)
        let name = (path as NSString).lastPathComponent
        let sheet = "TITLE \"Emb Album\"\nFILE \"\(name)\" WAVE\n  TRACK 01 AUDIO\n    INDEX 01 00:00:00\n"
            + "  TRACK 02 AUDIO\n    INDEX 01 00:02:30\n"
        let file = path + ".cue-text"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try sheet.write(toFile: file, atomically: true, encoding: .utf8)
        // In the order the catalogue lists a file's tags, as MPD lists the file's own (a track's tail).
        try TestProcess.runChecked("metaflac", ["--set-tag=ARTIST=Emb Artist", "--set-tag=TITLE=Embedded",
                                                "--set-tag-from-file=CUESHEET=\(file)", path])
    }

    /// A FLAC of `seconds` of white noise, 16-bit stereo at `rate`.
    package static func makeFLAC(at path: String, seconds: Double, rate: Int = 44_100) throws {
        let wav = path + ".wav"
        defer { try? FileManager.default.removeItem(atPath: wav) }
        try TestProcess.runChecked("sox", ["-n", "-r", "\(rate)", "-c", "2", "-b", "16", wav,
                                           "synth", "\(seconds)", "whitenoise", "vol", "0.5"])
        try TestProcess.runChecked("flac", ["-s", "-f", wav, "-o", path])
    }

    /// The image's samples as signed 16-bit little-endian PCM, decoded by `flac -d`.
    package static func pcm(of path: String) throws -> Data {
        try TestProcess.runChecked("flac", ["-s", "-d", "-c", "--force-raw-format", "--endian=little", "--sign=signed", path])
            .stdoutData
    }
}
