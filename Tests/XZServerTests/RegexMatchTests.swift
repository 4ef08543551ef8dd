import Foundation
import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport

/// `=~` and `!~` through PCRE2 as MPD compiles them: ordinary patterns answer as real MPD answers, and
/// patterns that backtrack without end give up on each value at the match limit, so every request ends
/// and the host keeps serving everyone.
final class RegexMatchTests: MusicFolderHostTestCase {
    func testOrdinaryPatternsAnswerAsRealMPD() throws {
        try FileManager.default.createDirectory(at: music.appendingPathComponent("more"), withIntermediateDirectories: true)
        for (name, title, artist) in [("1", "Café", "Ärger"), ("2", "CAFÉ au lait", "Ärger"), ("3", "line", "x")] {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("more/\(name).mp3").path, seconds: 1,
                                      tags: .init(title: title, artist: artist, album: "More", track: 1))
        }
        let ours = try client()
        XCTAssertEqual(try ours.run("update").first?.key, "updating_db")
        host.updates.wait()
        try compareWithRealMPD([
            // No UTF mode: `.` is one byte, so "é" is two, and caseless folds ASCII only.
            "find \"(Title =~ '^Caf.$')\"", "find \"(Title =~ '^Caf..$')\"", "find \"(Title =~ 'é')\"",
            "search \"(Title =~ 'café')\"", "search \"(Title =~ 'CAF')\"", "search \"(Artist =~ 'är')\"",
            "find \"(Artist =~ '^Ä')\"", "find \"(Title =~ '[[:alpha:]]+ au')\"", "find \"(Title =~ '^.{4}$')\"",
            "find \"(Title !~ 'Song')\"", "search \"(Title !~ 'song')\"", "find \"(file =~ '^album/[13]')\"",
            "find \"(Title =~ 'Song (1|3)$')\"", "count \"(Title =~ '^S')\"", "list Album \"(Title =~ 'a')\"",
            "find \"(Title =~ '(?i)LINE')\"", "find \"(Title =~ '')\"",
            // Patterns that do not compile: MPD's message, with PCRE2's offset and reason.
            "find \"(Title =~ '(')\"", "find \"(Title =~ '[a')\"", "search \"(Title =~ 'a{2,1}')\"",
            "find \"(Title =~ '\\\\\\\\')\"",
        ])
    }

    /// The edges of the wrapper: the empty value, a pattern cut at a NUL as MPD's C string is, and a
    /// match past the limit, which is no match.
    func testEmptyValuesNULsAndTheLimit() throws {
        XCTAssertTrue(try FilterRegex("", caseless: false).matches(""))
        XCTAssertTrue(try FilterRegex("^$", caseless: false).matches(""))
        XCTAssertFalse(try FilterRegex("^.$", caseless: false).matches(""))
        XCTAssertTrue(try FilterRegex("^ab\u{0}c", caseless: false).matches("abz"))
        XCTAssertTrue(try FilterRegex("^a.b$", caseless: false).matches("a\nb"), "a dot matches a newline")
        XCTAssertFalse(try FilterRegex("^(a|a)*$", caseless: false).matches(String(repeating: "a", count: 40) + "X"))
        XCTAssertTrue(try FilterRegex("^(a|a)*$", caseless: false).matches(String(repeating: "a", count: 40)))
    }

    func testRunawayPatternsEndAndTheHostKeepsServing() throws {
        // Long values where X is not last, which every pattern below backtracks over exponentially,
        // and a few short ones the first pattern matches.
        let long = (0..<500).map { String(repeating: "a", count: 30 + $0 % 5) + "X" + String(repeating: "a", count: 5) }
        let feedHost = try FeedLibraryHost(titles: long + ["aX", "aaX", "ba"])
        defer { feedHost.shutdown() }
        let patterns = ["^(.*)*X$", "^(a+)+$", "^(a|a)*$", "^(a|aa)+$"]
        let expected: [String: [String]] = ["^(.*)*X$": ["Title: aX", "Title: aaX"]]
        let runaway = try feedHost.client()
        XCTAssertTrue(try runaway.run("findadd", "(Title starts_with 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')").isEmpty)
        let lines = patterns.flatMap { pattern in
            ["find \"(Title =~ '\(pattern)')\"", "search \"(Title =~ '\(pattern)')\"",
             "playlistfind \"(Title =~ '\(pattern)')\"", "count \"(Title =~ '\(pattern)')\""]
        }
        // Two clients at once on the runaway patterns (as many as the machine has blocking threads for),
        // their requests pipelined, while a third is answered.
        let other = try feedHost.client()
        for client in [runaway, other] {
            for line in lines { try client.sendLine(line) }
        }
        let third = try feedHost.client()
        XCTAssertEqual(RealMPD.answer(third, "find \"(Title == 'ba')\"").filter { $0.hasPrefix("Title") }, ["Title: ba"])
        for client in [runaway, other] {
            for pattern in patterns {
                let found = expected[pattern] ?? []
                func next() throws -> [String] {
                    try client.readResponse().filter { $0.key == "Title" || $0.key == "songs" }.map { "\($0.key): \($0.value)" }
                        .sorted()
                }
                XCTAssertEqual(try next(), found, "find \(pattern)")
                XCTAssertEqual(try next(), found, "search \(pattern)")
                XCTAssertEqual(try next(), [], "playlistfind \(pattern)")
                XCTAssertEqual(try next(), ["songs: \(found.count)"], "count \(pattern)")
            }
        }
        XCTAssertEqual(RealMPD.answer(third, "status").filter { $0.hasPrefix("playlistlength") }, ["playlistlength: 500"])
    }
}
