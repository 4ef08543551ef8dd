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
/// the one before (0.25 s, 0.5 s, 1 s), and after the third the host hangs up; the guesses are counted
/// per client address too, over its connections. The wait is scheduled, so every other client is
/// served meanwhile.
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
        let otherPort = try server.listen(host: "127.0.0.2", port: 0)
        let guesser = try client()
        try guesser.sendLine("password one")
        try guesser.sendLine("password two")
        // The guesser's answers are held back for 0.75 s in all; the event loop answers others meanwhile
        // (from another address: the guesser's would wait as it does).
        let other = try MPDClient.connect(host: "127.0.0.2", port: otherPort)
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

    /// A new connection from an address whose guesses were wrong is answered after their wait, even with
    /// the right password, while another address is answered at once; the right password clears the
    /// address's count.
    func testAnotherConnectionFromAnAddressThatGuessedWaits() throws {
        let otherPort = try server.listen(host: "127.0.0.2", port: 0)
        let guesser = try rawConnection()
        defer { close(guesser) }
        write(String(repeating: "password guess\n", count: SessionLimits().passwordAttempts), to: guesser)
        XCTAssertNotNil(readUntilClosed(guesser), "the host hangs up")
        XCTAssertEqual(server.service.credentials.delay(for: "127.0.0.1"), .seconds(1))

        let again = try rawConnection()
        defer { close(again) }
        XCTAssertEqual(try lines(1, from: again), ["OK MPD \(ClientSession.protocolVersion)"])
        write("password letmein\n", to: again)
        let elsewhere = try MPDClient.connect(host: "127.0.0.2", port: otherPort)
        try elsewhere.run("password", "letmein")
        XCTAssertNotNil(value(try elsewhere.run("status"), "state"), "another address is served at once")
        XCTAssertFalse(hasInput(again), "the guessers' address still waits")
        XCTAssertEqual(try lines(1, from: again), ["OK"], "then its right password is taken")
        XCTAssertEqual(server.service.credentials.delay(for: "127.0.0.1"), .zero, "and the count cleared")
        write("status\n", to: again)
        XCTAssertEqual(try lines(1, from: again).first?.hasPrefix("ACK"), false, "and the connection served")

        // The Unix socket's clients are one address, counted apart from the network's.
        let socket = folder.path("mpd.socket")
        try server.listen(unixPath: socket)
        let local = try XCTUnwrap(try MPDClient.connect(unixPath: socket))
        XCTAssertThrowsError(try local.run("password", "guess"))
        XCTAssertEqual(server.service.credentials.delay(for: "local"), .milliseconds(250))
        XCTAssertEqual(server.service.credentials.delay(for: "127.0.0.1"), .zero)
    }

    /// The next `count` lines the host sends on `fd`, waiting at most 10 s for them.
    private func lines(_ count: Int, from fd: Int32) throws -> [String] {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var byte: UInt8 = 0
        // A byte at a time: nothing past the lines asked for is taken from the socket.
        while received.filter({ $0 == 0x0A }).count < count {
            guard recv(fd, &byte, 1, 0) == 1 else { throw ServerError.connectionClosed }
            received.append(byte)
        }
        return received.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether the host has sent anything on `fd` not yet read.
    private func hasInput(_ fd: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) > 0
    }
}
