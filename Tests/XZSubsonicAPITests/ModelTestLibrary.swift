import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZHostCore
import XZTestSupport
@testable import XZSubsonicAPI

/// A generated music folder: one song in each format clients meet (MP3, FLAC, Ogg Vorbis, Opus, AAC in MP4,
/// WAV), CJK names, two artists on one song (`Duets/Both/02 Together.flac`), ReplayGain tags on `王菲/红豆/02 当时的月亮.flac`, and `光/rip/` a FLAC image with a two-track CUE sheet.
// Sendable as its base class is: set up before any test call, then only read.
final class ModelTestLibrary: SubsonicTestLibrary, @unchecked Sendable {
    /// Path in the music folder → (title, artist, album, seconds) and the ffmpeg options that encode it.
    static let files: [(path: String, title: String, artist: String, album: String, seconds: Int, codec: [String])] = [
        ("王菲/红豆/01 红豆.mp3", "红豆", "王菲", "红豆", 3, ["-c:a", "libmp3lame", "-b:a", "128k", "-id3v2_version", "3"]),
        ("王菲/红豆/02 当时的月亮.flac", "当时的月亮", "王菲", "红豆", 2, ["-c:a", "flac"]),
        ("ヨルシカ/夜/01 夜.ogg", "夜", "ヨルシカ", "夜", 2, ["-c:a", "libvorbis", "-q:a", "2"]),
        ("방탄소년단/Wings/01 피 땀 눈물.opus", "피 땀 눈물", "방탄소년단", "Wings", 2, ["-c:a", "libopus", "-b:a", "64k"]),
        ("The Beatles/Abbey Road/01 Come Together.m4a", "Come Together", "The Beatles", "Abbey Road", 2, ["-c:a", "aac", "-b:a", "96k"]),
        ("Duets/Both/01 Alone.wav", "Alone", "Alice", "Both", 1, ["-c:a", "pcm_s16le"]),
        ("Duets/Both/02 Together.flac", "Together", "Alice", "Both", 1, ["-c:a", "flac"]),
    ]

    static let sheet = """
        PERFORMER "光の楽団"
        TITLE "光"
        FILE "image.flac" WAVE
          TRACK 01 AUDIO
            TITLE "一"
            INDEX 01 00:00:00
          TRACK 02 AUDIO
            TITLE "二"
            INDEX 01 00:04:10

        """

    init() throws {
        try super.init(label: "model") { music in
            for file in Self.files {
                let url = music.appendingPathComponent(file.path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try TestProcess.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=\(file.seconds)",
                                                      "-ac", "2"] + file.codec + ["-metadata", "title=\(file.title)", "-metadata", "artist=\(file.artist)",
                                                      "-metadata", "album=\(file.album)", "-metadata", "track=1", "-metadata", "genre=Pop",
                                                      "-metadata", "date=2001", url.path])
            }
            // Two values of ARTIST: a song of two artists, one of whom (Alice) has a song of her own.
            try TestProcess.runChecked("metaflac", ["--remove-tag=ARTIST", "--set-tag=ARTIST=Alice", "--set-tag=ARTIST=Bob",
                                                    music.appendingPathComponent("Duets/Both/02 Together.flac").path])
            // ReplayGain tags on one file, which no scan measures.
            try TestProcess.runChecked("metaflac", ["--set-tag=REPLAYGAIN_TRACK_GAIN=-4.20 dB", "--set-tag=REPLAYGAIN_TRACK_PEAK=0.500000",
                                                    "--set-tag=REPLAYGAIN_ALBUM_GAIN=-5.00 dB", "--set-tag=REPLAYGAIN_ALBUM_PEAK=0.750000",
                                                    music.appendingPathComponent("王菲/红豆/02 当时的月亮.flac").path])
            try CueFixtures.makeRip(in: music.appendingPathComponent("光/rip"), sheet: Self.sheet)
        }
    }
}
