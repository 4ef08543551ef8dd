import Foundation
import GRDB
import XCTest
import XZCatalogue
import XZTestSupport
@testable import XZStats

/// A library database in a temporary folder, with a stats store and a recorder on a test clock.
final class StatsFixture {
    let folder: TemporaryFolder
    let database: LibraryDatabase
    let store: StatsStore
    let clock = TestClock()
    private(set) lazy var recorder = PlaySessionRecorder(database: database, clock: { [clock] in clock.now })

    init() throws {
        folder = try TemporaryFolder("stats")
        database = try LibraryDatabase(path: folder.path("library.sqlite"))
        store = StatsStore(database: database)
    }

    /// Imports songs given as (source id, title, singer, duration ms).
    @discardableResult
    func importFeed(_ songs: [(id: String, title: String, singer: String, durationMs: Int)],
                    name: String = "feed.jsonl") throws -> ImportSummary {
        let lines = songs.map { song -> String in
            let fields: [String: Any] = ["source_id": song.id, "title": song.title, "singer": song.singer,
                                         "duration_ms": song.durationMs]
            let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
        let url = folder.url.appendingPathComponent(name)
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        return try database.importFeed(at: url)
    }

    func song(_ key: String) throws -> Song {
        let id = try database.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM song WHERE song_key = ?", arguments: [key])
        }
        return try XCTUnwrap(try id.flatMap { try database.song(id: $0) }, "no song \(key)")
    }

    /// Plays `song` from 0 with a tick every second for `playedMs`, then ends it; the clock moves
    /// along with the audio.
    @discardableResult
    func play(_ song: Song, playedMs: Int, reason: PlayEndReason = .completed) throws -> Int64 {
        let id = try XCTUnwrap(try recorder.begin(song: song), "the database was busy")
        var position = 0
        while position < playedMs {
            let step = min(1000, playedMs - position)
            position += step
            clock.advance(ms: step)
            try recorder.handle(.position(ms: position))
        }
        try recorder.end(reason: reason, positionMs: position)
        return id
    }

    func row(_ id: Int64) throws -> Row {
        try XCTUnwrap(try database.pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM play_session WHERE id = ?", arguments: [id])
        })
    }
}

/// A settable clock for the recorder.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_795_000_000) // 2026-11-18T11:06:40Z

    var now: Date {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }

    func advance(ms: Int) { now = now.addingTimeInterval(Double(ms) / 1000) }
}

/// "2026-11-21T10:00:00Z" as a Date, for readable test data.
func utc(_ text: String) -> Date {
    (try? Date.ISO8601FormatStyle().parse(text)) ?? Date(timeIntervalSince1970: 0)
}
