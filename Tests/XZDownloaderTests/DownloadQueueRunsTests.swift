import Foundation
import XCTest
import XZCatalogue
import XZDownloader
import XZSystem
import XZTestSupport

/// A command's ways of driving the queue, against a local server: one action on a task or all of them, and
/// a run until nothing more can start that counts only its own failures.
final class DownloadQueueRunsTests: XCTestCase {
    private func fixture() throws -> DownloadFixture {
        let body = try MP3Bodies.small()
        let fixture = try DownloadFixture("queue-runs") { request, _ in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            return request.path == "/gone.mp3" ? .text(404, "gone") : TestHTTPServer.file(body, request: request)
        }
        fixture.settings.retries = 0
        try fixture.addSongs([
            songFields("good", title: "Good", url: fixture.server.url("/good.mp3")),
            songFields("gone", title: "Gone", url: fixture.server.url("/gone.mp3")),
            songFields("later", title: "Later", url: fixture.server.url("/later.mp3")),
        ])
        return fixture
    }

    func testActionsCountTasksAndAnUnknownIdIsNil() async throws {
        let fixture = try fixture()
        let manager = fixture.manager()
        try await manager.enqueue(songs: [try fixture.song("good"), try fixture.song("gone")])
        let paused = try await manager.apply(.pause, to: .all)
        XCTAssertEqual(paused, 4, "audio and lyrics of both songs")
        let unknown = try await manager.apply(.resume, to: .task(999))
        XCTAssertNil(unknown)
        let listed = try await manager.tasks()
        let audio = try XCTUnwrap(listed.first { $0.songKey == "src:good" && $0.kind == .audio })
        let resumed = try await manager.apply(.resume, to: .task(audio.id))
        XCTAssertEqual(resumed, 1)
        // A task that exists but is not paused changes nothing, and is no unknown task.
        let again = try await manager.apply(.resume, to: .task(audio.id))
        XCTAssertEqual(again, 0)
        let cancelled = try await manager.apply(.cancel, to: .task(audio.id))
        XCTAssertEqual(cancelled, 1)
        let after = try await manager.tasks()
        XCTAssertEqual(after.first { $0.id == audio.id }?.state, .cancelled)
        await manager.shutdown()
    }

    func testRunUntilIdleCountsOnlyThisRunsFailures() async throws {
        let fixture = try fixture()
        let first = fixture.manager()
        try await first.enqueue(songs: [try fixture.song("good"), try fixture.song("gone")])
        let heard = EventLog()
        let failures = await first.runUntilIdle { heard.add($0) }
        // The song's audio, and its lyrics, which had no song to go with.
        XCTAssertEqual(failures, 2)
        XCTAssertEqual(heard.failed, ["Gone", "Gone"])
        XCTAssertTrue(heard.finished.contains("Good"))
        XCTAssertTrue(try fixture.song("good").isLocal)

        // The failed task stays in the list; a later run of other songs does not count it.
        let second = fixture.manager()
        try await second.enqueue(songs: [try fixture.song("later")])
        let failuresLater = await second.runUntilIdle { _ in }
        XCTAssertEqual(failuresLater, 0)
        XCTAssertTrue(try fixture.song("later").isLocal)
        let third = fixture.manager()
        let left = try await third.tasks()
        XCTAssertEqual(left.first { $0.songKey == "src:gone" && $0.kind == .audio }?.state, .failed)
        await third.shutdown()
    }
}

/// Titles of the finished and failed tasks a run told of.
private final class EventLog: Sendable {
    private let events = Mutex<[DownloadEvent]>([])

    func add(_ event: DownloadEvent) { events.withLock { $0.append(event) } }

    var failed: [String] {
        events.withLock { $0.compactMap { if case .failed(let info) = $0 { info.title } else { nil } } }
    }

    var finished: [String] {
        events.withLock { $0.compactMap { if case .finished(let info) = $0 { info.title } else { nil } } }
    }
}
