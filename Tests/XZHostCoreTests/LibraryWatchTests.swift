import Foundation
import XCTest
import XZCatalogue
import XZFolderScan
@testable import XZHostCore
import XZSystem
import XZTestSupport

/// The music folder watched through inotify: files copied, edited, deleted and renamed in it reach the
/// catalogue without an `update`, in one job per settled batch.
final class LibraryWatchTests: XCTestCase {
    private var folder: TemporaryFolder!
    private var host: PlayerHost!
    private var music: URL!
    /// Where fixtures are made before they are copied in, as a user's album would be.
    private var staging: URL!
    private let told = Listener()
    private var token = 0

    override func setUpWithError() throws {
        folder = try TemporaryFolder("watch")
        music = folder.url.appendingPathComponent("music")
        staging = folder.url.appendingPathComponent("staging")
        for url in [music!, staging!, music.appendingPathComponent("Old Album")] {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        try makeMP3("Old Album/1.mp3", title: "Before")
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let database = try library.open(seedingDemoFrom: nil)
        try database.importFolder(at: music)
        host = PlayerHost(folder: library, database: database, output: .null, musicDirectory: music) { [told] line in
            told.reports.withLock { $0.append(line) }
        }
        token = host.observeChanges { [told] changes in told.changes.withLock { $0.append(changes) } }
    }

    override func tearDown() {
        host?.stopObserving(token)
        host?.shutdown()
        host = nil
        folder = nil
    }

    /// An MP3 made in the staging folder, then copied to `path` in the music folder (folders made as needed).
    private func makeMP3(_ path: String, title: String, album: String = "Album") throws {
        let staged = staging.appendingPathComponent(UUID().uuidString + ".mp3")
        try AudioFixtures.makeMP3(at: staged.path, seconds: 1, tags: .init(title: title, artist: "Watcher", album: album))
        try copyIn(staged, to: path)
    }

    private func copyIn(_ file: URL, to path: String) throws {
        let target = music.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(at: file, to: target)
    }

    private func watch(_ change: (inout LibraryWatchSettings) -> Void = { _ in }) {
        var settings = LibraryWatchSettings()
        change(&settings)
        host.watchLibrary(settings)
    }

    private func title(_ path: String) throws -> String? {
        try host.database.song(localPath: music.appendingPathComponent(path).path)?.title
    }

    /// Jobs that finished: each announces `update` when it starts and when it ends.
    private var finishedJobs: Int {
        told.changes.withLock { $0.filter { $0.contains(.update) }.count } / 2
    }

    private var databaseChanges: Int {
        told.changes.withLock { $0.filter { $0.contains(.database) }.count }
    }

    private func waitFor(_ what: String, _ condition: () throws -> Bool) rethrows {
        XCTAssertTrue(try eventually(timeout: 10, condition), what)
    }

    func testACopiedAlbumAppearsAndObserversHearDatabase() throws {
        watch()
        // Made outside, then the whole folder copied in, as a file manager copies an album.
        let album = staging.appendingPathComponent("New Album")
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        for track in 1...3 {
            try AudioFixtures.makeMP3(at: album.appendingPathComponent("\(track).mp3").path, seconds: 1,
                                      tags: .init(title: "New \(track)", artist: "Watcher", album: "New Album"))
        }
        try FileManager.default.copyItem(at: album, to: music.appendingPathComponent("New Album"))
        try waitFor("the copied album is in the catalogue") { try host.database.songCount() == 4 }
        XCTAssertEqual(try title("New Album/2.mp3"), "New 2")
        waitFor("observers hear database") { databaseChanges >= 1 }
        XCTAssertEqual(try title("Old Album/1.mp3"), "Before", "the songs beside it stay")
        XCTAssertTrue(told.reports.withLock { $0.isEmpty }, "\(told.reports.withLock { $0 })")
    }

    func testEditedDeletedAndRenamedFilesAndFolders() throws {
        try makeMP3("Old Album/2.mp3", title: "Second")
        try makeMP3("Loose.mp3", title: "Loose")
        try host.database.importFolder(at: music)
        watch()
        Thread.sleep(forTimeInterval: 0.3)  // the tree is watched from its own thread

        // A longer title, so the file's size changes as a tag editor's rewrite would change it.
        try makeMP3("Old Album/1.mp3", title: "After a tag edit")
        try waitFor("an edited tag") { try title("Old Album/1.mp3") == "After a tag edit" }

        try FileManager.default.removeItem(at: music.appendingPathComponent("Loose.mp3"))
        try waitFor("a deleted file") { try title("Loose.mp3") == nil && host.database.songCount() == 2 }

        try FileManager.default.moveItem(at: music.appendingPathComponent("Old Album/2.mp3"),
                                         to: music.appendingPathComponent("Old Album/Renamed.mp3"))
        try waitFor("a renamed file") { try title("Old Album/2.mp3") == nil && title("Old Album/Renamed.mp3") == "Second" }

        try FileManager.default.moveItem(at: music.appendingPathComponent("Old Album"), to: music.appendingPathComponent("Moved"))
        try waitFor("a renamed folder") {
            try title("Moved/1.mp3") == "After a tag edit" && title("Old Album/1.mp3") == nil && host.database.songCount() == 2
        }
        // The moved folder is still watched under its new name.
        try makeMP3("Moved/3.mp3", title: "Third")
        try waitFor("a file in the moved folder") { try title("Moved/3.mp3") == "Third" }

        // Moved out of the music folder: its songs go.
        try FileManager.default.moveItem(at: music.appendingPathComponent("Moved"), to: staging.appendingPathComponent("Moved"))
        try waitFor("a folder moved away") { try host.database.songCount() == 0 }
    }

    func testANewNestedFolderIsWatched() throws {
        watch()
        Thread.sleep(forTimeInterval: 0.3)
        try FileManager.default.createDirectory(at: music.appendingPathComponent("a/b/c"), withIntermediateDirectories: true)
        // The folders' own job, which finds no songs, has run: the file below is seen only through c's watch.
        waitFor("the job for the new folders") { finishedJobs == 1 }
        try makeMP3("a/b/c/deep.mp3", title: "Deep")
        try waitFor("a file in the new nested folder") { try title("a/b/c/deep.mp3") == "Deep" }
        waitFor("its own job") { finishedJobs == 2 }
    }

    func testManyFilesCopiedAreOneUpdate() throws {
        // Writes on a busy machine may pause; a longer quiet time keeps this about batching, not speed.
        watch { $0.timing = FolderWatch.Timing(quiet: 2, ceiling: 60) }
        let one = staging.appendingPathComponent("one.mp3")
        try AudioFixtures.makeMP3(at: one.path, seconds: 1, tags: .init(title: "Copy", artist: "Watcher", album: "Many"))
        for index in 1...300 {
            try copyIn(one, to: "Many/\(index).mp3")
        }
        try waitFor("300 songs") { try host.database.songCount() == 301 }
        waitFor("the job finished") { finishedJobs == 1 }
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertEqual(finishedJobs, 1, "one update for the whole copy")
        XCTAssertEqual(databaseChanges, 1)
        XCTAssertEqual(host.updates.lastSummary?.added, 300)
    }

    func testDepthLimitsWhatIsWatched() throws {
        watch { $0.depth = 0 }
        Thread.sleep(forTimeInterval: 0.3)
        try makeMP3("Old Album/deeper.mp3", title: "Unseen")
        // A folder made in the music folder itself is seen, and imported with what it holds.
        try makeMP3("New/top.mp3", title: "Seen")
        try waitFor("a new folder in the music folder itself") { try title("New/top.mp3") == "Seen" }
        waitFor("its job finished") { finishedJobs == 1 }
        XCTAssertNil(try title("Old Album/deeper.mp3"), "a folder below depth 0 is not watched")
    }

    func testAutoUpdateOffChangesNothing() throws {
        watch { $0.enabled = false }
        try makeMP3("Ignored.mp3", title: "Ignored")
        Thread.sleep(forTimeInterval: 3)
        XCTAssertNil(try title("Ignored.mp3"))
        XCTAssertEqual(told.changes.withLock { $0 }, [])
    }

    /// Where the watch runs out of inotify watches it says so once and rescans periodically.
    func testTooManyFoldersFallBackToRescans() throws {
        watch {
            $0.watchLimit = 1
            $0.rescanInterval = 0.5
        }
        waitFor("the reason, once") { told.reports.withLock { $0.count } == 1 }
        let line = told.reports.withLock { $0[0] }
        XCTAssertTrue(line.hasPrefix("cannot watch \(music.path)/Old Album: "), line)
        XCTAssertTrue(line.hasSuffix("; rescanning it every 0.5 s instead"), line)
        try makeMP3("Old Album/2.mp3", title: "Rescanned")
        try waitFor("a file found by a rescan") { try title("Old Album/2.mp3") == "Rescanned" }
        waitFor("observers hear database") { databaseChanges >= 1 }
        XCTAssertEqual(told.changes.withLock { $0.filter { $0.contains(.update) } }, [], "rescans that run on a timer stay quiet")
        Thread.sleep(forTimeInterval: 1.2)
        XCTAssertEqual(told.reports.withLock { $0.count }, 1)
    }

    func testConfigKeys() throws {
        XCTAssertEqual(try LibraryWatchSettings(config: ConfigFile(parsing: "")).enabled, true)
        let off = try LibraryWatchSettings(config: ConfigFile(parsing: "auto_update = no\nauto_update_depth = 2\n"))
        XCTAssertFalse(off.enabled)
        XCTAssertEqual(off.depth, 2)
        XCTAssertThrowsError(try LibraryWatchSettings(config: ConfigFile(parsing: "auto_update = sometimes"))) { error in
            XCTAssertEqual(error as? SystemError, .config)
            XCTAssertTrue("\(error)".contains("line 1"), "\(error)")
        }
        XCTAssertThrowsError(try LibraryWatchSettings(config: ConfigFile(parsing: "auto_update_depth = -1")))
    }
}

/// What the host told: its changes and its report lines.
private final class Listener: Sendable {
    let changes = Mutex<[HostChanges]>([])
    let reports = Mutex<[String]>([])
}
