import Foundation
import XCTest
import XZMPDCommands
import XZProtocol
@testable import XZServer
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What a client sends while its request runs waits in TCP, not in the host: the host stops reading from
/// a busy client, answers everything in order once the request is done, and drops a client whose input
/// held meanwhile passes `maxBufferedInputBytes`.
final class BusyInputTests: MusicFolderHostTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try host.database.importFolder(at: music)
    }

    func testInputSentWhileBusyWaitsInTCPAndIsAnsweredInOrder() throws {
        let gate = occupyHeavyLane()
        var released = false
        defer { if !released { release(gate) } }
        let fd = try rawConnection()
        defer { close(fd) }
        XCTAssertTrue(write("find artist Artist\n", to: fd))
        // Pings until the socket takes no more: the host is not reading, so TCP's buffers fill. Padded
        // to 1000 bytes a line, so that a few thousand fill them.
        let ping = "ping" + String(repeating: " ", count: 995) + "\n"
        let chunk = Array(String(repeating: ping, count: 64).utf8)
        let ceiling = 64 << 20
        var sent = 0
        while sent < ceiling {
            let count = chunk[(sent % chunk.count)...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                // Pushed back for a moment: try once more after the host had time to read, if it would.
                usleep(200_000)
                let again = chunk[(sent % chunk.count)...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                if again < 0, errno == EAGAIN || errno == EWOULDBLOCK { break }
                XCTAssertGreaterThan(again, 0, "the host closed the connection (errno \(errno))")
                guard again > 0 else { return }
                sent += again
                continue
            }
            XCTAssertGreaterThan(count, 0, "the host closed the connection (errno \(errno))")
            guard count > 0 else { return }
            sent += count
        }
        XCTAssertLessThan(sent, ceiling, "the host stopped reading from the busy client")
        let pings = (sent + 999) / 1000

        release(gate)
        released = true
        // The last ping finished, so every one is whole.
        let partial = sent % 1000
        if partial > 0 { XCTAssertTrue(write(String(ping.dropFirst(partial)), to: fd)) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let expected = ClientSession.greeting + "file: album/1.mp3\n"
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var oks = 0
        var line: [UInt8] = []
        while oks < pings + 1 {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            if received.count < 4096 { received += buffer[..<min(count, 4096)] }
            for byte in buffer[..<count] {
                guard byte == 0x0A else {
                    line.append(byte)
                    continue
                }
                if line.elementsEqual("OK".utf8) { oks += 1 }
                line.removeAll(keepingCapacity: true)
            }
        }
        XCTAssertEqual(oks, pings + 1, "the search and every ping answered")
        XCTAssertTrue(String(decoding: received, as: UTF8.self).hasPrefix(expected), "the search first")
    }

    func testInputPastTheCapWhileBusyDropsTheClient() throws {
        var limits = ServerLimits()
        limits.maxBufferedInputBytes = 1024
        try restartServer(limits: limits)
        let gate = occupyHeavyLane()
        defer { release(gate) }
        let fd = try rawConnection()
        defer { close(fd) }
        write("find artist Artist\n" + String(repeating: "ping\n", count: 13_107), to: fd)
        XCTAssertEqual(readUntilClosed(fd), ClientSession.greeting, "dropped while its search waited")
        XCTAssertNoThrow(try client().run("ping"), "others are served")
    }
}
