import XCTest
@testable import XZLyrics

/// This project's own table: one or more cases per rule of the LRC spec.
final class LRCParserRuleTests: XCTestCase {
    private struct Case {
        let input: String
        let lines: [Pair]
        let why: String
        init(_ input: String, _ lines: [Pair], _ why: String) {
            self.input = input
            self.lines = lines
            self.why = why
        }
    }

    private let table: [Case] = [
        // Stamp forms.
        Case("[01:02]a", [Pair(62_000, "a")], "no fraction"),
        Case("[01:02.3]a", [Pair(62_300, "a")], "1 digit = tenths"),
        Case("[01:02.34]a", [Pair(62_340, "a")], "2 digits = hundredths"),
        Case("[01:02.345]a", [Pair(62_345, "a")], "3 digits = ms"),
        Case("[01:02:34]a", [Pair(62_340, "a")], "colon form"),
        Case("[01:02.3456]a", [Pair(62_345, "a")], "digits past ms are dropped"),
        Case("[1:2.5]a", [Pair(62_500, "a")], "one-digit fields"),
        Case("[75:00.00]a", [Pair(4_500_000, "a")], "minutes past 59"),
        Case("[123:45.67]a", [Pair(7_425_670, "a")], "three-digit minutes"),
        Case("[00:75.50]a", [Pair(75_500, "a")], "seconds past 59 carry"),
        Case("[01:02:03.50]a", [Pair(3_723_500, "a")], "h:m:s.f"),
        Case("[ 01 : 02 . 50 ]a", [Pair(62_500, "a")], "spaces around fields"),
        Case("[35791:23.647]max", [Pair(2_147_483_647, "max")], "the largest stamp"),
        // Several stamps, sorting, stability.
        Case("[00:10.00][00:50.00]chorus", [Pair(10_000, "chorus"), Pair(50_000, "chorus")], "two stamps, two lines"),
        Case("[00:10] [00:05]  x", [Pair(5000, "x"), Pair(10_000, "x")], "spaces between stamps"),
        Case("[00:50]b\n[00:10]a", [Pair(10_000, "a"), Pair(50_000, "b")], "sorted by time"),
        Case("[00:10]x\n[00:05]y\n[00:10]z\n[00:10]w", [Pair(5000, "y"), Pair(10_000, "x"), Pair(10_000, "z"), Pair(10_000, "w")],
             "equal times keep file order"),
        Case("[00:30][00:10]a\n[00:20][00:10]b", [Pair(10_000, "a"), Pair(10_000, "b"), Pair(20_000, "b"), Pair(30_000, "a")],
             "stable across stamps of several lines"),
        // Empty text is a line.
        Case("[00:10]", [Pair(10_000, "")], "empty text clears the display"),
        Case("[00:10]   \t ", [Pair(10_000, "")], "blank text is empty"),
        // Text.
        Case("[00:01.00][Chorus] sing", [Pair(1000, "[Chorus] sing")], "bracketed text after the stamps"),
        Case("  [00:01]   padded text \t ", [Pair(1000, "padded text")], "trimmed at both ends"),
        Case("[00:01]\u{3000}全角\u{3000}", [Pair(1000, "全角")], "full-width spaces trimmed"),
        Case("[00:01]a  b", [Pair(1000, "a  b")], "inner spaces kept"),
        Case("[00:01.00]hello [oops", [Pair(1000, "hello [oops")], "unterminated bracket in text"),
        Case("[00:01]I <3 you <not a tag>", [Pair(1000, "I <3 you <not a tag>")], "angle brackets that are not stamps"),
        Case("[00:01]x [12:34]", [Pair(1000, "x")], "a stray stamp after the text times nothing"),
        Case("cool[00:47.11][00:57:33]", [Pair(47_110, "cool"), Pair(57_330, "cool")], "trailing stamps"),
        // Junk.
        Case("no stamp here", [], "no stamp"),
        Case("[00:xx]bad", [], "bad number"),
        Case("[00:01.00", [], "unterminated"),
        Case("[00:01.00 text", [], "unterminated with text"),
        Case("[-1:00]neg", [], "sign"),
        Case("[+1:00]pos", [], "sign"),
        Case("[00:01.]x", [], "empty fraction"),
        Case("[:01.00]x", [], "empty minutes"),
        Case("[01]x", [], "a single field"),
        Case("[1:2:3:4:5]x", [], "too many fields"),
        Case("[00.01.00]x", [], "dot first"),
        Case("[]x\n[:]y\n[", [], "empty brackets"),
        Case("[35791:23.648]x", [], "past the largest stamp"),
        Case("[123456789012345678901234567890:00.00]x", [], "30-digit minute"),
        Case("[00:123456789012345678901234567890]x", [], "30-digit seconds"),
        Case("[000000000000000000000000000001:00]x", [Pair(60_000, "x")], "30 digits of small value"),
        Case("[00:01.123456789012345678901234567890]x", [Pair(1123, "x")], "30-digit fraction"),
        Case("junk\n[00:01]a\n\u{01}\u{02}\n[00:02]b", [Pair(1000, "a"), Pair(2000, "b")], "junk between good lines"),
    ]

