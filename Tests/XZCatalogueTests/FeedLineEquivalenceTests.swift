import Foundation
import XCTest
@testable import XZCatalogue

/// The feed scanner must accept, refuse and report exactly as the same parse on JSONDecoder, kept
/// here as the reference.
final class FeedLineEquivalenceTests: XCTestCase {
    private let parser = FeedLine(baseDirectory: nil)

    private func assertSame(_ line: [UInt8], file: StaticString = #filePath, line number: UInt = #line) {
        let expected = DecoderFeedLine.parse(Data(line))
        let actual = parser.parse(Data(line))
        switch (expected, actual) {
        case (.success(let a), .success(let b)):
            XCTAssertEqual(a, b, String(decoding: line, as: UTF8.self), file: file, line: number)
        case (.failure(let a), .failure(let b)):
            XCTAssertEqual(a.description, b.description, String(decoding: line, as: UTF8.self), file: file, line: number)
        default:
            XCTFail("\(String(decoding: line, as: UTF8.self)): expected \(expected), got \(actual)", file: file, line: number)
        }
    }

    func testEdgeCases() {
        let cases: [String] = [
            #"{"title":"t","singer":"s"}"#, #"{"title":"t","singer":"s","track":3.0}"#,
            #"{"title":"t","singer":"s","track":1e3}"#, #"{"title":"t","singer":"s","track":1E2}"#,
            #"{"title":"t","singer":"s","track":30e-1}"#, #"{"title":"t","singer":"s","track":-0}"#,
            #"{"title":"t","singer":"s","track":9223372036854775807}"#, #"{"title":"t","singer":"s","track":9223372036854775808}"#,
            #"{"title":"t","singer":"s","track":-9223372036854775808}"#, #"{"title":"t","singer":"s","track":-9223372036854775809}"#,
            #"{"title":"t","singer":"s","track":1.5e1}"#, #"{"title":"t","singer":"s","track":01}"#,
            #"{"title":"t","singer":"s","track":-}"#, #"{"title":"t","singer":"s","track":"+5"}"#,
            #"{"title":"t","singer":"s","track":" 5"}"#, #"{"title":"t","singer":"s","track":"5.0"}"#,
            #"{"title":"t","singer":"s","track":1.0e0}"#, #"{"title":"a","title":"b","singer":"s"}"#,
            #"{"title":"\ud800","singer":"s"}"#, #"{"title":"\udc00","singer":"s"}"#,
            #"{"title":"\ud83d\ude00","singer":"s"}"#, "{\"title\":\"a\u{01}b\",\"singer\":\"s\"}",
            #"{"title":"a\/b\u00e9","singer":"s"}"#, #"{"title":"\x","singer":"s"}"#, #"{"title":"t","singer":"s",}"#,
            "{,}", "5", "\"x\"", "true", "null", "[]", "[1,", "{} x", "", "   ", "-", "1.2.3", "5 x", "[1,]",
            #"{"title":NaN}"#, #"{"title":"t","singer":"s","x":[1,{"a":[]}]}"#, #"{"title":"t","singer":"s","x":1.}"#,
            #"{"title":"t","singer":"s","x":.5}"#, #"{"title":"t","singer":"s","x":1e}"#, #"{"title":"t","singer":"s","x":-01}"#,
            #"{"title":"t","singer":"s","x":tru}"#, #"{"title":"t","singer":"s","x":1e999}"#,
            "\u{FEFF}{\"title\":\"t\",\"singer\":\"s\"}", #"{"ti\u0074le":"esc","singer":"s"}"#,
            #"{"title":"\u0000","singer":"s"}"#, #"{"title":"t","singer":"s","track":true}"#,
            #"{"title":"t","singer":"s","track":null}"#, #"{"title":null,"singer":"s"}"#,
            #"{"title":5,"track":"x"}"#, #"{"track":"x","title":5}"#,
            " {\"title\":\"  pad \\u00a0\",\"singer\":\" s\\u3000\"} ", "{\"title\":\"t\",\"singer\":\"s\"}\t",
            #"{"title":"t","singer":"s","track":00}"#, #"{"title":"t","singer":"s","track":-1.0}"#,
            #"{"title":"t","singer":"s","track":12345678901234567890123}"#, #"{"title":"t","singer":"s","track":1e18}"#,
            #"{"title":"t","singer":"s","track":1e19}"#, #"{"title":"t","singer":"s","track":9.007199254740993e15}"#,
            #"{"title":"t","singer":"s","track":9007199254740993.7}"#, #"{"title":"t","singer":"s","track":-9007199254740993.7}"#,
            #"{"title":"t","singer":"s","track":9223372036854775295.0}"#, #"{"title":"t","singer":"s","track":9223372036854775296.0}"#,
            #"{"title":"t","singer":"s","track":-9223372036854775807.0}"#, #"{"title":"t","singer":"s","track":-9223372036854775808.0}"#,
            #"{"title":"t","singer":"s","track":1.e5}"#, #"{"title":"t","singer":"s","track":1e+5}"#,
            #"{"title":"t","singer":"s","track":0e5}"#, #"{"title":"t","singer":"s","track":1..0}"#,
            #"{"title":"t","singer":"s","track":1-2}"#, #"{"title":"t","singer":"s","track":1e-400}"#,
            #"{"title":"t","singer":"s","track":2.9999999999999999}"#, #"{"title":"t","singer":"s","track":4.5e-0}"#,
            #"{"title":"t","singer":"s","track":+1}"#, #"{"title":"t","singer":"s","track":0x10}"#,
            #"{"title":"t","singer":"s","track":"\u0031"}"#, #"{"title":"t","singer":"s","track":"9223372036854775808"}"#,
            #"{"title":"t","singer":"s","track":""}"#, #"{"title":"","singer":"s"}"#, #"{"title":"t","source_id":5}"#,
            #"{"audio_url":5,"title":3}"#, #"{"title":"t","singer":"s","track":[1]}"#, #"{"title":"t","singer":"s","track":{}}"#,
            #"{"title":["t"]}"#, #"{"title":{}}"#, #"{"title":true}"#, "{\"title\":\"t\"\u{0B}}", "{\"title\":\"t\"\u{0C}}",
            #"{"title":"\uD834\uDD1E","singer":"s"}"#, #"{"title":"\uDD1E\uD834"}"#, #"{"title":"\ud800\u0041"}"#,
            #"{"title":"\u00"}"#, #"{"title":"\uZZZZ"}"#, #"{"title" "t"}"#, #"{"title":"t""x":1}"#, #"{title:"t"}"#,
            #"{"ti\xtle":"t"}"#, #"{"x\q":"t","title":"a"}"#, "{\"x\u{01}\":1,\"title\":\"a\"}",
            #"{"title":null,"title":"x","singer":"s"}"#, #"{"title":"t","singer":"s","x":"\"}"#,
            #"{"title":"t","singer":"s","x":"\u12"}"#, #"{"title":"\/\b\f\n\r\t\\\"","singer":"s"}"#,
            #"{"title":"t","singer":"s","x":nul}"#, #"{"title":"t","singer":"s","x":null1}"#, #"{"title":"t","singer":"s","x":[}"#,
            #"{"title":"t","singer":"s","x":{"a"}}"#, #"{"title":"t","singer":"s","x":{1:2}}"#, "{\"title\":\"t\"}}",
            #"{"title":"t","singer":"s","x":--1}"#, #"{"title":"t","singer":"s","x":1+}"#,
            #"{"title":" \t\n x \u3000","singer":"\u0085s\u2028"}"#, #"{"title":"\u200bx\u200b","singer":"\ufeffs"}"#,
            #"{"title":" \u0301x","singer":"s\u00a0"}"#, #"{"title":"晴天","singer":"周杰伦","album":"","source_id":""}"#,
            #"{"title":"t","singer":"s","sha256":"ABcd","audio_url":"  http://x  ","size":"12"}"#,
            #"{"title":"t","singer":"s","duration_ms":"269000","year":2003.0,"size":4.3e6}"#,
            #"{"title":"t","singer":"s","audio_file":"a.mp3","lyrics_file":5}"#,
        ]
        for line in cases { assertSame(Array(line.utf8)) }
        // Not UTF-8, in a read value and in an ignored one.
        assertSame(Array(#"{"title":""#.utf8) + [0xFF, 0xFE] + Array(#"","singer":"s"}"#.utf8))
        assertSame(Array(#"{"title":"t","singer":"s","x":""#.utf8) + [0xC3] + Array(#""}"#.utf8))
        assertSame(Array(#"{"title":""#.utf8) + [0xC0, 0xAF] + Array(#"","singer":"s"}"#.utf8))
        assertSame(Array(#"{"title":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#"","singer":"s"}"#.utf8))
        assertSame(Array(#"{""#.utf8) + [0xFF] + Array(#"":1,"title":"t","singer":"s"}"#.utf8))
        // Byte-order marks and the UTF-16 the decoder also reads.
        let object = #"{"title":"t","singer":"s"}"#
        assertSame([0xEF, 0xBB, 0xBF] + Array(object.utf8))
        assertSame([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array(object.utf8))
        assertSame([0x20, 0xEF, 0xBB, 0xBF] + Array(object.utf8))
        assertSame([0xEF, 0xBB, 0xBF] + Array("5".utf8))
        assertSame([0xEF, 0xBB, 0xBF])
        let le = object.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let be = object.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        for line in [[0xFF, 0xFE] + le, [0xFE, 0xFF] + be, le, be, [0x00] + Array(object.utf8), [0xFF, 0xFE], [0x7B, 0x00, 0x7D]] {
            assertSame(line)
        }
        // Nesting deeper than the decoder allows, and just within it.
        for depth in [510, 511, 512, 600] {
            assertSame(Array(("{\"title\":\"t\",\"singer\":\"s\",\"x\":" + String(repeating: "[", count: depth)
                + String(repeating: "]", count: depth) + "}").utf8))
        }
    }

    /// Random damage to valid lines: every result must still agree with the decoder.
    func testMutatedLines() {
        var random = SplitMix(seed: 7)
        let seeds = [
            #"{"source_id":"s1","title":"晴天","singer":"周杰伦","album":"叶惠美","track":3,"year":2003,"duration_ms":269000,"audio_url":"https://e.invalid/a.mp3","sha256":"AB12","album_artist":"周杰伦","genre":"Pop","disc":1,"unknown":[1,{"x":null}]}"#,
            #"{"title":"Jóga \u00e9\ud83d\ude00","singer":" Björk ","track":"7","size":1.5e3,"x":-0.25e-3,"y":true}"#,
            #"{"title":"t\n\"q\"","singer":"s","album":null,"track":null,"lyrics_url":"\/x","z":{"a":[[]]}}"#,
        ]
        let alphabet = Array(#"{}[]":,\-+.eE0123456789 tfnulrsxu"#.utf8) + [0x00, 0x09, 0x0A, 0x7F, 0x80, 0xC3, 0xA9, 0xE6, 0x99, 0xB4, 0xFF]
        for _ in 0..<20_000 {
            var line = Array(seeds[random.next(seeds.count)].utf8)
            for _ in 0..<(1 + random.next(3)) {
                let at = random.next(line.count + 1)
                switch random.next(4) {
                case 0 where at < line.count: line.remove(at: at)
                case 1: line.insert(alphabet[random.next(alphabet.count)], at: at)
                case 2 where at < line.count: line[at] = alphabet[random.next(alphabet.count)]
                default: line = Array(line.prefix(at))
                }
            }
            assertSame(line)
        }
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(max(bound, 1)))
    }
}

/// The feed parse on Foundation's JSONDecoder: the reference the scanner is held to.
enum DecoderFeedLine {
    static func parse(_ bytes: Data) -> Result<SongInput, CatalogueError> {
        let record: Record
        do {
            record = try JSONDecoder().decode(Record.self, from: bytes)
        } catch let error as CatalogueError {
            return .failure(error)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            return .failure(CatalogueError.badFeedLine("not a JSON object"))
        } catch {
            return .failure(CatalogueError.badFeedLine("not valid JSON"))
        }
        guard let title = record.title, !title.isEmpty else { return .failure(CatalogueError.badFeedLine("missing \"title\"")) }
        guard let singer = record.singer, !singer.isEmpty else { return .failure(CatalogueError.badFeedLine("missing \"singer\"")) }
        // The range and form checks are shared: this reference is about reading the JSON.
        let texts = [record.sourceId, record.title, record.singer, record.album, record.audioURL, record.lyricsURL,
                     record.sha256, record.audioFile, record.lyricsFile, record.albumArtist, record.genre]
        do {
            try FeedLine.Record(texts: texts, numbers: [record.track, record.year, record.durationMs, record.size,
                                                        record.disc]).validate()
        } catch {
            return .failure(error as? CatalogueError ?? CatalogueError.badFeedLine("\(error)"))
        }
        let album = record.album.flatMap { $0.isEmpty ? nil : $0 }
        let sourceId = record.sourceId ?? ""
        let key = sourceId.isEmpty ? "meta:\(singer)\u{1F}\(album ?? "")\u{1F}\(title)" : "src:\(sourceId)"
        var input = SongInput(key: key, title: title, singer: singer)
        input.album = album
        input.track = record.track.map { Int(clamping: $0) }
        input.year = record.year.map { Int(clamping: $0) }
        input.albumArtist = record.albumArtist.flatMap { $0.isEmpty ? nil : $0 }
        input.genres = record.genre.flatMap { $0.isEmpty ? nil : [$0] } ?? []
        input.disc = record.disc.map { Int(clamping: $0) }
        input.durationMs = record.durationMs.map { Int(clamping: $0) }
        input.audioURL = record.audioURL ?? ""
        input.lyricsURL = record.lyricsURL ?? ""
        input.size = record.size
        input.sha256 = (record.sha256 ?? "").lowercased()
        return .success(input)
    }

    struct Record: Decodable {
        var sourceId, title, singer, album, audioURL, lyricsURL, sha256, audioFile, lyricsFile, albumArtist, genre: String?
        var track, year, durationMs, size, disc: Int64?

        enum Key: String, CodingKey {
            case sourceId = "source_id", title, singer, album, audioURL = "audio_url", lyricsURL = "lyrics_url"
            case sha256, audioFile = "audio_file", lyricsFile = "lyrics_file", albumArtist = "album_artist", genre
            case track, year, durationMs = "duration_ms", size, disc
        }

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            func text(_ key: Key) throws -> String? {
                guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
                guard let value = try? c.decode(String.self, forKey: key) else {
                    throw CatalogueError.badFeedLine("\"\(key.rawValue)\" must be a string")
                }
                return value.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            func number(_ key: Key) throws -> Int64? {
                guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
                if let value = try? c.decode(Int64.self, forKey: key) { return value }
                if let value = try? c.decode(String.self, forKey: key), let parsed = Int64(value) { return parsed }
                throw CatalogueError.badFeedLine("\"\(key.rawValue)\" must be a whole number")
            }
            sourceId = try text(.sourceId)
            title = try text(.title)
            singer = try text(.singer)
            album = try text(.album)
            audioURL = try text(.audioURL)
            lyricsURL = try text(.lyricsURL)
            sha256 = try text(.sha256)
            audioFile = try text(.audioFile)
            lyricsFile = try text(.lyricsFile)
            albumArtist = try text(.albumArtist)
            genre = try text(.genre)
            track = try number(.track)
            year = try number(.year)
            durationMs = try number(.durationMs)
            size = try number(.size)
            disc = try number(.disc)
        }
    }
}
