import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport

/// Filters past the nesting and condition caps are refused with MPD's ACK for a bad expression, by every
/// command that takes one, and the host keeps serving; filters at the caps, in the shapes that cost
/// SQLite most, are answered.
final class FilterSizeLimitTests: MusicFolderHostTestCase {
    private var ours: MPDClient!

    override func setUpWithError() throws {
        try super.setUpWithError()
        ours = try client()
        XCTAssertEqual(try ours.run("update").first?.key, "updating_db")
        host.updates.wait()
    }

    /// Every command that reads a filter, with `filter` as its filter argument(s).
    private func filterCommands(_ filter: String) -> [String] {
        ["find \(filter)", "search \(filter)", "count \(filter)", "list Artist \(filter)", "list file \(filter)",
         "findadd \(filter)", "searchadd \(filter)", "searchaddpl deep \(filter)", "playlistfind \(filter)",
         "playlistsearch \(filter)"]
    }

    private func command(_ line: String) -> String { String(line.prefix { $0 != " " }) }

    func testDeepNestingIsRefusedAndTheHostKeepsServing() throws {
        // As deep as a line of the transport's 64 KiB allows (the parser meets the depth before any `)`).
        let shapes = [
            String(repeating: "(", count: 50_000) + "Artist == 'Artist'",
            String(repeating: "(!", count: 20_000) + "(Artist == 'Artist')" + String(repeating: ")", count: 20_000),
            String(repeating: "((Artist == 'Artist') AND ", count: 2_000) + "(Title == 'x')" + String(repeating: ")", count: 2_000),
            // One level past the cap is refused as well as fifty thousand.
            String(repeating: "(!", count: FilterParser.maxDepth) + "(Artist == 'Artist')"
                + String(repeating: ")", count: FilterParser.maxDepth),
        ]
        for shape in shapes {
            for line in filterCommands("\"\(shape)\"") {
                XCTAssertEqual(RealMPD.answer(ours, line),
                               ["ACK 2 {\(command(line))} Filter nested too deeply (at most \(FilterParser.maxDepth) levels)"],
                               String(line.prefix(40)))
            }
        }
        XCTAssertEqual(RealMPD.answer(ours, "playlistinfo"), [], "nothing was added")
        XCTAssertEqual(RealMPD.answer(ours, "listplaylists"), [], "no playlist was made")
        XCTAssertEqual(RealMPD.answer(ours, "count Artist Artist"), ["songs: 3"])
        XCTAssertEqual(try client().run("ping").count, 0, "a new client is served")
    }

    func testConditionsPastTheCapAreRefused() throws {
        // As many as a line of the transport's 64 KiB holds.
        let many = 2_000
        let chain = "(" + Array(repeating: "(Artist == 'Artist')", count: many).joined(separator: " AND ") + ")"
        let expressions = Array(repeating: "\"(Artist == 'Artist')\"", count: many).joined(separator: " ")
        let pairs = Array(repeating: "Artist Artist", count: many).joined(separator: " ")
        let justPast = Array(repeating: "\"(Artist == 'Artist')\"", count: FilterParser.maxConditions + 1)
            .joined(separator: " ")
        // One past the cap in one expression, each test in a `!` or an extra pair of parentheses (which are no conditions).
        let justPastInOne = "\"(" + Array(repeating: "(!(Artist == 'x'))", count: FilterParser.maxConditions)
            .joined(separator: " AND ") + " AND ((Artist == 'Artist')))\""
        for filter in ["\"\(chain)\"", expressions, pairs, justPast, justPastInOne] {
            for line in filterCommands(filter) {
                XCTAssertEqual(RealMPD.answer(ours, line),
                               ["ACK 2 {\(command(line))} Too many filter conditions (at most \(FilterParser.maxConditions))"],
                               String(line.prefix(60)))
            }
        }
        XCTAssertEqual(RealMPD.answer(ours, "count Artist Artist"), ["songs: 3"])
    }

    /// The deepest filters allowed, alternating `AND` and `!` (what SQLite's parser stack feels most),
    /// around each kind of condition, and the most conditions allowed, are answered, not SQL errors.
    func testFiltersAtTheCapsAreAnswered() throws {
        let leaves = ["(AlbumArtistSort == 'Artist')", "(any contains 'Song')", "(file =~ 'mp3$')", "(base 'album')",
                      "(AudioFormat =~ '*:*:*')", "(modified-since '0')", "(Title starts_with 'Song')"]
        for leaf in leaves {
            // Levels alternate `((LEAF) AND (!(…)))`: two per step, the innermost leaf one more.
            var filter = leaf
            var holds = true
            var depth = 1
            while depth + 2 <= FilterParser.maxDepth {
                filter = "(\(leaf) AND (!\(filter)))"
                holds = !holds
                depth += 2
            }
            if depth < FilterParser.maxDepth {
                filter = "(!\(filter))"
                holds = !holds
            }
            XCTAssertEqual(RealMPD.answer(ours, "count \"\(filter)\""), [holds ? "songs: 3" : "songs: 0"], leaf)
            for line in ["find \"\(filter)\"", "search \"\(filter)\"", "list Album \"\(filter)\""] {
                XCTAssertFalse(RealMPD.answer(ours, line).contains { $0.hasPrefix("ACK") }, line)
            }
            // As many tests as the cap in one `AND`, and in separate expressions: `AND` itself is no condition.
            let flat = Array(repeating: leaf, count: FilterParser.maxConditions).joined(separator: " AND ")
            let spread = Array(repeating: "\"\(leaf)\"", count: FilterParser.maxConditions).joined(separator: " ")
            let negated = "(" + Array(repeating: "(!\(leaf))", count: FilterParser.maxConditions).joined(separator: " AND ") + ")"
            for line in ["find \"(\(flat))\"", "search \"(\(flat))\"", "count \(spread)", "search \(spread)", "count \"\(negated)\""] {
                let answer = RealMPD.answer(ours, line)
                XCTAssertFalse(answer.contains { $0.hasPrefix("ACK") }, "\(line.prefix(60)): \(answer.last ?? "")")
            }
        }
    }
}
