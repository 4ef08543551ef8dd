import Foundation
import XCTest
import XZCatalogue
import XZDownloader
import XZSystem
import XZTestSupport

/// A lyrics-fetch run over a real library against a local LRCLIB-shaped server: who is asked, what is kept,
/// and a second run asking only what the first left open.
final class LyricsFetchRunTests: XCTestCase {
    private static func record(_ title: String, synced: String? = nil, plain: String? = nil) -> [String: Any] {
        ["id": 1, "trackName": title, "artistName": "Singer", "albumName": "Album", "duration": 200,
         "instrumental": false, "plainLyrics": plain ?? NSNull(), "syncedLyrics": synced ?? NSNull()]
    }

    private func fixture() throws -> DownloadFixture {
        let fixture = try DownloadFixture("lyrics-run") { request, _ in
            let title = request.query["track_name"] ?? ""
            switch (request.path, title) {
            case ("/api/get", "Synced"): return .json(200, Self.record(title, synced: "[00:01.00]sung", plain: "sung"))
            case ("/api/get", _): return .json(404, ["message": "Failed to find specified track", "name": "TrackNotFound", "statusCode": 404])
            case ("/api/search", "Plain"), ("/api/search", "Own Plain"): return .json(200, [Self.record(title, plain: "words")])
            default: return .json(200, [] as [Any])
            }
        }
        try fixture.addSongs(["Synced", "Plain", "Nothing", "Own Synced", "Own Plain"].enumerated().map { number, title in
            ["source_id": "s\(number)", "title": title, "singer": "Singer", "album": "Album", "duration_ms": 200_000]
        })
        return fixture
    }

    /// Lyrics of their own, as the host would find them beside the songs.
    private static func own(_ song: Song) -> FetchedLyricsKind? {
        switch song.title {
        case "Own Synced": .synced
        case "Own Plain": .plain
        default: nil
        }
    }

    private func songs(_ fixture: DownloadFixture) throws -> [Song] {
        try (0..<5).map { try fixture.song("s\($0)") }
    }

    func testRunKeepsAnswersAndAsksOnlyWhatIsOpen() async throws {
        let fixture = try fixture()
        let songs = try songs(fixture)
        let run = try LyricsFetchRun(songs: songs + [songs[0]], database: fixture.database, settings: fixture.settings,
                                     missingOnly: false, ownLyrics: Self.own)
        XCTAssertEqual(run.skipped.map(\.song.title), ["Own Synced"])
        XCTAssertEqual(run.skipped.map(\.reason), ["has synced lyrics"])
        XCTAssertEqual(run.pending.map(\.title), ["Synced", "Plain", "Nothing", "Own Plain"], "each song asked once")

        var answered: [String: FetchedLyricsKind] = [:]
        let database = fixture.database
        let counts = try await run.run { event in
            guard case .answered(let song, .found(let lyrics, _)) = event else { return XCTFail("\(event)") }
            // Told once kept.
            XCTAssertEqual(try database.fetchedLyrics(songKey: song.songKey)?.kind, lyrics.kind)
            answered[song.title] = lyrics.kind
        }
        XCTAssertEqual(answered, ["Synced": .synced, "Plain": .plain, "Nothing": .notFound, "Own Plain": .plain])
        XCTAssertEqual(counts.synced, 1)
        XCTAssertEqual(counts.plain, 2)
        XCTAssertEqual(counts.notFound, 1)
        XCTAssertEqual(counts.skipped, 1)
        XCTAssertEqual(counts.failed, 0)

        // Answers stand and the miss is fresh: nothing is asked; --missing also leaves plain lyrics of a song's own.
        let asked = fixture.server.requests.count
        let again = try LyricsFetchRun(songs: songs, database: fixture.database, settings: fixture.settings,
                                       missingOnly: false, ownLyrics: Self.own)
        XCTAssertTrue(again.pending.isEmpty)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: again.skipped.map { ($0.song.title, $0.reason) }), [
            "Synced": "already fetched (synced)", "Plain": "already fetched (plain)", "Nothing": "not found recently",
            "Own Synced": "has synced lyrics", "Own Plain": "already fetched (plain)",
        ])
        XCTAssertEqual(LyricsFetchRun.skipReason(own: .plain, kept: nil, settings: fixture.settings, missingOnly: true), "has lyrics")
        XCTAssertNil(LyricsFetchRun.skipReason(own: .plain, kept: nil, settings: fixture.settings, missingOnly: false))

        // A miss older than lyrics_miss_days is asked again, in the background; nothing else is.
        var settings = fixture.settings
        settings.lyricsMissDays = 0
        let expired = try LyricsFetchRun(songs: songs, database: fixture.database, settings: settings,
                                         missingOnly: false, ownLyrics: Self.own)
        XCTAssertEqual(expired.pending.map(\.title), ["Nothing"])
        let done = expectation(description: "finished")
        let told = Mutex<[String]>([])
        expired.runInBackground(report: { event in
            if case .answered(let song, _) = event { told.withLock { $0.append(song.title) } }
        }, finished: { done.fulfill() })
        await fulfillment(of: [done], timeout: 30)
        XCTAssertEqual(told.withLock { $0 }, ["Nothing"])
        XCTAssertEqual(Set(fixture.server.requests.dropFirst(asked).compactMap { $0.query["track_name"] }), ["Nothing"])
    }

    func testUnreachableServerFailsEverySong() async throws {
        let fixture = try fixture()
        fixture.server.stop()
        let run = try LyricsFetchRun(songs: try songs(fixture), database: fixture.database, settings: fixture.settings,
                                     missingOnly: false, ownLyrics: Self.own)
        let counts = try await run.run { _ in }
        XCTAssertEqual(counts.failed, 4)
        XCTAssertEqual(counts.skipped, 1)
        XCTAssertTrue(try fixture.database.fetchedLyrics(songKeys: try songs(fixture).map(\.songKey)).isEmpty, "a failure keeps nothing")
    }
}
