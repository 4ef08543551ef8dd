import XCTest
import XZAudio

/// The CUE sheet grammar as MPD's parser reads it, and sheets that are no sheets.
final class CueSheetTests: XCTestCase {
    private func parse(_ text: String) throws -> CueSheet { try CueSheet.parse(Array(text.utf8)) }

    func testAlbumAndTrackFieldsAndIndexOneBounds() throws {
        let sheet = try parse("""
            REM GENRE "Rock"
            REM DATE 1999
            REM COMMENT "ExactAudioCopy v1.0"
            CATALOG 0000000000000
            PERFORMER "The Band"
            TITLE "The Album"
            FILE "image.flac" WAVE
              TRACK 01 AUDIO
                TITLE "First"
                PERFORMER "Singer A"
                SONGWRITER Writer
                ISRC XX0000000000
                INDEX 01 00:00:00
              TRACK 02 AUDIO
                TITLE Second Song
                PREGAP 00:02:00
                INDEX 00 00:03:70
                INDEX 01 00:04:10
              TRACK 3 AUDIO
                INDEX 01 01:07:33
            """)
        XCTAssertEqual([sheet.album, sheet.albumArtist, sheet.genre, sheet.date, sheet.comment],
                       ["The Album", "The Band", "Rock", "1999", "ExactAudioCopy v1.0"])
        XCTAssertEqual(sheet.tracks.map(\.number), ["01", "02", "3"])
        XCTAssertEqual(sheet.tracks.map(\.title), ["First", "Second Song", nil])
        XCTAssertEqual(sheet.tracks.map(\.performer), ["Singer A", nil, nil])
        XCTAssertEqual(sheet.tracks[0].songwriter, "Writer")
        // INDEX 00 (the pregap) belongs to the track before: each track ends at the next one's INDEX 01.
        XCTAssertEqual(sheet.tracks.map(\.startFrame), [0, 4 * 75 + 10, (1 * 60 + 7) * 75 + 33])
        XCTAssertEqual(sheet.tracks.map(\.endFrame), [4 * 75 + 10, (1 * 60 + 7) * 75 + 33, nil])
        XCTAssertEqual(sheet.skippedLines, 0)
        XCTAssertEqual(CueSheet.milliseconds(frames: 310), 4133)
        XCTAssertEqual(CueSheet.samples(frames: 310, sampleRate: 44_100), 182_280)
    }

    /// A track's tags as MPD's cue parser builds them: the album's lines in order, Track as written, then the
    /// track's own lines (REM of any name too); SONGWRITER and the other commands add nothing.
    func testTrackTagsAreTheSheetsInItsOrder() throws {
        let sheet = try parse("""
            TITLE "Alb"
            REM DATE 1999
            PERFORMER "AA"
            SONGWRITER "SW"
            REM GENRE "G"
            FILE "img.flac" WAVE
              TRACK 1 AUDIO
                PERFORMER "P1"
                TITLE "T1"
                REM COMPOSER "RC"
                INDEX 01 00:00:00
              TRACK 002 AUDIO
                SONGWRITER "SW2"
                INDEX 01 00:04:00
            """)
        let album = [("Album", "Alb"), ("DATE", "1999"), ("AlbumArtist", "AA"), ("GENRE", "G")]
        XCTAssertEqual(sheet.tags.map { "\($0.name)=\($0.value)" }, album.map { "\($0.0)=\($0.1)" })
        XCTAssertEqual(sheet.tracks.map { $0.tags.map { "\($0.name)=\($0.value)" } }, [
            album.map { "\($0.0)=\($0.1)" } + ["Track=1", "Artist=P1", "Title=T1", "COMPOSER=RC"],
            album.map { "\($0.0)=\($0.1)" } + ["Track=002"],
        ])
    }

    func testEachFileEndsItsOwnTracksAndDataTracksAreLeftOut() throws {
        let sheet = try parse("""
            FILE "a.wav" WAVE
            TRACK 01 MODE1/2352
            INDEX 01 00:00:00
            TRACK 02 AUDIO
            INDEX 01 00:10:00
            FILE "b.flac" WAVE
            TRACK 03 AUDIO
            INDEX 01 00:00:00
            FILE "data.bin" BINARY
            TRACK 04 AUDIO
            INDEX 01 00:00:00
            """)
        XCTAssertEqual(sheet.tracks.map(\.number), ["02", "03"])
        XCTAssertEqual(sheet.tracks.map(\.file), ["a.wav", "b.flac"])
        XCTAssertEqual(sheet.tracks.map(\.endFrame), [nil, nil])
    }

