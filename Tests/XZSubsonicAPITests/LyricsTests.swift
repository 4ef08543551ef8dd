import Foundation
import XCTest
import XZCatalogue
import XZTestSupport
@testable import XZSubsonicAPI

final class LyricsTests: XCTestCase {
    /// An LRC beside 红豆 with an [offset:] tag and a translation line under each lyric line.
    static let bilingual = """
        [ar:王菲]
        [ti:红豆]
        [la:zh]
        [offset:500]
        [00:10.00]还没好好的感受
        [00:10.00]Before I could feel it
        [00:15.50]雪花绽放的气候
        [00:15.50]The weather of snowflakes blooming
        [00:21.25]我们一起颤抖
        [00:21.25]We shiver together

        """

    private func lyricsList(_ fixture: BrowsingLibrary, _ song: Song, enhanced: Bool? = nil) throws -> LyricsList {
        var parameters = [("id", SubsonicID.song(song.id).text)]
        if let enhanced { parameters.append(("enhanced", enhanced ? "true" : "false")) }
        return try fixture.answer("getLyricsBySongId", parameters, of: LyricsList.self)
    }

    func testSyncedLinesCarryTheFilesOffsetAndTheListenersShiftAndATranslationLayer() throws {
        let fixture = try BrowsingLibrary()
        let song = try fixture.song(titled: "红豆")
        let lrc = (song.localPath as NSString).deletingPathExtension + ".lrc"
        try Self.bilingual.write(toFile: lrc, atomically: true, encoding: .utf8)
        // The listener shows them 200 ms sooner still (`lyrics offset +200`).
        try fixture.database.setLyricsAdjustment(songKey: song.songKey, offsetMs: 200)

        let plain = try lyricsList(fixture, song)
        XCTAssertEqual(plain.structuredLyrics.count, 1, "version 1 clients get the main layer alone")
        let main = try XCTUnwrap(plain.structuredLyrics.first)
        XCTAssertTrue(main.synced)
        XCTAssertEqual(main.lang, "zh")
        XCTAssertNil(main.kind)
        XCTAssertEqual(main.offset, 0)
        XCTAssertEqual(main.displayArtist, "王菲")
        XCTAssertEqual(main.displayTitle, "红豆")
        // 10.00 s less the file's 500 ms and the listener's 200 ms.
        XCTAssertEqual(main.line.map(\.start), [9_300, 14_800, 20_550])
        XCTAssertEqual(main.line.map(\.value), ["还没好好的感受", "雪花绽放的气候", "我们一起颤抖"])

        let enhanced = try lyricsList(fixture, song, enhanced: true)
        XCTAssertEqual(enhanced.structuredLyrics.map(\.kind), ["main", "translation"])
        let translation = enhanced.structuredLyrics[1]
        XCTAssertEqual(translation.lang, "und")
        XCTAssertTrue(translation.synced)
        XCTAssertEqual(translation.line.map(\.start), [9_300, 14_800, 20_550])
        XCTAssertEqual(translation.line.map(\.value), ["Before I could feel it", "The weather of snowflakes blooming", "We shiver together"])

        // The legacy call finds the song by singer and title and gives the main layer as text.
        let legacy = try fixture.answer("getLyrics", [("artist", "王菲"), ("title", "红豆")], of: SubsonicLyrics.self)
        XCTAssertEqual(legacy.value, "还没好好的感受\n雪花绽放的气候\n我们一起颤抖")
        XCTAssertEqual(legacy.title, "红豆")
        // Found by pinyin too, as search finds.
        XCTAssertEqual(try fixture.answer("getLyrics", [("artist", "wangfei"), ("title", "hongdou")], of: SubsonicLyrics.self).value,
                       legacy.value)
    }

    func testAShiftPastTheStartHoldsAtZeroAndARepeatedLineIsNoTranslation() throws {
        let fixture = try BrowsingLibrary()
        let song = try fixture.song(titled: "晴天")
        let lrc = (song.localPath as NSString).deletingPathExtension + ".lrc"
        try "[00:01.00]故事的小黄花\n[00:05.00]从出生那年就飘着\n[00:05.00]从出生那年就飘着\n[00:09.00]童年的荡秋千\n[00:12.00]随记忆一直晃到现在\n"
            .write(toFile: lrc, atomically: true, encoding: .utf8)
        try fixture.database.setLyricsAdjustment(songKey: song.songKey, offsetMs: 3_000)
        let list = try lyricsList(fixture, song, enhanced: true)
        XCTAssertEqual(list.structuredLyrics.count, 1)
        XCTAssertEqual(list.structuredLyrics[0].line.map(\.start), [0, 2_000, 2_000, 6_000, 9_000])
    }

