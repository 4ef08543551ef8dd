import XCTest
@testable import XZCatalogue

/// The filter parser against MPD 0.23's grammar and messages (src/song/Filter.cxx): every operator, every error.
final class SongFilterParserTests: XCTestCase {
    private func parse(_ arguments: [String], foldCase: Bool = false) throws -> [SongFilter] {
        try FilterParser.parse(arguments, foldCase: foldCase)
    }

    private func error(_ arguments: [String], foldCase: Bool = false) -> String? {
        do {
            _ = try FilterParser.parse(arguments, foldCase: foldCase)
            return nil
        } catch {
            return error.description
        }
    }

    func testOperators() throws {
        XCTAssertEqual(try parse(["(Artist == 'a b')"]), [.tag(.artist, StringMatch(.equal, "a b", foldCase: false))])
        XCTAssertEqual(try parse(["(artist != \"x\")"]), [.tag(.artist, StringMatch(.equal, "x", foldCase: false, negated: true))])
        XCTAssertEqual(try parse(["(album contains 'li')"]), [.tag(.album, StringMatch(.contains, "li", foldCase: false))])
        XCTAssertEqual(try parse(["(album !contains 'li')"]), [.tag(.album, StringMatch(.contains, "li", foldCase: false, negated: true))])
        XCTAssertEqual(try parse(["(title starts_with 'Lo')"]), [.tag(.title, StringMatch(.startsWith, "Lo", foldCase: false))])
        XCTAssertEqual(try parse(["(title =~ '^L.*e$')"]), [.tag(.title, StringMatch(.regex, "^L.*e$", foldCase: false))])
        XCTAssertEqual(try parse(["(title !~ 'x+')"]), [.tag(.title, StringMatch(.regex, "x+", foldCase: false, negated: true))])
        XCTAssertEqual(try parse(["(any == 'v')"], foldCase: true), [.tag(nil, StringMatch(.equal, "v", foldCase: true))])
        XCTAssertEqual(try parse(["(file == 'a/b.mp3')"]), [.uri(StringMatch(.equal, "a/b.mp3", foldCase: false))])
        XCTAssertEqual(try parse(["(base 'a/b')"]), [.base("a/b")])
        XCTAssertEqual(try parse(["(modified-since '1700000000')"]), [.modifiedSince(1_700_000_000)])
        XCTAssertEqual(try parse(["(modified-since '2023-11-14T22:13:20Z')"]), [.modifiedSince(1_700_000_000)])
        XCTAssertEqual(try parse(["(added-since '2023-11-14')"]), [.addedSince(1_699_920_000)])
        XCTAssertEqual(try parse(["(AudioFormat == '44100:16:2')"]),
                       [.audioFormat(AudioFormatMask(sampleRate: 44100, bits: "16", channels: 2))])
        XCTAssertEqual(try parse(["(AudioFormat =~ '*:*:1')"]),
                       [.audioFormat(AudioFormatMask(sampleRate: nil, bits: nil, channels: 1))])
        XCTAssertEqual(try parse(["(!(artist == 'a'))"]), [.not(.tag(.artist, StringMatch(.equal, "a", foldCase: false)))])
        XCTAssertEqual(try parse(["((artist == 'a') AND (album == 'b') AND (genre == 'c'))"]), [.and([
            .tag(.artist, StringMatch(.equal, "a", foldCase: false)),
            .tag(.album, StringMatch(.equal, "b", foldCase: false)),
            .tag(.genre, StringMatch(.equal, "c", foldCase: false)),
        ])])
        // Backslash escapes, quotes of the other kind inside.
        XCTAssertEqual(try parse(["(title == 'it\\'s \"x\" \\\\')"]),
                       [.tag(.title, StringMatch(.equal, "it's \"x\" \\", foldCase: false))])
        // A lone parenthesised expression is itself.
        XCTAssertEqual(try parse(["((title == 'x'))"]), [.tag(.title, StringMatch(.equal, "x", foldCase: false))])
    }

    func testOldStylePairs() throws {
        XCTAssertEqual(try parse(["artist", "A", "album", "B"]), [
            .tag(.artist, StringMatch(.equal, "A", foldCase: false)), .tag(.album, StringMatch(.equal, "B", foldCase: false)),
        ])
        // search: case folded and substring, as MPD 0.20 did.
        XCTAssertEqual(try parse(["any", "x", "file", "y"], foldCase: true), [
            .tag(nil, StringMatch(.contains, "x", foldCase: true)), .uri(StringMatch(.contains, "y", foldCase: true)),
        ])
        XCTAssertEqual(try parse(["base", "a/b", "(title == 't')"]), [
            .base("a/b"), .tag(.title, StringMatch(.equal, "t", foldCase: false)),
        ])
        XCTAssertEqual(try parse(["modified-since", "100"]), [.modifiedSince(100)])
    }