    func testEncodings() throws {
        let utf8 = "TITLE \"晴天\"\nFILE \"a.flac\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\n"
        XCTAssertEqual(try CueSheet.parse(Array(utf8.utf8)).album, "晴天")
        XCTAssertEqual(try CueSheet.parse([0xEF, 0xBB, 0xBF] + Array(utf8.utf8)).album, "晴天", "a BOM is no part of the text")
        // Not UTF-8: Latin-1 as TagLib reads it, GBK where the bytes pair up as GBK.
        let latin1: [UInt8] = Array("TITLE \"Caf".utf8) + [0xE9] + Array(" Bj".utf8) + [0xF6] + Array("rk\"\n".utf8)
        XCTAssertEqual(try CueSheet.parse(latin1).album, "Café Björk")
        let gbk: [UInt8] = Array("TITLE \"".utf8) + [0xC7, 0xE7, 0xCC, 0xEC] + Array("\"\r\n".utf8)
        XCTAssertEqual(try CueSheet.parse(gbk).album, "晴天")
        // Shift-JIS kana whose trail bytes are ASCII stay Latin-1, as TagLib shows them.
        let sjis: [UInt8] = Array("TITLE \"".utf8) + [0x83, 0x65, 0x83, 0x58, 0x83, 0x67] + Array("\"\n".utf8)
        XCTAssertEqual(try CueSheet.parse(sjis).album, "\u{83}e\u{83}X\u{83}g")
    }

    func testHostileSheetsAreRefusedOrSkippedLineByLine() throws {
        XCTAssertThrowsError(try CueSheet.parse([0x46, 0x49, 0x4C, 0x45, 0x00, 0x01])) {
            XCTAssertEqual($0 as? CueSheet.Failure, .binary)
        }
        XCTAssertThrowsError(try CueSheet.parse([UInt8](repeating: 0x20, count: CueSheet.maxBytes + 1))) {
            XCTAssertEqual($0 as? CueSheet.Failure, .tooLarge)
        }
        // Bad times: negative, too many digits, seconds or frames out of range, overflow.
        let sheet = try parse("""
            TRACK 01 AUDIO
            INDEX 01 00:00:00
            FILE "a.flac" WAVE
            TRACK 01 AUDIO
            INDEX 01 -1:00:00
            INDEX 01 99999999999999999999:00:00
            INDEX 01 00:60:00
            INDEX 01 00:00:75
            INDEX 01 0:0
            INDEX 1000 00:00:00
            INDEX 01 00:01:00
            TRACK 02 AUDIO
            INDEX 01 00:00:50
            TRACK 03 AUDIO
            INDEX 01 00:02:00
            INDEX 01 00:01:50
            TRACK 03 AUDIO
            TRACK 04 AUDIO
            INDEX 01 99999:59:74
            """)
        XCTAssertEqual(sheet.tracks.map(\.number), ["01", "03", "04"])
        XCTAssertEqual(sheet.tracks.map(\.startFrame), [75, 150, (99_999 * 60 + 59) * 75 + 74])
        XCTAssertEqual(sheet.skippedLines, 10, "a second INDEX 01 in a track is one of them")
        XCTAssertEqual(sheet.firstSkipped, "line 1: TRACK before any FILE")
        // Thousands of tracks: the first 999 are kept.
        var many = "FILE \"a.flac\" WAVE\n"
        for number in 1...5000 { many += "TRACK \(number) AUDIO\nINDEX 01 \(number / 60):\(number % 60):00\n" }
        let big = try parse(many)
        XCTAssertEqual(big.tracks.count, CueSheet.maxTracks)
        XCTAssertEqual(big.firstSkipped, "line 2002: more than 999 tracks")
        // Garbage lines are no trouble.
        XCTAssertEqual(try parse("\"\"\"\n\t\t\nTITLE\nFILE\nREM\nINDEX\n\u{7F}\u{7F}").tracks, [])
    }

    /// Random damage to a real sheet never traps, and what comes out is always playable: each track starts
    /// at or after 0 and ends after it starts.
    func testRandomDamageEndsInASheetOrAFailure() throws {
        let base = Array("""
            REM DATE 1999
            PERFORMER "The Band"
            TITLE "The Album"
            FILE "image.flac" WAVE
              TRACK 01 AUDIO
                TITLE "First"
                INDEX 01 00:00:00
              TRACK 02 AUDIO
                INDEX 00 00:03:70
                INDEX 01 00:04:10
              TRACK 03 AUDIO
                INDEX 01 00:07:33
            """.utf8)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33) % bound
        }
        let alphabet = Array(" \t\r\n\":0123456789-+AUDIOINDEXTRACKFILEREM".utf8) + [0x00, 0x80, 0xC3, 0xE9, 0xFF]
        for _ in 0..<2000 {
            var bytes = base
            for _ in 0..<(1 + next(8)) {
                switch next(3) {
                case 0: bytes[next(bytes.count)] = alphabet[next(alphabet.count)]
                case 1: bytes.insert(alphabet[next(alphabet.count)], at: next(bytes.count))
                default: if bytes.count > 1 { bytes.remove(at: next(bytes.count)) }
                }
            }
            guard let sheet = try? CueSheet.parse(bytes) else { continue }
            for track in sheet.tracks {
                XCTAssertGreaterThanOrEqual(track.startFrame, 0)
                if let end = track.endFrame { XCTAssertGreaterThan(end, track.startFrame) }
            }
            XCTAssertLessThanOrEqual(sheet.tracks.count, CueSheet.maxTracks)
            // Tracks of one file meet: no gap, no overlap.
            for (first, second) in zip(sheet.tracks, sheet.tracks.dropFirst()) where first.file == second.file {
                XCTAssertEqual(first.endFrame, second.startFrame)
            }
        }
    }
}
