import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZStats
import XZTestSupport
import XZHostCore
import XZMPDCommands

/// `sticker` on a real host over TCP: MPD's answers (compared with real MPD), XZMusic's statistics as
/// stickers, rating's range, and `changed: sticker`.
final class StickerTests: MusicFolderHostTestCase {
    private func ack(_ client: MPDClient, _ line: String) -> String {
        RealMPD.answer(client, line).joined(separator: "\n")
    }

    func testTheSameRequestsGetTheSameAnswersAsMPD() throws {
        let script = [
            "sticker get song album/1.mp3 mood", "sticker get song nothere.mp3 mood", "sticker list song nothere.mp3",
            "sticker set song album/1.mp3 mood happy", "sticker set song album/2.mp3 mood sad",
            "sticker set song album/2.mp3 color \"deep blue\"", "sticker set song album/1.mp3 mood glad",
            "sticker get song album/1.mp3 mood", "sticker list song album/2.mp3", "sticker list song album/3.mp3",
            "sticker find song \"\" mood", "sticker find song album mood", "sticker find song album/1.mp3 mood",
            "sticker find song nodir mood", "sticker find song \"\" nosuch", "sticker find song \"\" mood = sad",
            "sticker find song \"\" mood > happy", "sticker find song \"\" mood < h", "sticker find song \"\" mood ! x",
            "sticker find song \"\" mood =", "sticker delete song album/1.mp3 mood",
            "sticker delete song album/1.mp3 mood", "sticker delete song album/3.mp3", "sticker delete song album/2.mp3",
            "sticker list song album/2.mp3", "sticker get foo album/1.mp3 x", "sticker bogus song album/1.mp3",
            "sticker get song album/1.mp3", "sticker set song album/1.mp3 a", "sticker", "sticker get song album x",
            "sticker set song album x y", "sticker set song album/1.mp3 rating 7", "sticker find song \"\" rating > 10",
        ]
        try compareWithRealMPD(script)
    }

    func testStatisticsRatingAndLikeAsStickers() throws {
        let client = try client()
        let path = folder.path("music/album/1.mp3")
        // Two counted plays and a skip of album/1.mp3, recorded as the host records them (by file key).
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        final class Clock: @unchecked Sendable { var now = Date() }
        let clock = Clock()
        clock.now = start
        var rule = PlayCountRule()
        rule.minimumDurationMs = 1_000
        rule.skipMinimumMs = 500
        let recorder = PlaySessionRecorder(database: host.database, rule: rule, clock: { clock.now })
        for (played, reason) in [(3_000, PlayEndReason.completed), (3_000, .completed), (1_000, .skipped)] {
            try recorder.begin(songKey: "file:\(path)", title: "Song 1", singer: "Artist", durationMs: 3_000)
            var position = 0
            while position < played {
                position += 500
                clock.now = clock.now.addingTimeInterval(0.5)
                try recorder.handle(.position(ms: position))
            }
            try recorder.end(reason: reason, positionMs: position)
            clock.now = clock.now.addingTimeInterval(10)
        }
        let lastStart = Int(start.timeIntervalSince1970) + 3 + 10
        XCTAssertEqual(try client.run("sticker", "list", "song", "album/1.mp3").map(\.value),
                       ["lastplayed=\(lastStart)", "playcount=2", "skipcount=1"])
        XCTAssertEqual(ack(client, "sticker set song album/1.mp3 playcount 9"),
                       "ACK 2 {sticker} playcount is read-only: XZMusic keeps it from what was played")
        XCTAssertEqual(ack(client, "sticker delete song album/1.mp3 lastplayed"),
                       "ACK 2 {sticker} lastplayed is read-only: XZMusic keeps it from what was played")
        XCTAssertEqual(ack(client, "sticker get song album/1.mp3 playcount"), "sticker: playcount=2")

        // rating: 0 to 10 only.
        XCTAssertEqual(ack(client, "sticker set song album/1.mp3 rating 11"),
                       "ACK 2 {sticker} rating takes a whole number from 0 to 10, not \"11\"")
        XCTAssertEqual(ack(client, "sticker set song album/1.mp3 rating 8"), "")
        XCTAssertEqual(ack(client, "sticker set song album/2.mp3 rating 10"), "")
        XCTAssertEqual(ack(client, "sticker find song album rating = 8"), "file: album/1.mp3\nsticker: rating=8")

        // like: the library's like, both ways.
        XCTAssertEqual(ack(client, "sticker set song album/2.mp3 like 1"), "")
        XCTAssertTrue(try StatsStore(database: host.database).isLiked(songKey: "file:\(folder.path("music/album/2.mp3"))"))
        XCTAssertEqual(try StatsStore(database: host.database).liked().map(\.title), ["Song 2"])
        XCTAssertEqual(ack(client, "sticker find song \"\" like"), "file: album/2.mp3\nsticker: like=1")
        XCTAssertEqual(ack(client, "sticker set song album/2.mp3 like maybe"),
                       "ACK 2 {sticker} like takes 1 (liked) or 0 (not liked), not \"maybe\"")
        XCTAssertEqual(ack(client, "sticker set song album/2.mp3 like 0"), "")
        XCTAssertEqual(ack(client, "sticker get song album/2.mp3 like"), "ACK 50 {sticker} no such sticker")
        XCTAssertEqual(try client.run("sticker", "list", "song", "album/2.mp3").map(\.value), ["rating=10"])
    }

    func testEveryChangeWakesIdleSticker() throws {
        let watcher = try client()
        let actor = try client()
        for line in ["sticker set song album/1.mp3 mood x", "sticker set song album/1.mp3 like 1",
                     "sticker delete song album/1.mp3 like", "sticker delete song album/1.mp3"] {
            try watcher.sendLine("idle sticker")
            try actor.sendLine(line)
            XCTAssertEqual(try actor.readResponse().count, 0, line)
            XCTAssertEqual(try watcher.readResponse().map(\.value), ["sticker"], line)
        }
        // Reads announce nothing; a like another process writes is noticed by the watch.
        server.service.watchCatalogue(polling: .seconds(3600), makingRecordsAhead: false)
        Thread.sleep(forTimeInterval: 0.2)
        try watcher.sendLine("idle sticker")
        XCTAssertEqual(ack(actor, "sticker get song album/1.mp3 mood"), "ACK 50 {sticker} no such sticker")
        let otherProcess = StatsStore(database: try LibraryDatabase(path: host.database.path))
        _ = try otherProcess.like(songKey: "file:" + folder.path("music/album/2.mp3"), fallbackTitle: "Two")
        XCTAssertEqual(try watcher.readResponse().map(\.value), ["sticker"])
    }
}
