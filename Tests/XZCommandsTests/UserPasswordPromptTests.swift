import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZTestSupport

/// `user add` and `user passwd` at a real prompt on a pseudo-terminal: the password is asked twice and
/// never echoed, two that differ change nothing, Ctrl-C cancels, and the terminal echoes again after.
final class UserPasswordPromptTests: LibraryProcessTestCase {
    override func setUpWithError() throws {
        temp = try TemporaryFolder("user-prompt")
    }

    override func tearDown() {
        temp = nil
    }

    override var environment: [String: String] {
        var env = super.environment
        env["TERM"] = "xterm"
        return env
    }

    func testPasswordsAreAskedTwiceWithoutEcho() throws {
        let prompt = try TerminalPrompt(binary: binary, environment: environment, session: true)
        XCTAssertTrue(prompt.waitFor("xzmusic> "), prompt.output)
        prompt.type("user add ana --jukebox")
        XCTAssertTrue(prompt.waitFor("Password: "), prompt.output)
        prompt.type("hunter2 密码")
        XCTAssertTrue(prompt.waitFor("Again: "), prompt.output)
        prompt.type("hunter2 密码")
        XCTAssertTrue(prompt.waitFor("added ana, the library's owner"), prompt.output)

        prompt.type("user passwd ana")
        XCTAssertTrue(prompt.waitFor("Password: ", after: "user passwd ana"), prompt.output)
        prompt.type("one")
        XCTAssertTrue(prompt.waitFor("Again: ", after: "user passwd ana"), prompt.output)
        prompt.type("two")
        XCTAssertTrue(prompt.waitFor("the two passwords differ"), prompt.output)

        prompt.type("user passwd ana")
        XCTAssertTrue(prompt.waitFor("Password: ", after: "the two passwords differ"), prompt.output)
        prompt.type("\u{3}")
        XCTAssertTrue(prompt.waitFor("cancelled; nothing changed"), prompt.output)

        // The terminal echoes again: the command typed next shows as it is typed.
        prompt.type("user list")
        XCTAssertTrue(prompt.waitFor("API key"), prompt.output)
        XCTAssertTrue(prompt.output.contains("user list"), prompt.output)
        XCTAssertFalse(prompt.output.contains("hunter2"), "a password is never echoed: \(prompt.output)")
        _ = prompt.lose(.endOfInput)

        let library = LibraryFolder(url: URL(fileURLWithPath: temp.path("library")))
        let accounts = AccountStore(library: library, database: try LibraryDatabase(path: library.databasePath))
        XCTAssertEqual(try accounts.authenticate(name: "ana", password: "hunter2 密码").name, "ana",
                       "neither the differing passwords nor the cancelled one changed it")
    }
}

private extension TerminalPrompt {
    /// True once `text` is printed after the last `marker`.
    func waitFor(_ text: String, after marker: String, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        repeat {
            let printed = output
            if let last = printed.range(of: marker, options: .backwards), printed[last.upperBound...].contains(text) { return true }
            usleep(50_000)
        } while Date() < deadline
        return false
    }
}
