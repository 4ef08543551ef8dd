import Foundation
import XCTest
import XZProtocol
import XZServer
import XZSystem
import XZTestSupport
import XZCatalogue
import XZText

/// One-shot commands through the door to a `serve` host, with other clients at the same time: steps from
/// many clients all count, a queue is replaced whole, and `queue` reads a page, not the queue.
final class HostDoorCommandTests: LibraryProcessTestCase {
    private var host: RunningProcess?

    override func setUpWithError() throws {
        temp = try TemporaryFolder("host-door")
        // The library and its demo exist before processes race to open it.
        XCTAssertEqual(try xzmusic(["info", "#1"]).status, 0)
        let host = try RunningProcess(binary, ["serve", "--no-tcp"], environment: environment)
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        self.host = host
    }

    override func tearDown() {
        host?.signal(SIGTERM)
        XCTAssertEqual(host?.finish(), 0)
    }

    private var endpoint: HostEndpoint {
        HostEndpoint(library: LibraryFolder.resolve(explicit: nil, environment: environment), environment: environment)
    }

    /// A raw protocol client of the host, beside the commands.
    private func client() throws -> MPDClient {
        try XCTUnwrap(try endpoint.connect())
    }

    func testVolumeStepsFromTwoProcessesAtOnceAllCount() throws {
        XCTAssertEqual(try xzmusic(["volume", "0"]).stdout, "volume 0\n")
        let failures = Mutex(0)
        let (binary, environment) = (binary, environment)
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for _ in 0..<50 where (try? TestProcess.run(binary, ["volume", "+1"], environment: environment).status) != 0 {
                failures.withLock { $0 += 1 }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0)
        XCTAssertEqual(try xzmusic(["volume"]).stdout, "volume 100\n", "no step lost")
    }

    func testAnotherClientNeverSeesAHalfBuiltQueue() throws {
        XCTAssertEqual(try xzmusic(["play", "#1", "#2", "#3"]).status, 0)
        let endpoint = endpoint
        let done = Mutex(false)
        let seen = Mutex<Set<Int>>([])
        let polls = Mutex(0)
        let polling = Thread {
            guard let watcher = try? endpoint.connect() else { return }
            while !done.withLock({ $0 }) {
                guard let pairs = try? watcher.run("playlistinfo") else { break }
                seen.withLock { _ = $0.insert(SongRecord.records(pairs).count) }
                polls.withLock { $0 += 1 }
            }
        }
        polling.start()
        let songs = Array(repeating: ["#1", "#2", "#3", "#4", "#5"], count: 100).flatMap { $0 }
        let play = try xzmusic(["play"] + songs)
        done.withLock { $0 = true }
        XCTAssertEqual(play.status, 0, play.stderr)
        XCTAssertEqual(SongRecord.records(try client().run("playlistinfo")).count, 500)
        XCTAssertGreaterThan(polls.withLock { $0 }, 10, "the other client kept looking")
        // The old queue, then the new one whole: never empty, never part of it.
        XCTAssertTrue(seen.withLock { $0 }.isSubset(of: [3, 500]), "lengths seen: \(seen.withLock { $0 }.sorted())")
    }

    func testQueueShowsAPageAroundTheCurrentSong() throws {
        let songs = Array(repeating: ["#1", "#2", "#3"], count: 15).flatMap { $0 }
        XCTAssertEqual(try xzmusic(["play"] + songs).status, 0)
        let first = try xzmusic(["queue"]).stdout.split(separator: "\n")
        XCTAssertEqual(first.count, 21, "20 entries and where the others are: \(first)")
        XCTAssertTrue(first[0].hasPrefix("▶   1  "), "the current song is marked: \(first[0])")
        XCTAssertTrue(first[19].hasPrefix("   20  "), String(first[19]))
        XCTAssertTrue(first[20].hasPrefix("page 1 of 3, 45 in the queue"), String(first[20]))

        try client().run("play", "24")
        let second = try xzmusic(["queue"]).stdout.split(separator: "\n")
        XCTAssertTrue(second[0].hasPrefix("   21  "), "the page of the current song: \(second)")
        XCTAssertTrue(second[4].hasPrefix("▶  25  "), String(second[4]))

        let last = try xzmusic(["queue", "--page", "3"]).stdout.split(separator: "\n")
        XCTAssertEqual(last.count, 6)
        XCTAssertTrue(last[4].hasPrefix("   45  "), String(last[4]))
        XCTAssertEqual(try xzmusic(["queue", "--all"]).stdout.split(separator: "\n").count, 45)

        let beyond = try xzmusic(["queue", "--page", "4"])
        XCTAssertEqual(beyond.status, 1)
        XCTAssertEqual(beyond.stderr, "xzmusic: the queue has 3 pages of 20: --page 1 to 3\n")
        let removed = try xzmusic(["queue", "remove", "46"])
        XCTAssertEqual(removed.stderr, "xzmusic: no entry 46 in the queue (1-45)\n")
        XCTAssertEqual(try xzmusic(["queue", "remove", "0"]).stderr, "xzmusic: no entry 0 in the queue (1-45)\n")
        XCTAssertEqual(try xzmusic(["queue", "remove", "45"]).status, 0)
        XCTAssertTrue(try xzmusic(["queue", "--page", "3"]).stdout.contains("44 in the queue"))
    }

    func testRelativeSeeksAreTheHostsAndPercentSeeksReadTheLength() throws {
        XCTAssertEqual(try xzmusic(["play", "#1"]).status, 0)
        XCTAssertEqual(try xzmusic(["pause"]).stdout, "paused\n")
        let watcher = try client()
        try watcher.run("seekcur", "20")
        XCTAssertTrue(try xzmusic(["seek", "+10"]).stdout.hasPrefix("seek to 0:30 of "))
        XCTAssertTrue(try eventually { PlayerStatus(try watcher.run("status")).elapsedMs.map { (29_000...31_000).contains($0) } ?? false })
        let duration = try XCTUnwrap(PlayerStatus(try watcher.run("status")).durationMs)
        XCTAssertEqual(try xzmusic(["seek", "50%"]).stdout,
                       "seek to \(DurationText.clock(ms: duration / 2)) of \(DurationText.clock(ms: duration))\n")
        XCTAssertEqual(try xzmusic(["seek", "-9999"]).stdout.hasPrefix("seek to 0:00 of "), true, "past the start is the start")
    }
}
