import Foundation
import GRDB
import XCTest
import XZCatalogue
import XZTestSupport
@testable import XZStats
#if canImport(Glibc)
import Glibc
#endif

/// A library on a disk that fills up (or turns read-only): finished plays wait in memory, the recorder
/// says why in one line, and they are all written once the database can be written again.
final class FullDiskStatsTests: XCTestCase {
    /// A 3 MiB tmpfs mounted on a temporary folder, unmounted at the end; skipped where mounting is not allowed.
    private final class SmallDisk {
        let folder: TemporaryFolder
        let mountPoint: String

        init() throws {
            folder = try TemporaryFolder("full-disk")
            mountPoint = folder.path("disk")
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
            let mounted = try TestProcess.run("mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", mountPoint])
            guard mounted.status == 0 else {
                throw XCTSkip("cannot mount a small tmpfs here (\(mounted.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))")
            }
        }

        func path(_ name: String) -> String { mountPoint + "/" + name }

        /// Writes a filler file until the disk refuses more; returns its path.
        func fill() throws -> String {
            let path = self.path("filler")
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw TestFailure("cannot make the filler: \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            let block = [UInt8](repeating: 0x55, count: 4096)
            while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
            XCTAssertEqual(errno, ENOSPC, "the filler stopped at a full disk")
            return path
        }

        deinit {
            _ = try? TestProcess.run("umount", [mountPoint])
        }
    }

    private func importSongs(_ database: LibraryDatabase, in folder: String, count: Int) throws {
        let lines = (1 ... count).map { #"{"source_id":"\#($0)","title":"Song \#($0)","singer":"Singer","duration_ms":40000}"# }
        let url = URL(fileURLWithPath: folder + "/feed.jsonl")
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        try database.importFeed(at: url)
        try FileManager.default.removeItem(at: url)
    }

    private func song(_ database: LibraryDatabase, _ key: String) throws -> Song {
        let id = try database.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM song WHERE song_key = ?", arguments: [key])
        }
        return try XCTUnwrap(try id.flatMap { try database.song(id: $0) }, "no song \(key)")
    }

    /// Plays `song` to its end (40 s of position ticks; the song is long enough to count) without throwing, whatever the disk says.
    private func playWhole(_ recorder: PlaySessionRecorder, _ song: Song) throws {
        try recorder.begin(song: song)
        for ms in stride(from: 1000, through: 40_000, by: 1000) { try recorder.handle(.position(ms: ms)) }
        try recorder.end(reason: .completed, positionMs: 40_000)
    }

    func testPlaysDuringAFullDiskAreWrittenOnceSpaceReturns() throws {
        let disk = try SmallDisk()
        let database = try LibraryDatabase(path: disk.path("library.sqlite"))
        try importSongs(database, in: disk.mountPoint, count: 40)
        // An empty write-ahead log, so the next write needs new space on the disk.
        try database.pool.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        let recorder = PlaySessionRecorder(database: database)
        recorder.retryInterval = 0
        let filler = try disk.fill()

        for n in 1 ... 40 { try playWhole(recorder, try song(database, "src:\(n)")) }
        XCTAssertEqual(recorder.waitingReason, "the disk is full")
        XCTAssertTrue(recorder.hasUnsavedChanges)

        try FileManager.default.removeItem(atPath: filler)
        recorder.retryUnsaved()
        XCTAssertNil(recorder.waitingReason)
        XCTAssertFalse(recorder.hasUnsavedChanges)
        let store = StatsStore(database: database)
        for n in 1 ... 40 { XCTAssertEqual(try store.plays(songKey: "src:\(n)"), 1, "song \(n)") }
        let sessions = try database.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM play_session") }
        XCTAssertEqual(sessions, 40)
    }

    /// The same for a database that cannot be written for another reason (here: read-only).
    func testPlaysWhileTheDatabaseIsReadOnlyAreWrittenOnceItIsWritable() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "One", "Singer", 40_000), ("2", "Two", "Singer", 40_000)])
        let recorder = fixture.recorder
        recorder.retryInterval = 0
        try fixture.database.pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 1") }
        try playWhole(recorder, try fixture.song("src:1"))
        try playWhole(recorder, try fixture.song("src:2"))
        XCTAssertEqual(recorder.waitingReason, "the library database is read-only")
        XCTAssertEqual(try fixture.store.plays(songKey: "src:1"), 0)

        try fixture.database.pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 0") }
        recorder.retryUnsaved()
        XCTAssertNil(recorder.waitingReason)
        XCTAssertEqual(try fixture.store.plays(songKey: "src:1"), 1)
        XCTAssertEqual(try fixture.store.plays(songKey: "src:2"), 1)
    }
}
