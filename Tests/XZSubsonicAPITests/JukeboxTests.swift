import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZTestSupport
@testable import XZSubsonicAPI

/// jukeboxControl drives the host's own player (the null output here) through its verbs.
final class JukeboxTests: XCTestCase {
    private var fixture: AnnotationLibrary!

    override func setUpWithError() throws {
        fixture = try AnnotationLibrary(seconds: 30)
    }

    override func tearDown() {
        fixture = nil
    }

    @discardableResult
    private func control(_ action: String, _ parameters: [(String, String)] = []) throws -> SubsonicJukeboxStatus {
        try fixture.answer("jukeboxControl", [("action", action)] + parameters, as: fixture.dj, key: "jukeboxStatus",
                           of: SubsonicJukeboxStatus.self)
    }

    func testOnlyJukeboxUsersDriveIt() {
        XCTAssertEqual(SubsonicEndpoints.all["jukeboxControl"]?.access, .jukebox)
    }

    func testJukeboxDrivesTheHostsPlayer() throws {
        let one = try fixture.id("One"), two = try fixture.id("Two"), three = try fixture.id("Three")
        var status = try control("status")
        XCTAssertEqual(status.currentIndex, -1)
        XCTAssertFalse(status.playing)

        try control("set", [("id", one), ("id", two)])
        XCTAssertEqual(fixture.host.snapshot().queue.map(\.title), ["One", "Two"])
        status = try control("start")
        XCTAssertTrue(eventually(timeout: 10) { (try? self.control("status"))?.playing == true })
        XCTAssertEqual(fixture.host.snapshot().state, .playing)
        XCTAssertEqual(try control("status").currentIndex, 0)

        try control("skip", [("index", "1"), ("offset", "5")])
        XCTAssertTrue(eventually(timeout: 10) { (try? self.control("status")).map { $0.currentIndex == 1 && ($0.position ?? 0) >= 5 } == true })
        XCTAssertEqual(fixture.host.snapshot().current?.title, "Two")

        status = try control("setGain", [("gain", "0.25")])
        XCTAssertEqual(status.gain, 0.25)
        XCTAssertEqual(fixture.host.snapshot().volume, 25)

        status = try control("stop")
        XCTAssertFalse(status.playing)
        XCTAssertEqual(fixture.host.snapshot().state, .paused, "Subsonic's stop keeps the place")
        XCTAssertTrue(try control("start").playing || eventually(timeout: 5) { (try? self.control("status"))?.playing == true })

        try control("add", [("id", three)])
        let playlist = try fixture.answer("jukeboxControl", [("action", "get")], as: fixture.dj, key: "jukeboxPlaylist",
                                          of: SubsonicJukeboxPlaylist.self)
        XCTAssertEqual(playlist.entry?.map(\.id), [one, two, three])
        XCTAssertEqual(playlist.entry?.map(\.title), ["One", "Two", "Three"])
        XCTAssertEqual(playlist.status.currentIndex, 1)

        // `set` keeps the song playing where it is when the new queue holds it.
        let before = fixture.host.snapshot().positionMs
        status = try control("set", [("id", three), ("id", two), ("id", one)])
        XCTAssertEqual(fixture.host.snapshot().queue.map(\.title), ["Three", "Two", "One"])
        XCTAssertEqual(status.currentIndex, 1)
        XCTAssertEqual(fixture.host.snapshot().current?.title, "Two")
        XCTAssertGreaterThanOrEqual(fixture.host.snapshot().positionMs, before, "the song went on, not from its start")
        try control("set", [("id", one), ("id", two), ("id", three)])

        try control("remove", [("index", "0")])
        XCTAssertEqual(fixture.host.snapshot().queue.map(\.title), ["Two", "Three"])
        try control("shuffle")
        XCTAssertEqual(Set(fixture.host.snapshot().queue.map(\.title)), ["Two", "Three"])
        try control("clear")
        XCTAssertEqual(fixture.host.snapshot().queueLength, 0)
        XCTAssertEqual(try control("status").currentIndex, -1)
    }

    func testBadJukeboxRequestsChangeNothing() throws {
        let one = try fixture.id("One")
        try control("set", [("id", one)])
        for bad: [(String, String)] in [[("action", "dance")], [], [("action", "skip"), ("index", "1")],
                                        [("action", "skip"), ("index", "-1")], [("action", "skip"), ("index", "0"), ("offset", "-3")],
                                        [("action", "remove"), ("index", "9")], [("action", "setGain"), ("gain", "1.5")],
                                        [("action", "setGain"), ("gain", "nan")], [("action", "setGain")],
                                        [("action", "add"), ("id", "so-31337")], [("action", "add"), ("id", "al-1")]] {
            XCTAssertNotNil(fixture.errorCode("jukeboxControl", bad, as: fixture.dj), "\(bad)")
        }
        fixture.host.maxQueueLength = 2
        XCTAssertEqual(fixture.errorCode("jukeboxControl", [("action", "add"), ("id", one), ("id", one)], as: fixture.dj), 0)
        XCTAssertEqual(fixture.host.snapshot().queue.map(\.title), ["One"])
        XCTAssertEqual(fixture.host.snapshot().volume, 100)
    }
}
