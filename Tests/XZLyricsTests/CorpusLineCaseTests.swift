import Foundation
import XCTest
@testable import XZLyrics

/// coolight7/my_lyric: lenient timestamp cases, one input string each.
final class CorpusMyLyricTests: XCTestCase {
    let path = "coolight7-my_lyric/cases.json"

    override func setUpWithError() throws { _ = try Corpus.bytes(path) }

    /// Cases where my_lyric's own choices conflict with this project's rules, with what happens here instead.
    let exclusions: [String: [Pair]] = [
        // A stamp with empty text is a real line (it clears the display); my_lyric drops it.
        "   [00:27]    ": [Pair(27_000, "")],
        // A fraction is scaled by its digit count (.1000 = 0.1 s, as foo_openlyrics does); my_lyric drops
        // fractions of 4+ digits.
        "[00:27.1000]cool": [Pair(27_100, "cool")],
        "[00:77:10000]cool": [Pair(77_100, "cool")],
        // A sign is a bad number, so the stamp is junk; my_lyric reads negative fields as 0.
        "[00:77:-1]cool": [],
        "[01:-1:00]cool": [],
    ]

    func testEmptyInputsGiveNothing() throws {
        let inputs = try XCTUnwrap(try Corpus.json(path)["empty_inputs_give_no_lines"] as? [String])
        XCTAssertEqual(inputs.count, 7)
        for input in inputs {
            XCTAssertEqual(LRCParser.parse(input), LRCDocument(), input.debugDescription)
        }
    }

    func testEveryInfoCase() throws {
        let cases = try XCTUnwrap(try Corpus.json(path)["info_cases"] as? [[String: Any]])
        XCTAssertEqual(cases.count, 8)
        for c in cases {
            let input = try XCTUnwrap(c["input"] as? String)
            let doc = LRCParser.parse(input)
            XCTAssertTrue(doc.lines.isEmpty, input)
            for key in ["ti", "al"] where c[key] != nil {
                XCTAssertEqual(doc.tags[key], c[key] as? String, input)
            }
            for (key, value) in c["custom"] as? [String: String] ?? [:] {
                XCTAssertEqual(doc.tags[key], value, input)
            }
            if let offset = c["offset_ms"] as? Double {
                // Offsets are whole milliseconds here: -123.56 rounds to -124.
                XCTAssertEqual(doc.offsetMs, Int(offset.rounded()), input)
            }
        }
    }

    func testEveryLineCase() throws {
        let cases = try XCTUnwrap(try Corpus.json(path)["line_cases"] as? [[String: Any]])
        XCTAssertEqual(cases.count, 26)
        var excluded = 0
        for c in cases {
            let input = try XCTUnwrap(c["input"] as? String)
            let got = pairs(LRCParser.parse(input))
            if let instead = exclusions[input] {
                excluded += 1
                XCTAssertEqual(got, instead, input)
                continue
            }
            let lines = try XCTUnwrap(c["lines"] as? [[Any]], input)
            let want = lines.compactMap { line -> Pair? in
                guard let t = ms(line.first), let text = line.last as? String else { return nil }
                return Pair(t, text)
            }
            XCTAssertEqual(want.count, lines.count, input)
            XCTAssertEqual(got, want, input)
        }
        XCTAssertEqual(excluded, exclusions.count)
    }
}

/// jacquesh/foo_openlyrics: its LRC unit-test cases. Its offset sign is this project's.
final class CorpusOpenLyricsTests: XCTestCase {
    override func setUpWithError() throws { _ = try Corpus.bytes("jacquesh-foo_openlyrics/cases.json") }

    func testEveryCase() throws {
        let cases = try XCTUnwrap(try Corpus.json("jacquesh-foo_openlyrics/cases.json")["cases"] as? [[String: Any]])
        XCTAssertEqual(cases.count, 9)
        var handled = 0
        for c in cases {
            if let input = c["input"] as? String {
                let doc = LRCParser.parse(input)
                let want = try XCTUnwrap(c["lines"] as? [[Any]]).compactMap { line -> Pair? in
                    guard let t = ms(line.first), let text = line.last as? String else { return nil }
                    return Pair(t, text)
                }
                if want.contains(where: { $0.text.contains("\n") }) {
                    // Adapted: foo_openlyrics merges lines with one time into one entry; here they stay
                    // separate lines in file order, which joined give its entry.
                    XCTAssertEqual(Set(doc.lines.map(\.timeMs)), Set(want.map(\.ms)), input)
                    XCTAssertEqual(doc.lines.map(\.text).joined(separator: "\n"), want.map(\.text).joined(), input)
                    XCTAssertGreaterThan(doc.lines.count, want.count, input)
                } else {
                    XCTAssertEqual(pairs(doc), want, input)
                }
                for tag in c["tags"] as? [String] ?? [] {
                    // "[Key:value]" -> tags["key"] == "value"
                    let inner = tag.dropFirst().dropLast()
                    let parts = inner.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                    XCTAssertEqual(doc.tags[parts[0].lowercased()], parts.count > 1 ? String(parts[1]) : nil, input)
                }
                handled += 1
            } else if let stamp = c["timestamp_roundtrip"] as? String {
                let t = try XCTUnwrap(LRCParser.parse(stamp + "x").lines.first?.timeMs)
                XCTAssertEqual(t, ms(c["seconds"]))
                XCTAssertEqual(LRCFormat.stamp(t, fractionDigits: 2), stamp)
                handled += 1
            } else if let tag = c["offset_tag"] as? String {
                XCTAssertEqual(LRCParser.parse(tag).offsetMs, ms(c["seconds"]), tag)
                // display = timestamp - offset, as here
                let t = try XCTUnwrap(ms(c["seconds"]))
                XCTAssertEqual(LRCParser.parse(tag + "\n[00:10.00]x").lines.first?.timeMs, 10_000 - t, tag)
                handled += 1
            } else if let seconds = c["print_timestamp_seconds"] as? Double {
                XCTAssertEqual(LRCFormat.stamp(ms(seconds), fractionDigits: 2), c["output"] as? String)
                handled += 1
            }
        }
        XCTAssertEqual(handled, cases.count, "every case shape is handled")
    }
}
