import Foundation
import GRDB
import XCTest
import XZCatalogue
import XZFolderScan
import XZTestSupport
@testable import XZStats

/// Stats follow song_key: a re-import with new titles keeps the counts, and a song a rescan removes
/// keeps its history, likes and place in the top list.
final class ReimportAndRemovalTests: XCTestCase {
    func testReimportWithChangedTitlesKeepsCountsBySongKey() throws {
        let fixture = try StatsFixture()
        try fixture.importFeed([("a", "Old Title", "Old Singer", 200_000), ("b", "Other", "Old Singer", 200_000)])
        let before = try fixture.song("src:a")
        for _ in 0..<3 { try fixture.play(before, playedMs: 120_000) }
        try fixture.play(before, playedMs: 7_000, reason: .skipped)
        try fixture.play(try fixture.song("src:b"), playedMs: 110_000)
        try fixture.store.like(songKey: "src:a", at: fixture.clock.now)

        let summary = try fixture.importFeed([("a", "New Title", "New Singer", 201_000), ("b", "Other", "Old Singer", 200_000)])
        XCTAssertEqual(summary.updated, 1)
        let after = try fixture.song("src:a")
        XCTAssertEqual(after.id, before.id, "re-imports update in place")
        XCTAssertEqual(try fixture.store.plays(songKey: "src:a"), 3)
        let stats = try fixture.store.summary(now: fixture.clock.now)
        XCTAssertEqual(stats.plays, 4)
        XCTAssertEqual(stats.topSongs, [
            TopSong(id: after.id, songKey: "src:a", title: "New Title", singer: "New Singer", plays: 3),
            TopSong(id: try fixture.song("src:b").id, songKey: "src:b", title: "Other", singer: "Old Singer", plays: 1),
        ], "named as the catalogue names them now")
        XCTAssertEqual(stats.topSingers, [TopSinger(name: "New Singer", plays: 3), TopSinger(name: "Old Singer", plays: 1)])
        XCTAssertEqual(stats.mostSkipped.map(\.title), ["New Title"])
        XCTAssertEqual(try fixture.store.liked().map(\.title), ["New Title"])
        // History shows what was played at the time.
        XCTAssertEqual(Set(try fixture.store.history(limit: 10).filter { $0.songKey == "src:a" }.map(\.title)), ["Old Title"])

        // Playing it again after the re-import adds to the same count.
        try fixture.play(after, playedMs: 120_000)
        XCTAssertEqual(try fixture.store.plays(songKey: "src:a"), 4)
    }

    func testSongRemovedByRescanKeepsItsHistory() throws {
        let fixture = try StatsFixture()
        let music = fixture.folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        let keep = music.appendingPathComponent("keep.mp3").path, gone = music.appendingPathComponent("gone.mp3").path
        let options = ["-b", "32", "-m", "m"]
        try AudioFixtures.makeMP3(at: keep, seconds: 31, rate: 8_000, channels: 1,
                                  tags: .init(title: "Keep", artist: "Stayer"), lameOptions: options)
        try AudioFixtures.makeMP3(at: gone, seconds: 31, rate: 8_000, channels: 1,
                                  tags: .init(title: "消えた歌", artist: "歌手"), lameOptions: options)
        XCTAssertEqual(try fixture.database.importFolder(at: music).added, 2)
        let key = try XCTUnwrap(try fixture.database.search("消えた歌").songs.first?.songKey)
        let song = try fixture.song(key)
        XCTAssertEqual(song.songKey, "file:" + URL(fileURLWithPath: gone).resolvingSymlinksInPath().path)
        for _ in 0..<2 { try fixture.play(song, playedMs: try XCTUnwrap(song.durationMs)) }
        try fixture.store.like(songKey: key, at: fixture.clock.now)

        try FileManager.default.removeItem(atPath: gone)
        XCTAssertEqual(try fixture.database.importFolder(at: music).removed, 1)
        XCTAssertEqual(try fixture.database.search("消えた歌").songs, [])

        let history = try fixture.store.history(limit: 10)
        XCTAssertEqual(history.count, 2)
        XCTAssertEqual(history.map(\.title), ["消えた歌", "消えた歌"])
        XCTAssertEqual(history.map(\.singer), ["歌手", "歌手"])
        XCTAssertEqual(history.map(\.songId), [nil, nil])
        XCTAssertEqual(history.map(\.counted), [true, true])
        let stats = try fixture.store.summary(now: fixture.clock.now)
        XCTAssertEqual(stats.topSongs, [TopSong(id: nil, songKey: key, title: "消えた歌", singer: "歌手", plays: 2)])
        XCTAssertEqual(stats.topSingers, [TopSinger(name: "歌手", plays: 2)])
        XCTAssertEqual(try fixture.store.liked().map(\.title), ["消えた歌"])
        XCTAssertEqual(try fixture.store.liked().map(\.songId), [nil])
        // It can still be unliked and liked again by key, named from its history.
        XCTAssertTrue(try fixture.store.unlike(songKey: key))
        XCTAssertTrue(try fixture.store.like(songKey: key))
        XCTAssertEqual(try fixture.store.liked().map(\.singer), ["歌手"])
    }
}