    func testUnsyncedLyricsHaveLinesWithoutStart() throws {
        let fixture = try BrowsingLibrary()
        let song = try fixture.song(titled: "Something")
        try fixture.database.saveFetchedLyrics(FetchedLyrics(kind: .plain, text: "Something in the way she moves\n\nAttracts me\n"),
                                               songKey: song.songKey)
        let list = try lyricsList(fixture, song)
        let lyrics = try XCTUnwrap(list.structuredLyrics.first)
        XCTAssertFalse(lyrics.synced)
        XCTAssertNil(lyrics.offset)
        XCTAssertEqual(lyrics.line.map(\.value), ["Something in the way she moves", "", "Attracts me"])
        XCTAssertTrue(lyrics.line.allSatisfy { $0.start == nil })
        XCTAssertEqual(try fixture.answer("getLyrics", [("artist", "The Beatles"), ("title", "Something")], of: SubsonicLyrics.self).value,
                       "Something in the way she moves\n\nAttracts me")
    }

    func testEmbeddedLyricsAreReadAndSyncedOnesWinOverPlainOnes() throws {
        let fixture = try BrowsingLibrary()
        let synced = try fixture.song(titled: "Come Together")
        try TestProcess.runChecked("mid3v2", ["-e", "--USLT", ":[00:01.00]Here come old flat-top\\n[00:03.50]He come grooving up slowly:eng",
                                              synced.localPath])
        let list = try lyricsList(fixture, synced)
        XCTAssertEqual(list.structuredLyrics.first?.synced, true)
        XCTAssertEqual(list.structuredLyrics.first?.line.map(\.start), [1_000, 3_500])

        // Plain lyrics in the tag, synced ones fetched: the synced ones are given.
        let song = try fixture.song(titled: "Something")
        try TestProcess.runChecked("mid3v2", ["-e", "--USLT", ":Something in the way:eng", song.localPath])
        XCTAssertEqual(try lyricsList(fixture, song).structuredLyrics.first?.synced, false)
        try fixture.database.saveFetchedLyrics(FetchedLyrics(kind: .synced, text: "[00:00.50]Something in the way she moves\n"),
                                               songKey: song.songKey)
        let best = try XCTUnwrap(try lyricsList(fixture, song).structuredLyrics.first)
        XCTAssertTrue(best.synced)
        XCTAssertEqual(best.line.map(\.value), ["Something in the way she moves"])
    }

    func testASongWithoutLyricsAndUnknownIds() throws {
        let fixture = try BrowsingLibrary()
        XCTAssertEqual(try lyricsList(fixture, try fixture.song(titled: "Alone")).structuredLyrics, [])
        XCTAssertEqual(try fixture.answer("getLyrics", [("artist", "nobody at all"), ("title", "no such song")], of: SubsonicLyrics.self).value, "")
        XCTAssertEqual(try fixture.answer("getLyrics", [], of: SubsonicLyrics.self).value, "")
        XCTAssertEqual(fixture.errorCode("getLyricsBySongId", [("id", "so-999999")]), 70)
        XCTAssertEqual(fixture.errorCode("getLyricsBySongId", [("id", "al-1")]), 70)
        XCTAssertEqual(fixture.errorCode("getLyricsBySongId", [("id", "../../etc/passwd")]), 70)
        XCTAssertEqual(fixture.errorCode("getLyricsBySongId", []), 10)
    }