    func testTable() {
        for c in table {
            XCTAssertEqual(pairs(LRCParser.parse(c.input)), c.lines, "\(c.why): \(c.input.debugDescription)")
        }
    }

    func testLineEnds() {
        let want = [Pair(1000, "a"), Pair(2000, "b"), Pair(3000, "c")]
        for input in ["[00:01]a\n[00:02]b\n[00:03]c\n", "[00:01]a\r\n[00:02]b\r\n[00:03]c\r\n",
                      "[00:01]a\r[00:02]b\r[00:03]c\r", "[00:01]a\r\n[00:02]b\r[00:03]c",
                      "[00:01]a\n\n\r\n\r[00:02]b\n[00:03]c"] {
            XCTAssertEqual(pairs(LRCParser.parse(input)), want, input.debugDescription)
        }
    }

    func testTags() {
        let doc = LRCParser.parse("""
            [ar:Artist]
            [ti: Title ]
            [al:Album]
            [by:Maker]
            [au:Author]
            [length: 03:25]
            [re:Editor]
            [ve:1.0]
            [offset:0]
            [Custom Key:x:y]
            [00:01]a
            """)
        XCTAssertEqual(doc.tags, ["ar": "Artist", "ti": "Title", "al": "Album", "by": "Maker", "au": "Author",
                                  "length": "03:25", "re": "Editor", "ve": "1.0", "offset": "0", "custom key": "x:y"])
        XCTAssertEqual(pairs(doc), [Pair(1000, "a")])
        XCTAssertTrue(doc.isSynced)
    }

    func testTagEdgeCases() {
        XCTAssertEqual(LRCParser.parse("[AR:a][Ti:b]").tags, ["ar": "a", "ti": "b"], "two tags on one line")
        XCTAssertEqual(LRCParser.parse("[ti:]").tags, ["ti": ""], "empty value")
        XCTAssertEqual(LRCParser.parse("[ti:a]\n[ti:b]").tags, ["ti": "b"], "last one wins")
        XCTAssertEqual(LRCParser.parse("[1a:b]\n[_x:y]\n[a.b:c]\n[ti:unterminated").tags, [:], "not tag keys")
        XCTAssertEqual(LRCParser.parse("[ti:a [x] b]").tags, [:], "nested brackets: only the innermost group counts")
        XCTAssertFalse(LRCParser.parse("[ti:only tags]").isSynced)
    }

    func testOffsetShiftsLinesAndWords() {
        let doc = LRCParser.parse("[offset:500]\n[00:02.00]<00:02.00>a <00:02.40>b\n[00:00.20]early")
        XCTAssertEqual(doc.offsetMs, 500)
        XCTAssertEqual(doc.lines, [
            LyricLine(timeMs: 0, text: "early"),
            LyricLine(timeMs: 1500, text: "a b", words: [LyricWord(timeMs: 1500, text: "a "), LyricWord(timeMs: 1900, text: "b")]),
        ])
        XCTAssertEqual(LRCParser.parse("[offset:-500]\n[00:02.00]a").lines.map(\.timeMs), [2500], "negative = later")
        XCTAssertEqual(LRCParser.parse("[00:02.00]a\n[offset:+250]").lines.map(\.timeMs), [1750], "offset after the lines")
        XCTAssertEqual(LRCParser.parse("[offset: 1000 ]\n[00:00.50]a").lines.map(\.timeMs), [0], "clamped at 0")
        // A non-number is ignored but kept as a tag.
        let bad = LRCParser.parse("[offset:soon]\n[00:02.00]a")
        XCTAssertEqual(bad.offsetMs, 0)
        XCTAssertEqual(bad.tags["offset"], "soon")
        XCTAssertEqual(bad.lines.map(\.timeMs), [2000])
    }

