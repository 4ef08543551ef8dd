import Foundation
import XZSystem
import XCTest
import XZCatalogue
import XZFolderScan
@testable import XZHostCore
import XZPlaybackValues
import XZStats
import XZTestSupport

/// The host over a real library: queue items made from songs, and what its observers hear.
final class HostTests: XCTestCase {
    private var folder: TemporaryFolder!
    private var host: PlayerHost!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("host")
        let music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        for (index, title) in ["Near", "Far"].enumerated() {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("\(index + 1).mp3").path, seconds: 2,
                                      tags: .init(title: title, artist: "Host Band", album: "Rooms", track: index + 1))
        }
        try "[00:00.50]first line\n".write(to: music.appendingPathComponent("1.lrc"), atomically: true, encoding: .utf8)
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let database = try library.open(seedingDemoFrom: nil)
        try database.importFolder(at: music)
        host = PlayerHost(folder: library, database: database, output: .null, musicDirectory: music) { _ in }
    }

    override func tearDown() {
        host?.shutdown()
        host = nil
        folder = nil
    }

    private func song(_ title: String) throws -> Song {
        try XCTUnwrap(try host.database.song(localPath: folder.path("music/\(title == "Near" ? 1 : 2).mp3")))
    }

    /// Songs become queue items with what the library keeps of them: the LRC beside the file, the
    /// user's lyric shift and a loudness scan's gains, read for all the songs at once.
    func testQueueItemsCarryWhatTheLibraryKeeps() throws {
        let near = try song("Near"), far = try song("Far")
        try host.database.setLyricsAdjustment(songKey: near.songKey, offsetMs: 300)
        try host.database.saveLoudness([LoudnessRecord(songKey: far.songKey, trackGain: -4.5, trackPeak: 0.9,
                                                       file: FileVersion(path: far.localPath))])
        let items = QueueItem.items([.song(near), .song(far), .file(folder.path("music/2.mp3"))], database: host.database)
        XCTAssertEqual(items.map(\.title), ["Near", "Far", "Far"])
        XCTAssertEqual(items[0].lyricsPath, folder.url.appendingPathComponent("music/1.lrc").path)
        XCTAssertEqual(items[0].lyricsAdjustmentMs, 300)
        XCTAssertNil(items[0].replayGain)
        XCTAssertEqual(items[1].replayGain?.trackGain, -4.5)
        XCTAssertNil(items[1].lyricsPath)
        XCTAssertEqual(items[2].songKey, far.songKey, "a file of the catalogue is its song")
        XCTAssertEqual(host.uri(of: items[0]), "1.mp3")
        XCTAssertEqual(QueueItem(.stream("https://radio.example.invalid/live"), database: host.database).path,
                       "https://radio.example.invalid/live")
    }

    /// Synced lyrics fetched into the library play along with a song that has no LRC file; an LRC file
    /// beside the song wins, and plain fetched lyrics have nothing to sync.
    func testFetchedSyncedLyricsPlayAlong() throws {
        let near = try song("Near"), far = try song("Far")
        try host.database.saveFetchedLyrics(FetchedLyrics(kind: .synced, text: "[00:00.40]fetched line\n"), songKey: far.songKey)
        try host.database.saveFetchedLyrics(FetchedLyrics(kind: .synced, text: "[00:00.40]not this\n"), songKey: near.songKey)
        let items = QueueItem.items([.song(near), .song(far)], database: host.database)
        XCTAssertNil(items[0].lyricsText, "the LRC file beside the song wins")
        XCTAssertEqual(items[1].lyricsText, "[00:00.40]fetched line\n")

        let heard = Mutex<[String]>([])
        host.observe { event in
            if case .lyric(_, _, _, let text) = event { heard.withLock { $0.append(text) } }
        }
        host.add([items[1]])
        host.playItem(at: 0)
        XCTAssertTrue(eventually(timeout: 10) { heard.withLock { $0 } == ["fetched line"] }, "\(heard.withLock { $0 })")
    }

    /// Observers hear what the player says its actions changed, nothing from a command that changes nothing.
    func testObserversHearThePlayersChanges() throws {
        let heard = Mutex(HostChanges())
        let token = host.observeChanges { changes in heard.withLock { $0.formUnion(changes) } }
        defer { host.stopObserving(token) }
        host.add(QueueItem.items([.song(try song("Near"))], database: host.database))
        XCTAssertTrue(eventually { heard.withLock { $0.contains(.queue) } })
        heard.withLock { $0 = [] }
        host.setVolume(host.snapshot().volume)
        host.setVolume(40)
        XCTAssertTrue(eventually { heard.withLock { $0.contains(.volume) } })
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(heard.withLock { $0 }, .volume, "the same volume again is no change")
        host.setOutputEnabled(false)
        XCTAssertTrue(eventually { heard.withLock { $0.contains(.output) } })
    }

    /// Stickers and stored playlists another process writes reach observers through the watch, which
    /// inotify wakes (its poll, for where inotify cannot watch, is an hour apart here); the host's own
    /// writes are told once.
    func testTheWatchHearsOtherProcessesWrites() throws {
        let heard = Mutex<[HostChanges]>([])
        let token = host.observeChanges { changes in heard.withLock { $0.append(changes) } }
        defer { host.stopObserving(token) }
        host.watchCatalogue(polling: .seconds(3600))
        Thread.sleep(forTimeInterval: 0.2)
        let other = StatsStore(database: try LibraryDatabase(path: host.database.path))
        _ = try other.like(songKey: try song("Far").songKey)
        XCTAssertTrue(eventually { heard.withLock { $0.contains(.stickers) } })
        let playlists = StoredPlaylists(library: host.folder).folder
        try FileManager.default.createDirectory(at: playlists, withIntermediateDirectories: true)
        try "1.mp3\n".write(to: playlists.appendingPathComponent("mix.m3u"), atomically: true, encoding: .utf8)
        XCTAssertTrue(eventually { heard.withLock { $0.contains(.storedPlaylists) } })
        Thread.sleep(forTimeInterval: 0.3)
        heard.withLock { $0 = [] }
        try StickerStore(database: host.database).set(songKey: try song("Near").songKey, name: "mood", value: "x",
                                                      title: "Near", singer: "Host Band")
        host.wrote(.stickers)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(heard.withLock { $0 }, [.stickers], "the host's own write is told once")
    }
}
