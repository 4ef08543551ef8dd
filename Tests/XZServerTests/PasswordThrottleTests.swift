import Foundation
import XCTest
import XZMPDCommands
import XZProtocol
@testable import XZServer
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Guessing the password costs time and the connection: each wrong `password` is answered later than
/// the one before (0.25 s, 0.5 s, 1 s), and after the third the host hangs up. The wait is scheduled,
/// so every other client is served meanwhile.
final class PasswordThrottleTests: MusicFolderHostTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try restartServer(limits: ServerLimits(), password: "letmein")
    }

    func testWrongPasswordsWaitLongerEachTimeThenTheConnectionIsDropped() throws {
        let attempts = SessionLimits().passwordAttempts
        let fd = try rawConnection()
        defer { close(fd) }
        let started = Date()
        // Guesses sent at once, as a guessing script would; the lines after them never run.
        write(String(repeating: "password guess\n", count: 50) + "password letmein\nsetvol 5\n", to: fd)
        let answer = try XCTUnwrap(readUntilClosed(fd), "the host hangs up")
        let elapsed = Date().timeIntervalSince(started)
        let lines = answer.split(separator: "\n")
        XCTAssertEqual(lines.filter { $0 == "ACK [3@0] {password} incorrect password" }.count, attempts, answer)
        XCTAssertEqual(lines.count, attempts + 1, "greeting and one ACK per attempt allowed: \(answer)")
        // 0.25 + 0.5 + 1 s at the least.
        XCTAssertGreaterThanOrEqual(elapsed, 1.7)
        let other = try client()
        try other.run("password", "letmein")
        XCTAssertNotEqual(value(try other.run("status"), "volume"), "5", "nothing after the guesses ran")
    }

    func testOthersAreServedWhileAGuessWaits() throws {
        let guesser = try client()
        try guesser.sendLine("password one")
        try guesser.sendLine("password two")
        // The guesser's answers are held back for 0.75 s in all; the event loop answers others meanwhile.
        let other = try client()
        let started = Date()
        try other.run("password", "letmein")
        for _ in 0..<20 { XCTAssertNotNil(value(try other.run("status"), "state")) }
        let otherElapsed = Date().timeIntervalSince(started)
        XCTAssertThrowsError(try guesser.readResponse()) { XCTAssertEqual(($0 as? MPDError)?.code, .password) }
        XCTAssertThrowsError(try guesser.readResponse()) { XCTAssertEqual(($0 as? MPDError)?.code, .password) }
        let guesserElapsed = Date().timeIntervalSince(started)
        XCTAssertLessThan(otherElapsed, guesserElapsed, "the other client was answered before the guesses")
        // The right password after wrong ones (fewer than the limit) is still taken.
        try guesser.run("password", "letmein")
        XCTAssertNotNil(value(try guesser.run("status"), "state"))
    }
}
