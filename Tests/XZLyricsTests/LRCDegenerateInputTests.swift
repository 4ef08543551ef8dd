import XCTest
@testable import XZLyrics

/// Hostile or huge input must parse without a crash. The time bound is deliberately loose (debug builds,
/// shared machines): it only catches quadratic behaviour, not speed.
final class LRCDegenerateInputTests: XCTestCase {
    let limit = 10.0

    func test200000Lines() {
        var text = ""
        text.reserveCapacity(200_000 * 24)
        for i in 0..<200_000 {
            text += "[\(i / 6000):\(i / 100 % 60).\(i % 100)]line \(i)\n"
        }
        let doc = assertFinishes(within: limit, "200,000 lines") { LRCParser.parse(text) }
        XCTAssertEqual(doc.lines.count, 200_000)
        XCTAssertEqual(doc.lines.last, LyricLine(timeMs: 1_999_990, text: "line 199999"))
        let timeline = LyricTimeline(doc)
        XCTAssertEqual(timeline.lineIndex(at: 1_000_005), 100_000)
    }

    func test20000StampsOnOneLine() {
        let line = (0..<20_000).map { "[\($0 / 60):\($0 % 60)]" }.joined() + "chorus"
        let doc = assertFinishes(within: limit, "20,000 stamps") { LRCParser.parse(line) }
        XCTAssertEqual(doc.lines.count, 20_000)
        XCTAssertEqual(doc.lines.map(\.timeMs), (0..<20_000).map { $0 * 1000 })
        XCTAssertTrue(doc.lines.allSatisfy { $0.text == "chorus" })
    }

    func test20000WordTagsOnOneLine() {
        let line = "[00:00]" + (0..<20_000).map { "<\($0 / 60):\($0 % 60)>w" }.joined()
        let doc = assertFinishes(within: limit, "20,000 word tags") { LRCParser.parse(line) }
        XCTAssertEqual(doc.lines.first?.words.count, 20_000)
        XCTAssertEqual(doc.lines.first?.text.count, 20_000)
    }

    func testHugeNumbers() {
        let thirty = String(repeating: "9", count: 30)
        let input = "[\(thirty):00.00]a\n[00:\(thirty)]b\n[00:00.\(thirty)]c\n[\(thirty):\(thirty):\(thirty).\(thirty)]d\n"
            + "[offset:\(thirty)]\n[00:01]<\(thirty):00>e"
        let doc = LRCParser.parse(input)
        // Only the stamps with small fields survive; the huge offset saturates.
        XCTAssertEqual(doc.offsetMs, LRCParser.maxTimeMs)
        // A huge word tag is not a tag: it stays text.
        XCTAssertEqual(pairs(doc), [Pair(0, "c"), Pair(0, "<\(thirty):00>e")])
        XCTAssertEqual(doc.lines.last?.words, [])
    }

    func testPathologicalBrackets() {
        let inputs = [
            String(repeating: "[", count: 300_000),
            String(repeating: "[1", count: 150_000),
            String(repeating: "[1:", count: 100_000),
            String(repeating: "[a:", count: 100_000) + "]",
            "[00:01]" + String(repeating: "<1:2", count: 75_000),
            "[00:01]" + String(repeating: "[00:0", count: 60_000),
            "x" + String(repeating: "[00:01] ", count: 40_000),
            String(repeating: "]", count: 300_000),
        ]
        for input in inputs {
            let doc = assertFinishes(within: limit, "\(input.prefix(12))…") { LRCParser.parse(input) }
            XCTAssertLessThanOrEqual(doc.lines.count, 40_000)
        }
    }

    func testRandomBinaryBytes() {
        // A fixed-seed generator: the same bytes every run.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let bytes = (0..<1_000_000).map { _ in next() }
        let doc = assertFinishes(within: limit, "1 MB of binary") { LRCParser.parse(bytes: bytes) }
        XCTAssertTrue(doc.lines.allSatisfy { $0.timeMs >= 0 })

        // Binary mixed with LRC-looking bytes; every 256 values including NUL and ESC.
        var mixed: [UInt8] = []
        for i in 0..<50_000 {
            mixed += Array("[00:\(i % 60).\(i % 100)]".utf8) + [next(), next(), UInt8(i % 256), 0x0A]
        }
        let mixedDoc = assertFinishes(within: limit, "mixed binary") { LRCParser.parse(bytes: mixed) }
        XCTAssertGreaterThan(mixedDoc.lines.count, 0)
        XCTAssertEqual(mixedDoc.lines.map(\.timeMs), mixedDoc.lines.map(\.timeMs).sorted())
        _ = mixedDoc.plainText()
        _ = mixedDoc.jsonObject()
    }

    func testEveryPrefixOfAMessyFile() {
        // Truncation anywhere (a half-downloaded file) never traps.
        let messy = "\u{FEFF}[ti:x]\r\n[00:01.00][00:02:50]<00:01.10>a <00:01.2>b\r[offset:-10]\n[1:2:3.4] c [Chorus"
        let bytes = Array(messy.utf8)
        for end in 0...bytes.count {
            _ = LRCParser.parse(bytes: Array(bytes[..<end]))
        }
    }
}