    func testErrorsAreMPDs() {
        XCTAssertEqual(error([]), "Incorrect number of filter arguments")
        XCTAssertEqual(error(["artist"]), "Incorrect number of filter arguments")
        XCTAssertEqual(error(["frob", "x"]), "Unknown filter type")
        XCTAssertEqual(error(["base", "../x"]), "Bad URI")
        XCTAssertEqual(error(["(frob == 'x')"]), "Unknown filter type: frob")
        XCTAssertEqual(error(["("]), "Word expected")
        XCTAssertEqual(error(["(artist 'x')"]), "'==' or '!=' expected")
        XCTAssertEqual(error(["(artist == x)"]), "Quoted string expected")
        XCTAssertEqual(error(["(artist == 'x"]), "Closing quote not found")
        XCTAssertEqual(error(["(artist == 'x'"]), "')' expected")
        XCTAssertEqual(error(["(artist == 'x') junk"]), "Unparsed garbage after expression")
        XCTAssertEqual(error(["((artist == 'x') OR (album == 'y'))"]), "'AND' expected")
        XCTAssertEqual(error(["(!artist == 'x')"]), "'(' expected")
        XCTAssertEqual(error(["(!(artist == 'x')"]), "')' expected")
        XCTAssertEqual(error(["(AudioFormat != '1:2:3')"]), "'==' or '=~' expected")
        XCTAssertEqual(error(["(modified-since 'yesterday')"]), "Failed to parse time stamp")
        XCTAssertEqual(error(["(title =~ '(')"]), "Error in regex at offset 1: missing closing parenthesis")
        XCTAssertEqual(error(["(title == '\(String(repeating: "x", count: 5000))')"]), "Quoted value is too long")
        // Deep nesting and binary junk end in an error or a filter, never a crash.
        _ = error([String(repeating: "(", count: 500)])
        _ = error(["(\u{0}\u{1}\u{FF})"])
    }

    func testStringMatching() {
        XCTAssertTrue(StringMatch(.equal, "Café", foldCase: false).matchesWithoutNegation("Café"))
        XCTAssertFalse(StringMatch(.equal, "café", foldCase: false).matchesWithoutNegation("Café"))
        XCTAssertTrue(StringMatch(.equal, "café", foldCase: true).matchesWithoutNegation("CAFÉ"))
        XCTAssertTrue(StringMatch(.contains, "FÉ", foldCase: true).matchesWithoutNegation("café au lait"))
        XCTAssertFalse(StringMatch(.contains, "fe", foldCase: true).matchesWithoutNegation("café"))
        // ASCII folds byte by byte: only letters change case.
        XCTAssertTrue(StringMatch(.contains, "LAIT", foldCase: true).matchesWithoutNegation("au Lait"))
        XCTAssertFalse(StringMatch(.contains, "LAIT", foldCase: false).matchesWithoutNegation("au Lait"))
        XCTAssertFalse(StringMatch(.contains, "[", foldCase: true).matchesWithoutNegation("{x}"))
        XCTAssertFalse(StringMatch(.contains, "lait!", foldCase: true).matchesWithoutNegation("lait"))
        XCTAssertTrue(StringMatch(.contains, "", foldCase: true).matchesWithoutNegation(""))
        XCTAssertTrue(StringMatch(.startsWith, "caf", foldCase: false).matchesWithoutNegation("café"))
        XCTAssertTrue(StringMatch(.regex, "^c.f", foldCase: false).matchesWithoutNegation("café"))
        XCTAssertTrue(StringMatch(.regex, "^C.F", foldCase: true).matchesWithoutNegation("café"))
    }

    func testRandomDamageEndsInAFilterOrAnError() {
        var random = SplitMix(seed: 13)
        let seeds = ["((Artist == 'a \\'b') AND (!(Album contains \"x\")) AND (Title =~ '^[a-z]+$'))",
                     "(AudioFormat =~ '44100:*:2')", "(modified-since '2023-11-14T22:13:20Z')", "(base 'a/b')"]
        let alphabet = Array("()'\"\\!=~ ANDany:*-".utf8) + [0, 0xFF, 0xC3]
        for _ in 0..<5_000 {
            var bytes = Array(seeds[random.next(seeds.count)].utf8)
            for _ in 0..<(1 + random.next(3)) {
                let at = random.next(bytes.count + 1)
                switch random.next(3) {
                case 0 where at < bytes.count: bytes.remove(at: at)
                case 1: bytes.insert(alphabet[random.next(alphabet.count)], at: at)
                default: bytes = Array(bytes.prefix(at))
                }
            }
            _ = error([String(decoding: bytes, as: UTF8.self)])
        }
    }

    func testFieldTerms() throws {
        XCTAssertTrue(FieldTerms.hasFields("love singer:x"))
        XCTAssertFalse(FieldTerms.hasFields("re:zero love"), "an unknown field is a word")
        XCTAssertEqual(try FieldTerms.parse(#"singer:"Taylor Swift" year:2003..2005 plays:10.. liked:no re:zero"#), [
            .tag(.artist, StringMatch(.contains, "Taylor Swift", foldCase: true)),
            .number(.year, lower: 2003, upper: 2005), .number(.plays, lower: 10, upper: nil), .liked(false),
            .tag(nil, StringMatch(.contains, "re:zero", foldCase: true)),
        ])
        XCTAssertEqual(try FieldTerms.parse("year:..1999 genre:pop"), [
            .number(.year, lower: nil, upper: 1999), .tag(.genre, StringMatch(.contains, "pop", foldCase: true)),
        ])
        for bad in ["year:", "year:abc", "year:2005..2003", "year:..", "plays:x..", "liked:maybe"] {
            XCTAssertThrowsError(try FieldTerms.parse(bad), bad)
        }
    }
}
