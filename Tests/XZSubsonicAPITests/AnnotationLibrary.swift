import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZHostCore
import XZMPDCommands
import XZTestSupport
@testable import XZSubsonicAPI

/// Four generated MP3s — `Band/Album/01.mp3` "One" and `02.mp3` "Two", `Other/Record/01.mp3` "Three" and
/// `02.mp3` "Four" — with three users beside the owner: `guest` and `third` (plain users) and `dj` (given
/// the jukebox role). MPD commands are sent as a connection sends them.
// Sendable as its base class is; its MPD session is used by the test's own thread alone.
final class AnnotationLibrary: SubsonicTestLibrary, @unchecked Sendable {
    private var session = ClientSession(peer: .network, passwordRequired: false)
    private lazy var service = MPDService(host: host)

    init(seconds: Double = 1) throws {
        try super.init(label: "annotate", users: [("guest", false), ("third", false), ("dj", true)]) { music in
            for (path, title, artist, album, track) in [("Band/Album/01.mp3", "One", "Band", "Album", 1), ("Band/Album/02.mp3", "Two", "Band", "Album", 2),
                                                        ("Other/Record/01.mp3", "Three", "Other", "Record", 1),
                                                        ("Other/Record/02.mp3", "Four", "Other", "Record", 2)] {
                let url = music.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                _ = try AudioFixtures.makeMP3(at: url.path, seconds: seconds, tags: .init(title: title, artist: artist, album: album, track: track),
                                              lameOptions: ["-b", "64"])
            }
        }
    }

    var guest: LibraryUser { user("guest") }
    var third: LibraryUser { user("third") }
    var dj: LibraryUser { user("dj") }

    /// The album row of a song, as its Child names it.
    func albumID(_ song: Song) throws -> Int64 {
        guard let text = try library.children(of: [song]).first?.albumId, case .album(let id)? = SubsonicID(text) else {
            throw TestFailure("\(song.title) has no album")
        }
        return id
    }

    /// What an MPD client connected over the network reads in answer to `line`.
    func mpd(_ line: String) -> String {
        String(decoding: session.receive(line: line, service: service).bytes, as: UTF8.self)
    }

    /// The values of `name: value` lines of an MPD answer.
    func mpdValues(_ name: String, _ line: String) -> [String] {
        mpd(line).split(separator: "\n").compactMap { row in
            row.hasPrefix(name + ": ") ? String(row.dropFirst(name.count + 2)) : nil
        }
    }
}
