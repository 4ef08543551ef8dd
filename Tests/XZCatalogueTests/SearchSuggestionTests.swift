import XCTest
@testable import XZCatalogue
import XZCatalogueTestSupport

final class SearchSuggestionTests: XCTestCase {
    private var library: TestLibrary!

    override func setUpWithError() throws {
        library = try TestLibrary()
        let songs: [(String, String)] = [
            ("晴天", "周杰伦"), ("晴天娃娃", "某人"), ("七里香", "周杰伦"), ("Lantern Parade", "The Lamplighters"),
            ("Jóga", "Björk"), ("Hyperballad", "Björk"), ("Bjorn Again", "ABBA Tribute"), ("Broken Heart", "Someone"),
            ("Bohemian Rhapsody", "Queen"), ("Queenie", "Q Band"),
        ]
        try library.importFeed(songs.enumerated().map { i, s in
            TestLibrary.line(["source_id": "\(i)", "title": s.0, "singer": s.1])
        })
    }

    override func tearDown() { library = nil }

    private func suggestions(_ query: String) throws -> [SearchSuggestion] {
        try library.database.search(query).suggestions
    }

    func testTheIssuesMissesSuggestWhatWasMeant() throws {
        let qingtian = try XCTUnwrap(try suggestions("qingtain").first)
        XCTAssertEqual([qingtian.name, qingtian.singer, qingtian.pinyin], ["晴天", "周杰伦", "qingtian"])
        XCTAssertEqual(qingtian.kind, .song)
        XCTAssertEqual(qingtian.distance, 1)

        let lantern = try XCTUnwrap(try suggestions("Lantern Prade").first)
        XCTAssertEqual([lantern.name, lantern.singer], ["Lantern Parade", "The Lamplighters"])
        XCTAssertNil(lantern.pinyin, "matched on the title itself")

        let bjork = try XCTUnwrap(try suggestions("bjrok").first)
        XCTAssertEqual(bjork.kind, .singer)
        XCTAssertEqual(bjork.name, "Björk")
        XCTAssertNil(bjork.singer)
    }

    func testAHanCharacterTypedForAnotherOfTheSameSoundSuggestsBySound() throws {
        XCTAssertEqual(try library.titles("晴添"), [])
        XCTAssertEqual(try suggestions("晴添").first.map { [$0.name, $0.pinyin] }, ["晴天", "qingtian"])
    }

    func testCloserFormsRankFirst() throws {
        // The singer Queen is one edit from the query; "Queenie" begins with that variant, two more away.
        let queem = try suggestions("queem")
        XCTAssertEqual(queem.map(\.name), ["Queen", "Queenie"])
        XCTAssertEqual(queem.map(\.kind), [.singer, .song])
        XCTAssertEqual(queem.map(\.distance), [1, 3])
        // 晴天 is one swap away; 晴天娃娃 only begins with it and is far from the whole.
        XCTAssertEqual(try suggestions("qingtain").map(\.name), ["晴天"])
        // Björk is one swap away; "Broken Heart" merely begins like a variant.
        XCTAssertEqual(try suggestions("bjrok").map(\.name), ["Björk"])
    }

    func testTheBeginningOfAKeyTypedRunTogetherSuggestsItsSongs() throws {
        // "lanternpa" is no word of any song, but both keys below begin with it, however far their ends.
        XCTAssertEqual(try library.titles("lanternpa"), [])
        XCTAssertEqual(try suggestions("lanternpa").map(\.name), ["Lantern Parade"])
        XCTAssertEqual(try suggestions("晴添").map(\.name), ["晴天", "晴天娃娃"])
    }

    func testAMatchIsNeverDisplacedBySuggestions() throws {
        for query in ["qingtian", "晴天", "Lantern Parade", "bjork", "björk", "queen"] {
            let result = try library.database.search(query)
            XCTAssertFalse(result.songs.isEmpty && result.singers.isEmpty, query)
            XCTAssertEqual(result.suggestions, [], query)
        }
        XCTAssertEqual(try library.titles("qingtian").first, "晴天")
    }

    func testQuotesAndOperatorsNeverFail() throws {
        for query in ["\"qingtain", "qingtain*", "lantern AND prade", "bjrok OR", "NEAR(bjrok)", "'; DROP TABLE song; --",
                      "\"\"", "***", "^bjrok", "title:", "(bjrok)", "-", "\u{0}bjrok", "\u{10FFFF}"] {
            XCTAssertNoThrow(try library.database.search(query), query)
        }
        XCTAssertEqual(try suggestions("(bjrok)").first?.name, "Björk", "punctuation folds away")
        XCTAssertEqual(try suggestions("\"lantern prade\"").first?.name, "Lantern Parade")
    }

    func testNoSuggestionsForNoise() throws {
        for query in ["xqzvkw", "zzzzzzzz", "qqq", "a", "嗯", "1234567", "&&&&"] {
            XCTAssertEqual(try suggestions(query), [], query)
        }
    }

    func testEditDistanceCountsASwapAsOneEdit() {
        func distance(_ a: String, _ b: String) -> Int {
            SearchSuggestions.editDistance(Array(a.unicodeScalars), Array(b.unicodeScalars))
        }
        XCTAssertEqual(distance("bjrok", "bjork"), 1)
        XCTAssertEqual(distance("lanternprade", "lanternparade"), 1)
        XCTAssertEqual(distance("qingtain", "qingtian"), 1)
        XCTAssertEqual(distance("", "abc"), 3)
        XCTAssertEqual(distance("kitten", "sitting"), 3)
        XCTAssertEqual(distance("晴添", "晴天"), 1)
    }
}
