import XCTest
import XZAudio
@testable import XZDownloader

/// A station's body split into its audio and its titles however the network cuts it, and the titles read from
/// blocks as stations write them (a lone apostrophe, Latin-1, no terminator, garbage).
final class ICYMetadataTests: XCTestCase {
    /// `audio` with a block after every `interval` bytes: a title block where `titles` says, else an empty one.
    private func station(_ audio: [UInt8], interval: Int, titles: [Int: String]) -> [UInt8] {
        var body: [UInt8] = []
        var run = 0
        for start in stride(from: 0, to: audio.count, by: interval) {
            body += audio[start ..< min(start + interval, audio.count)]
            guard start + interval <= audio.count else { break }
            if let title = titles[run] {
                let text = Array("StreamTitle='\(title)';".utf8)
                let units = (text.count + 15) / 16
                body += [UInt8(units)] + text + [UInt8](repeating: 0, count: units * 16 - text.count)
            } else {
                body.append(0)
            }
            run += 1
        }
        return body
    }

    func testTheAudioAndTheTitlesComeOutWhereverTheBodyIsCut() throws {
        let audio = (0 ..< 50_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        let body = station(audio, interval: 1000, titles: [0: "One", 3: "Two – Ünïcode", 40: "Three"])
        var generator = SystemRandomNumberGenerator()
        for cuts in [[1], [999, 1, 1, 17], [4096], [1001], [body.count]] + (0 ..< 20).map { _ in [Int.random(in: 1 ... 3000, using: &generator)] } {
            var icy = try XCTUnwrap(try ICYMetadata.forResponse(["icy-metaint": "1000"]))
            var out: [UInt8] = []
            var titles: [(at: Int, title: String)] = []
            var at = 0, step = 0
            while at < body.count {
                let n = min(cuts[step % cuts.count], body.count - at)
                body[at ..< at + n].withUnsafeBytes { bytes in
                    let before = out.count
                    icy.feed(bytes, audio: { out += $0 }, title: { ahead, title in
                        if let title { titles.append((before + ahead, title)) }
                    })
                }
                at += n
                step += 1
            }
            XCTAssertEqual(out, audio, "cut in \(cuts)")
            XCTAssertEqual(titles.map(\.at), [1000, 4000, 41000], "each where its block stood, cut in \(cuts)")
            XCTAssertEqual(titles.map(\.title), ["One", "Two – Ünïcode", "Three"])
        }
    }

    func testTitlesAreReadAsStationsWriteThem() {
        func title(_ bytes: [UInt8]) -> String? { ICYMetadata.streamTitle(in: bytes) }
        XCTAssertEqual(title(Array("StreamTitle='Guns N' Roses - Don't Cry';StreamUrl='x';".utf8)), "Guns N' Roses - Don't Cry")
        XCTAssertEqual(title(Array("StreamTitle='No end'".utf8) + [0, 0, 0]), "No end", "to the last quote")
        XCTAssertEqual(title(Array("StreamTitle='Caf".utf8) + [0xE9] + Array("';".utf8)), "Café", "Latin-1 when it is no UTF-8")
        XCTAssertEqual(title(Array("StreamTitle='';".utf8)), "")
        XCTAssertNil(title(Array("StreamUrl='x';".utf8)), "no title said")
        XCTAssertNil(title([0xFF, 0x00, 0x27, 0x3B]), "garbage")
        XCTAssertNil(title(Array("StreamTitle='".utf8)), "cut short")
        // What the player keeps of it: cleaned, capped, empty is nothing.
        XCTAssertNil(StreamTags(title: "").title)
        XCTAssertEqual(StreamTags(title: "\u{1B}Bell\u{7}").title, "Bell")
        XCTAssertEqual(StreamTags(title: String(repeating: "a", count: 4000)).title?.utf8.count, StreamTags.maxValueBytes)
        XCTAssertEqual(StreamTags(title: String(repeating: "中", count: 4000)).title?.utf8.count, 1023, "cut between characters")
    }

    func testAMetadataIntervalIsAByteCountOrNone() throws {
        XCTAssertNil(try ICYMetadata.forResponse([:]))
        XCTAssertNil(try ICYMetadata.forResponse(["icy-metaint": "0"]), "0: no metadata")
        XCTAssertEqual(try ICYMetadata.forResponse(["icy-metaint": " 16000 "])?.interval, 16000)
        for bad in ["-1", "x", "1e3", "99999999999999999999", "\(ICYMetadata.maxInterval + 1)", ""] {
            XCTAssertThrowsError(try ICYMetadata.forResponse(["icy-metaint": bad]), bad)
        }
    }
}
