import Foundation
import XCTest
import XZTestSupport

/// `search` offering the closest songs and singers when nothing matches: one-shot, prompt and --json.
final class SearchSuggestionCommandTests: XCTestCase {
    private var temp: TemporaryFolder!
    private var binary: String { TestPaths.products.appendingPathComponent("xzmusic").path }

    override func setUpWithError() throws {
        temp = try TemporaryFolder("suggest")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary), "build the xzmusic product first")
        let feed = [
            #"{"source_id":"s1","title":"晴天","singer":"周杰伦","album":"叶惠美"}"#,
            #"{"source_id":"s2","title":"Lantern Parade","singer":"The Lamplighters"}"#,
            #"{"source_id":"s3","title":"Jóga","singer":"Björk"}"#,
            #"{"source_id":"s4","title":"Evil\u001b[2J","singer":"Hacker\u009b"}"#,
        ]
        let path = temp.path("feed.jsonl")
        try feed.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try xzmusic("import", path).status, 0)
    }

    override func tearDown() { temp = nil }

    @discardableResult
    private func xzmusic(_ arguments: String..., input: String? = nil) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["XZMUSIC_HOME"] = temp.path("library")
        environment["XZMUSIC_DEMO"] = ""
        environment["NO_COLOR"] = "1"
        return try TestProcess.run(binary, arguments, input: input.map { Data($0.utf8) }, environment: environment)
    }

    func testOneShotMissesSayWhatWasMeant() throws {
        let expected = [
            "qingtain": "did you mean: 晴天 — 周杰伦 (qingtian)",
            "Lantern Prade": "did you mean: Lantern Parade — The Lamplighters",
            "bjrok": "did you mean: Björk (singer)",
        ]
        for (query, line) in expected {
            let result = try xzmusic("search", query)
            XCTAssertEqual(result.status, 0, result.stderr)
            let lines = result.stdout.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.first, "No matches.", query)
            XCTAssertTrue(lines.count == 2 && lines[1].hasPrefix(line), "\(query): \(result.stdout)")
        }
        // A match shows the match and nothing else.
        let hit = try xzmusic("search", "qingtian")
        XCTAssertTrue(hit.stdout.contains("晴天"))
        XCTAssertFalse(hit.stdout.contains("did you mean"), hit.stdout)
        // Noise gets the plain answer.
        XCTAssertEqual(try xzmusic("search", "xqzvkw").stdout, "No matches.\n")
    }

    func testSuggestedNamesArePrintedWithoutControlCharacters() throws {
        let result = try xzmusic("search", "hackre")
        XCTAssertTrue(result.stdout.contains("did you mean: Hacker"), result.stdout)
        XCTAssertFalse(result.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B }, result.stdout)
    }

    func testJSONListsSuggestionsOnlyForAMiss() throws {
        let miss = try xzmusic("search", "qingtain", "--json")
        XCTAssertEqual(miss.status, 0, miss.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: miss.stdoutData) as? [String: Any])
        XCTAssertEqual((json["songs"] as? [Any])?.count, 0)
        XCTAssertEqual((json["singers"] as? [Any])?.count, 0)
        let suggestion = try XCTUnwrap((json["suggestions"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(suggestion.keys), ["kind", "id", "name", "singer", "pinyin", "distance"])
        XCTAssertEqual(suggestion["kind"] as? String, "song")
        XCTAssertEqual(suggestion["name"] as? String, "晴天")
        XCTAssertEqual(suggestion["singer"] as? String, "周杰伦")
        XCTAssertEqual(suggestion["pinyin"] as? String, "qingtian")
        XCTAssertEqual(suggestion["distance"] as? Int, 1)

        let singer = try XCTUnwrap(JSONSerialization.jsonObject(with: try xzmusic("search", "bjrok", "--json").stdoutData)
            as? [String: Any])
        let björk = try XCTUnwrap((singer["suggestions"] as? [[String: Any]])?.first)
        XCTAssertEqual(björk["kind"] as? String, "singer")
        XCTAssertTrue(björk["singer"] is NSNull && björk["pinyin"] is NSNull, "\(björk)")

        let hit = try XCTUnwrap(JSONSerialization.jsonObject(with: try xzmusic("search", "qingtian", "--json").stdoutData)
            as? [String: Any])
        XCTAssertEqual((hit["songs"] as? [Any])?.count, 1)
        XCTAssertEqual((hit["suggestions"] as? [Any])?.count, 0)
    }

    func testThePromptSuggestsAndQuotesNeverBreakIt() throws {
        let result = try xzmusic(input: """
            search qingtain
            search "Lantern Prade"
            search "bjrok OR * AND"
            search NEAR(bjrok)
            search bjrok
            search lantern prade*
            quit
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "", "no command failed")
        XCTAssertTrue(result.stdout.contains("did you mean: 晴天 — 周杰伦 (qingtian)"), result.stdout)
        XCTAssertTrue(result.stdout.contains("did you mean: Lantern Parade — The Lamplighters"), result.stdout)
        XCTAssertTrue(result.stdout.contains("did you mean: Björk (singer)"), result.stdout)
    }
}