    func testWordTimingIsGivenAsCueLinesToEnhancedClients() throws {
        let fixture = try BrowsingLibrary()
        let song = try fixture.song(titled: "当时的月亮")
        try "[00:02.00]<00:02.00>红豆 <00:02.80>相思\n[00:05.00]no words here\n[00:07.00]<00:07.00>Hello <00:07.40>world\n"
            .write(toFile: (song.localPath as NSString).deletingPathExtension + ".lrc", atomically: true, encoding: .utf8)
        try fixture.database.setLyricsAdjustment(songKey: song.songKey, offsetMs: -1_000)

        let plain = try lyricsList(fixture, song)
        XCTAssertNil(plain.structuredLyrics[0].cueLine)
        let main = try XCTUnwrap(try lyricsList(fixture, song, enhanced: true).structuredLyrics.first)
        XCTAssertEqual(main.line.map(\.value), ["红豆 相思", "no words here", "Hello world"])
        // A negative shift shows them later.
        XCTAssertEqual(main.line.map(\.start), [3_000, 6_000, 8_000])
        let cueLines = try XCTUnwrap(main.cueLine)
        XCTAssertEqual(cueLines.map(\.index), [0, 2])
        XCTAssertEqual(cueLines[0].value, "红豆 相思")
        XCTAssertEqual(cueLines[0].cue, [Cue(start: 3_000, byteStart: 0, byteEnd: 5, value: "红豆"),
                                         Cue(start: 3_800, byteStart: 7, byteEnd: 12, value: "相思")])
        XCTAssertEqual(cueLines[1].cue, [Cue(start: 8_000, byteStart: 0, byteEnd: 4, value: "Hello"),
                                         Cue(start: 8_400, byteStart: 6, byteEnd: 10, value: "world")])
        for cueLine in cueLines {
            let bytes = Array(cueLine.value.utf8)
            for cue in cueLine.cue {
                XCTAssertEqual(String(decoding: bytes[cue.byteStart...cue.byteEnd], as: UTF8.self), cue.value)
            }
        }
    }

    func testResponsesMatchTheSpecsSchemasInJSONAndCarryTheTextInXML() throws {
        let validator = try ModelSchemaValidator.make()
        let fixture = try BrowsingLibrary()
        let song = try fixture.song(titled: "红豆")
        try Self.bilingual.write(toFile: (song.localPath as NSString).deletingPathExtension + ".lrc", atomically: true, encoding: .utf8)
        let plain = try fixture.song(titled: "Something")
        try fixture.database.saveFetchedLyrics(FetchedLyrics(kind: .plain, text: "Something in the way\n<she> & moves"), songKey: plain.songKey)
        var checks: [(name: String, target: ModelSchemaValidator.Target, json: Data)] = []
        let worded = try fixture.song(titled: "当时的月亮")
        try "[00:02.00]<00:02.00>红豆 <00:02.80>相思\n".write(toFile: (worded.localPath as NSString).deletingPathExtension + ".lrc",
                                                          atomically: true, encoding: .utf8)
        for (id, enhanced) in [(song.id, false), (song.id, true), (plain.id, true), (try fixture.song(titled: "Alone").id, false),
                               (worded.id, true)] {
            let list = try lyricsList(fixture, try XCTUnwrap(fixture.database.songs(ids: [id]).first), enhanced: enhanced)
            let body = try SubsonicEncoding.encode(SubsonicDocument("lyricsList", list), as: .json)
            checks.append(("lyrics of \(id) enhanced \(enhanced)", .endpoint("getLyricsBySongId"), Data(body.bytes)))
        }
        let legacy = try fixture.answer("getLyrics", [("artist", "The Beatles"), ("title", "Something")], of: SubsonicLyrics.self)
        checks.append(("getLyrics", .endpoint("getLyrics"), Data(try SubsonicEncoding.encode(SubsonicDocument("lyrics", legacy), as: .json).bytes)))
        XCTAssertEqual(try validator.failures(checks), [])

        let xml = String(decoding: try SubsonicEncoding.encode(SubsonicDocument("lyrics", legacy), as: .xml).bytes, as: UTF8.self)
        XCTAssertTrue(xml.contains(">Something in the way\n&lt;she&gt; &amp; moves</lyrics>"), xml)
        let list = try lyricsList(fixture, song, enhanced: true)
        let structured = String(decoding: try SubsonicEncoding.encode(SubsonicDocument("lyricsList", list), as: .xml).bytes, as: UTF8.self)
        XCTAssertTrue(structured.contains("<line start=\"9500\">还没好好的感受</line>"), structured)
        XCTAssertTrue(structured.contains("kind=\"translation\""), structured)
    }
}
