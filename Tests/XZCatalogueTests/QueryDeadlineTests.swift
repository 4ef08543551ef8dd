import Foundation
import XCTest
@testable import XZCatalogue
import XZCatalogueTestSupport
import XZSystem

/// A filter query given a deadline is stopped by SQLite itself once the deadline passes (not after the
/// statement ran to its end), and the connection it ran on serves the next query as before.
final class QueryDeadlineTests: XCTestCase {
    func testSQLStopsAtTheDeadlineAndTheConnectionServesOn() throws {
        let library = try TestLibrary()
        // Each value costs a runaway pattern its whole match limit: seconds over the library.
        try library.importFeed((0..<10_000).map { index in
            TestLibrary.line(["source_id": "\(index)", "singer": "S", "title": String(repeating: "a", count: 30 + index % 5) + "X"])
        } + [TestLibrary.line(["source_id": "plain", "singer": "S", "title": "ba"])])
        let runaway = try FilterParser.parse(["(Title =~ '^(a|a)*$')"], foldCase: false)
        let plain = try FilterParser.parse(["(Title == 'ba')"], foldCase: false)
        // `tagValues` checks the deadline nowhere but in SQLite's progress handler.
        XCTAssertThrowsError(try library.database.tagValues(runaway, tags: [.title], naming: .paths,
                                                            deadline: Deadline(after: .milliseconds(50)))) { error in
            XCTAssertEqual(error as? DeadlinePassed, DeadlinePassed())
        }
        XCTAssertThrowsError(try library.database.songURIs(runaway, naming: .paths, deadline: Deadline(after: .milliseconds(50))))
        XCTAssertThrowsError(try library.database.songs(SongSelection(filters: runaway), naming: .paths,
                                                        deadline: Deadline(uptimeNanoseconds: 0)))
        for _ in 0..<4 {
            XCTAssertEqual(try library.database.tagValues(plain, tags: [.title], naming: .paths,
                                                          deadline: Deadline(after: .seconds(600))).map(\.values), [[["ba"]]])
            XCTAssertEqual(try library.database.songs(SongSelection(filters: plain), naming: .paths).map(\.title), ["ba"])
        }
    }

    func testDeadlinesFromBudgets() {
        XCTAssertFalse(Deadline(after: .seconds(60)).hasPassed)
        XCTAssertTrue(Deadline(after: .zero).hasPassed)
        XCTAssertTrue(Deadline(after: .seconds(-5)).hasPassed)
        XCTAssertEqual(Deadline(after: .seconds(Int64.max)), .never)
        XCTAssertFalse(Deadline.never.hasPassed)
    }
}