    func testOffsetValues() {
        let table: [(String, Int?)] = [
            ("0", 0), ("500", 500), ("+77", 77), ("-123", -123), ("-123.56", -124), ("12.4", 12), (" 7 ", 7),
            ("999999999999999999999999999999", LRCParser.maxTimeMs), ("-999999999999999999999999999999", -LRCParser.maxTimeMs),
            ("", nil), ("+", nil), ("1e3", nil), ("1.", nil), ("--1", nil), ("12ms", nil),
        ]
        for (text, want) in table {
            XCTAssertEqual(LRCParser.parseOffset(text), want, text)
        }
        // A huge offset in either direction cannot overflow the times.
        XCTAssertEqual(LRCParser.parse("[offset:-999999999999999999999]\n[35791:23.647]x").lines.map(\.timeMs),
                       [2 * LRCParser.maxTimeMs])
        XCTAssertEqual(LRCParser.parse("[offset:999999999999999999999]\n[35791:23.647]x").lines.map(\.timeMs), [0])
        // A later [offset:] that is no number is ignored; a later valid one wins.
        let junkAfter = LRCParser.parse("[offset:-500]\n[offset:abc]\n[00:01.00]x")
        XCTAssertEqual(junkAfter.offsetMs, -500)
        XCTAssertEqual(junkAfter.tags["offset"], "abc", "kept as a tag")
        XCTAssertEqual(LRCParser.parse("[offset:-500]\n[offset:200]\n[00:01.00]x").offsetMs, 200)
    }

    func testWordTiming() {
        let line = LRCParser.parse("[00:01.00]<00:01.00>Hel<00:01.50>lo <00:02.00>world").lines
        XCTAssertEqual(line, [LyricLine(timeMs: 1000, text: "Hello world", words: [
            LyricWord(timeMs: 1000, text: "Hel"), LyricWord(timeMs: 1500, text: "lo "), LyricWord(timeMs: 2000, text: "world"),
        ])])

        // Text before the first tag is a word timed by its line; spaces around tags collapse to one.
        let prefixed = LRCParser.parse("[00:05.00] intro <00:06.00> next <00:07.00>  ").lines[0]
        XCTAssertEqual(prefixed.text, "intro next")
        XCTAssertEqual(prefixed.words, [LyricWord(timeMs: 5000, text: "intro "), LyricWord(timeMs: 6000, text: "next")])

        // Several stamps: each line's untimed prefix takes that line's time; tagged words keep theirs.
        let multi = LRCParser.parse("[00:10][00:20]la <00:21>la").lines
        XCTAssertEqual(multi.map { $0.words.map(\.timeMs) }, [[10_000, 21_000], [20_000, 21_000]])

        // Tags only, no text: an empty line without words.
        XCTAssertEqual(LRCParser.parse("[00:01]<00:01.50><00:02>").lines, [LyricLine(timeMs: 1000, text: "")])
        // No tags: no words.
        XCTAssertEqual(LRCParser.parse("[00:01]plain").lines[0].words, [])
    }

    func testWordsAlwaysAddUpToTheText() {
        for input in ["[00:01] <00:01.1> a <00:01.2> b <00:01.3> ", "[00:01]x<00:02>\u{3000}y<00:03>z ",
                      "[00:01]<00:02>  <00:03>  <00:04>w", "[00:01] a [00:02] b [00:03] c"] {
            for line in LRCParser.parse(input).lines where !line.words.isEmpty {
                XCTAssertEqual(line.words.map(\.text).joined(), line.text, input)
                XCTAssertEqual(line.text, trimmed(line.text), input)
            }
        }
    }

    func testWordCharacterRange() throws {
        let line = try XCTUnwrap(LRCParser.parse("[00:01]<00:01>周杰伦 <00:02>的 <00:03>歌").lines.first)
        XCTAssertEqual(line.text, "周杰伦 的 歌")
        XCTAssertEqual(line.wordCharacterRange(0), 0..<3)
        XCTAssertEqual(line.wordCharacterRange(1), 4..<5)
        XCTAssertEqual(line.wordCharacterRange(2), 6..<7)
        XCTAssertNil(line.wordCharacterRange(3))
        XCTAssertNil(line.wordCharacterRange(-1))
    }

    func testParseTimeStamp() {
        XCTAssertEqual(LRCParser.parseTimeStamp("02:83.375"), 203_375)
        XCTAssertEqual(LRCParser.parseTimeStamp("1:10:10"), 70_100)
        XCTAssertNil(LRCParser.parseTimeStamp("1:10]x[1:20"))
        XCTAssertNil(LRCParser.parseTimeStamp(""))
    }

    func testBOMInsideTheString() {
        XCTAssertEqual(LRCParser.parse("\u{FEFF}[ti:t]\n[00:01]a").tags, ["ti": "t"])
    }
}
