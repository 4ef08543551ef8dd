import ArgumentParser
import XCTest
@testable import XZCommands

final class CommandTableTests: XCTestCase {
    /// A name left to the argument parser is derived from the type by reflection on every start-up,
    /// once per command in the table, which made up a third of a one-shot command's time.
    func testEveryCommandNamesItself() {
        var pending: [ParsableCommand.Type] = [XZMusic.self]
        var seen = 0
        while let command = pending.popLast() {
            XCTAssertNotNil(command.configuration.commandName, "\(command) has no commandName")
            pending += command.configuration.subcommands
            seen += 1
        }
        XCTAssertGreaterThan(seen, 30)
    }
}
