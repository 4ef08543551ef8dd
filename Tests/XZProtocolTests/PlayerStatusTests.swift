import XCTest
@testable import XZProtocol

final class PlayerStatusTests: XCTestCase {
    func testReadsAStatusAnswer() {
        let status = PlayerStatus([
            ("volume", "40"), ("repeat", "1"), ("random", "0"), ("single", "oneshot"), ("consume", "0"),
            ("playlist", "7"), ("playlistlength", "3"), ("state", "pause"), ("xfade", "2"), ("song", "1"),
            ("songid", "12"), ("time", "13:200"), ("elapsed", "12.345"), ("duration", "199.999"),
            ("bitrate", "320"), ("audio", "44100:16:2"), ("error", "x.mp3: damaged"), ("buffering", "1"),
        ])
        XCTAssertEqual(status.state, .pause)
        XCTAssertEqual(status.volume, 40)
        XCTAssertTrue(status.repeats)
        XCTAssertEqual(status.single, "oneshot")
        XCTAssertEqual(status.playlistVersion, 7)
        XCTAssertEqual(status.playlistLength, 3)
        XCTAssertEqual(status.song, 1)
        XCTAssertEqual(status.songId, 12)
        XCTAssertEqual(status.elapsedMs, 12_345)
        XCTAssertEqual(status.durationMs, 199_999)
        XCTAssertEqual(status.crossfadeSeconds, 2)
        XCTAssertEqual(status.audio, "44100:16:2")
        XCTAssertEqual(status.error, "x.mp3: damaged")
        XCTAssertTrue(status.isBuffering)
        XCTAssertTrue(status.isActive)
    }

    func testValuesOutOfTheirDomainReadAsAbsent() {
        let status = PlayerStatus([
            ("volume", "-1"), ("song", "99999999999999999999"), ("songid", "-3"), ("elapsed", "nan"),
            ("duration", "1e300"), ("playlistlength", "x"), ("state", "dance"),
        ])
        XCTAssertNil(status.volume)
        XCTAssertNil(status.song)
        XCTAssertNil(status.songId)
        XCTAssertNil(status.elapsedMs)
        XCTAssertEqual(status.durationMs, Int(Int32.max))
        XCTAssertEqual(status.playlistLength, 0)
        XCTAssertEqual(status.state, .stop)
        XCTAssertFalse(status.isActive)
    }

    func testSplitsAnAnswerIntoSongRecords() {
        let records = SongRecord.records([
            ("file", "a.flac"), ("Artist", "周杰伦"), ("Artist", "费玉清"), ("Title", "千里之外"), ("Pos", "0"),
            ("Id", "5"), ("duration", "255.5"), ("file", "b.mp3"), ("Time", "31"), ("Pos", "1"), ("Id", "6"),
        ])
        XCTAssertEqual(records.map(\.file), ["a.flac", "b.mp3"])
        XCTAssertEqual(records[0].artists, ["周杰伦", "费玉清"])
        XCTAssertEqual(records[0].title, "千里之外")
        XCTAssertEqual(records[0].durationMs, 255_500)
        XCTAssertEqual(records[1].durationMs, 31_000)
        XCTAssertEqual(records[1].position, 1)
        XCTAssertEqual(records[1].id, 6)
    }
}
