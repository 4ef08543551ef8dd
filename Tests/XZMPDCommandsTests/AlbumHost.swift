import Foundation
import XZCatalogue
import XZHostCore
import XZTestSupport

/// A host (null output) over a temporary music folder holding one album of three generated MP3s,
/// `album/1.mp3` … `album/3.mp3` titled One, Two and Three.
func makeAlbumHost(in folder: TemporaryFolder, artist: String = "Band") throws -> PlayerHost {
    let music = folder.url.appendingPathComponent("music")
    try FileManager.default.createDirectory(at: music.appendingPathComponent("album"), withIntermediateDirectories: true)
    for (index, title) in ["One", "Two", "Three"].enumerated() {
        try AudioFixtures.makeMP3(at: music.appendingPathComponent("album/\(index + 1).mp3").path, seconds: 3,
                                  tags: .init(title: title, artist: artist, album: "LP", track: index + 1))
    }
    let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
    let host = PlayerHost(folder: library, database: try library.open(seedingDemoFrom: nil), output: .null,
                          musicDirectory: music, seed: 7) { _ in }
    // As a host started on the folder scans it first (MPD's database), before any client adds from it.
    host.scanMusicFolderIfUnscanned()
    host.updates.wait()
    return host
}
