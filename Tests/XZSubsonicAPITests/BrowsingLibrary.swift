import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZTestSupport
@testable import XZSubsonicAPI

/// A generated music folder with one user beside the owner, `guest`:
/// - `王菲/红豆/` two MP3s (Pop, 1998), `周杰伦/叶惠美/` a FLAC of two genres (Pop and Mandopop, 2003) and an MP3,
///   `ヨルシカ/夜/` and `방탄소년단/Wings/` one MP3 each (J-Pop 2019, K-Pop 2016), `The Beatles/Abbey Road/` two
///   MP3s (Rock, 1969), `top.mp3` at the top (Solo), and `rip/` a FLAC image with `CueFixtures.sheet`'s three
///   tracks, all The Band's (The Album, Rock, 1999).
// Sendable as its base class is: set up before any test call, then only read.
final class BrowsingLibrary: SubsonicTestLibrary, @unchecked Sendable {
    init() throws {
        try super.init(label: "browse", users: [("guest", false)]) { music in
            func mp3(_ path: String, _ title: String, _ artist: String, _ album: String?, track: Int?, year: Int?, genre: String?) throws {
                let url = music.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try AudioFixtures.makeMP3(at: url.path, seconds: 1, tags: .init(title: title, artist: artist, album: album, track: track, year: year),
                                          lameOptions: ["-b", "64"] + (genre.map { ["--tg", $0] } ?? []))
            }
            try mp3("王菲/红豆/02.mp3", "红豆", "王菲", "红豆", track: 2, year: 1998, genre: "Pop")
            try mp3("王菲/红豆/01.mp3", "当时的月亮", "王菲", "红豆", track: 1, year: 1998, genre: "Pop")
            try mp3("周杰伦/叶惠美/02.mp3", "晴天", "周杰伦", "叶惠美", track: 2, year: 2003, genre: "Pop")
            let flac = music.appendingPathComponent("周杰伦/叶惠美/01.flac").path
            try CueFixtures.makeFLAC(at: flac, seconds: 1)
            try TestProcess.runChecked("metaflac", ["--set-tag=TITLE=以父之名", "--set-tag=ARTIST=周杰伦", "--set-tag=ALBUM=叶惠美",
                                                    "--set-tag=TRACKNUMBER=1", "--set-tag=DATE=2003", "--set-tag=GENRE=Pop",
                                                    "--set-tag=GENRE=Mandopop", flac])
            try mp3("ヨルシカ/夜/01.mp3", "ただ君に晴れ", "ヨルシカ", "夜", track: 1, year: 2019, genre: "J-Pop")
            try mp3("방탄소년단/Wings/01.mp3", "Blood Sweat & Tears", "방탄소년단", "Wings", track: 1, year: 2016, genre: "K-Pop")
            try mp3("The Beatles/Abbey Road/01.mp3", "Come Together", "The Beatles", "Abbey Road", track: 1, year: 1969, genre: "Rock")
            try mp3("The Beatles/Abbey Road/02.mp3", "Something", "The Beatles", "Abbey Road", track: 2, year: 1969, genre: "Rock")
            try mp3("top.mp3", "Alone", "Solo", nil, track: nil, year: nil, genre: nil)
            // The shared sheet with every track The Band's, so the rip is one album of one artist.
            try CueFixtures.makeRip(in: music.appendingPathComponent("rip"),
                                    sheet: CueFixtures.sheet.replacingOccurrences(of: #"PERFORMER "Singer A""#, with: ""))
        }
    }

    var guest: LibraryUser { user("guest") }

    /// Every song browsing should list: the files, the CUE tracks in place of their image.
    static let songCount = 9 + 3
}
