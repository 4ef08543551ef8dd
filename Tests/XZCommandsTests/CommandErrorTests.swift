import Foundation
import XCTest
@testable import XZCommands

final class CommandErrorTests: XCTestCase {
    /// Callers match on the kind, whatever the words; the words are what the user reads.
    func testKindsMatchWhateverTheirWords() {
        let error: Error = CommandError.emptyQueue("the queue is empty: nothing to save")
        XCTAssertTrue(CommandError.emptyQueue ~= error)
        XCTAssertFalse(CommandError.noHost ~= error)
        XCTAssertFalse(CommandError.emptyQueue ~= CocoaError(.fileNoSuchFile))
        XCTAssertEqual("\(error)", "the queue is empty: nothing to save")

        let named = CommandError.noSuchPlaylist(named: "road")
        XCTAssertTrue(CommandError.noSuchPlaylist ~= named)
        XCTAssertEqual(named.description, "no playlist named road ('playlist list' shows them)")
        XCTAssertNotEqual(named, CommandError.noSuchPlaylist, "same kind, other words")
        XCTAssertNotEqual(CommandError.usage("x"), CommandError.failed("x"), "same words, other kind")
    }

    func testACatchClauseNamesTheKind() {
        func lookUp() throws { throw CommandError.refusedByHost("add", "No such song") }
        do {
            try lookUp()
            XCTFail("no error")
        } catch CommandError.refusedByHost("", "") {
            // The pattern's words do not matter.
        } catch {
            XCTFail("\(error)")
        }
    }
}
