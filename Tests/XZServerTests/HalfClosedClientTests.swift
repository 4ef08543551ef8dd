import Foundation
import XCTest
import XZMPDCommands
import XZProtocol
@testable import XZServer
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A client that sends its requests and ends its input (`printf 'stats\n' | nc -q 1 host 6600`, as scripts
/// and status bars do) gets every answer, in order, then the connection closes; as MPD, a last line
/// without its newline and a command list never ended are not run.
final class HalfClosedClientTests: MusicFolderHostTestCase {
    var socketPath = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        try host.database.importFolder(at: music)
        socketPath = folder.path("host.sock")
        try server.listen(unixPath: socketPath)
        XCTAssertEqual(try client().run("add", "album/2.mp3").count, 0)
        _ = try client().run("play", "0")
    }

    /// A connection over the Unix socket.
    private func unixConnection() throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(socketPath.utf8))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, connected == 0 else { throw ServerError.connectionClosed }
        return fd
    }

    /// What the host sends after its greeting to a client that sends `input` and ends its input.
    private func halfClosed(_ input: String, unix: Bool = false, before ending: () -> Void = {}) throws -> String? {
        let fd = unix ? try unixConnection() : try rawConnection()
        defer { close(fd) }
        XCTAssertTrue(write(input, to: fd))
        XCTAssertEqual(shutdown(fd, Int32(SHUT_WR)), 0)
        ending()
        guard let text = readUntilClosed(fd) else { return nil }
        XCTAssertTrue(text.hasPrefix(ClientSession.greeting), text)
        return String(text.dropFirst(ClientSession.greeting.count))
    }

    /// The answers of `requests` on an ordinary connection, as the host sends them.
    private func answers(_ requests: [String]) throws -> String {
        let ours = try client()
        var text = ""
        for request in requests {
            try ours.sendLine(request)
            while true {
                let line = try ours.readLine()
                text += line + "\n"
                if line == "OK" || line.hasPrefix("ACK ") { break }
            }
        }
        return text
    }

    /// Lines that change from one asking to the next.
    private func steady(_ text: String?) -> [String] {
        (text ?? "<still open>").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { !$0.hasPrefix("uptime: ") && !$0.hasPrefix("elapsed: ") && !$0.hasPrefix("time: ") }
    }

    /// Every request of the report, over TCP and the Unix socket: the loop's, the lookup lane's and
    /// the heavy lane's alike.
    func testEveryRequestIsAnsweredBeforeTheConnectionCloses() throws {
        let requests = ["stats", "lsinfo", "listall", "count artist Artist", "find artist Artist", "search any song",
                        "list artist", "listplaylists", "playlistinfo", "currentsong", "status", "ping", "listallinfo"]
        for request in requests {
            let expected = steady(try answers([request]))
            XCTAssertEqual(steady(try halfClosed(request + "\n")), expected, request + " over TCP")
            XCTAssertEqual(steady(try halfClosed(request + "\n", unix: true)), expected, request + " over the Unix socket")
        }
        // Several at once, answered in order.
        XCTAssertEqual(steady(try halfClosed(requests.map { $0 + "\n" }.joined())), steady(try answers(requests)))
    }

    /// The requests wait behind a search that holds the heavy lane; the input ends meanwhile.
    func testRequestsWaitingBehindABusyLaneAreAnswered() throws {
        let requests = ["ping", "lsinfo album", "stats", "find title \"Song 2\"", "ping"]
        let gate = occupyHeavyLane()
        var released = false
        defer { if !released { release(gate) } }
        let text = try halfClosed(requests.map { $0 + "\n" }.joined()) {
            release(gate)
            released = true
        }
        XCTAssertEqual(steady(text), steady(try answers(requests)))
    }

    /// What MPD does with the end of input, done alike: a line without its newline is not run, a command
    /// list the input ends inside is not run, `close` and `idle` end the connection with nothing more.
    func testTheEndOfInputIsReadAsRealMPDReadsIt() throws {
        let real = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"))
        mpd = real
        func mpdHalfClosed(_ input: String) throws -> String? {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(real.port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            XCTAssertEqual(connected, 0)
            XCTAssertTrue(write(input, to: fd))
            shutdown(fd, Int32(SHUT_WR))
            guard let text = readUntilClosed(fd), let greeting = text.firstIndex(of: "\n") else { return nil }
            return String(text[text.index(after: greeting)...])
        }
        let inputs = [
            "ping", "ping\nping", "ping\r\n", "command_list_begin\nping\nping\n",
            "command_list_ok_begin\nping\nping\ncommand_list_end", "command_list_ok_begin\nping\nping\ncommand_list_end\n",
            "command_list_begin\nping\ncommand_list_end\nping", "close\nping\n", "ping\nidle\n", "idle\nping\n",
            "noidle\n", "frobnicate\nping\n", "list album\n", "list album\nping",
        ]
        for input in inputs {
            XCTAssertEqual(steady(try halfClosed(input)), steady(try mpdHalfClosed(input)), input.debugDescription)
        }
    }
}
