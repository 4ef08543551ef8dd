import Foundation
import XCTest
import XZCatalogue
import XZMPDCommands
import XZProtocol
@testable import XZServer
import XZTestSupport

/// Command lists of any length up to MPD's 2 MiB, answered in full while other connections go on.
final class CommandListTests: MusicFolderHostTestCase {
    private func list(_ line: String, _ count: Int, ok: Bool = false) -> String {
        (ok ? "command_list_ok_begin\n" : "command_list_begin\n") + String(repeating: line + "\n", count: count) + "command_list_end"
    }

    /// The lines of one answer up to its `OK` or `ACK` (nil: the host hung up first).
    private func answerLines(_ client: MPDClient) -> [String]? {
        var lines: [String] = []
        while true {
            guard let line = try? client.readLine() else { return nil }
            lines.append(line)
            if line == "OK" || line.hasPrefix("ACK ") { return lines }
        }
    }

    func testAHundredThousandPingsInOneList() throws {
        let client = try client()
        try client.sendLine(list("ping", 100_000))
        XCTAssertEqual(answerLines(client), ["OK"])
        XCTAssertEqual(value(try client.run("status"), "playlistlength"), "0", "the connection goes on")
    }

    func testListOKAfterEachCommandUpToTheFirstError() throws {
        let client = try client()
        try client.sendLine(list("ping", 100_000, ok: true))
        let lines = try XCTUnwrap(answerLines(client))
        XCTAssertEqual(lines.count, 100_001)
        XCTAssertEqual(lines.filter { $0 == "list_OK" }.count, 100_000)
        XCTAssertEqual(lines.last, "OK")

        try client.sendLine("command_list_ok_begin\nping\nsetvol 20\nsetvol 300\nping\ncommand_list_end")
        XCTAssertEqual(answerLines(client), ["list_OK", "list_OK", "ACK [2@2] {setvol} Number too large: 300"])
        XCTAssertEqual(value(try client.run("getvol"), "volume"), "20", "what ran before the error stays")
    }

    /// `mpc add` of 10,001 songs from a pipe sends one command list of adds: every song is queued.
    func testTenThousandAndOneAddsFromMpc() throws {
        try host.database.importFolder(at: music)
        let names = (0..<10_001).map { "album/\($0 % 3 + 1).mp3" }.joined(separator: "\n") + "\n"
        let result = try TestProcess.run(try TestProcess.which("mpc"), ["-p", "\(port)", "add"], input: Data(names.utf8))
        XCTAssertEqual(result.status, 0, result.stderr)
        let client = try client()
        XCTAssertEqual(value(try client.run("status"), "playlistlength"), "10001")
        let files = try client.run("playlist").map(\.value)
        XCTAssertEqual(files.prefix(4), ["album/1.mp3", "album/2.mp3", "album/3.mp3", "album/1.mp3"])
        XCTAssertEqual(files.last, "album/2.mp3")
    }

    /// A list of exactly 2 MiB (each line and its newline counted) runs; one byte more and the host
    /// hangs up without an answer, as real MPD does.
    func testListsAreCappedAtTwoMebibytesAsRealMPDCapsThem() throws {
        let real = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"))
        mpd = real
        let fitting = SessionLimits().maxCommandListBytes / "ping\n".utf8.count
        // Padded with a longer first line to exactly the cap.
        let padding = SessionLimits().maxCommandListBytes - fitting * 5
        let exact = "command_list_begin\n" + "ping" + String(repeating: " ", count: padding) + "\n"
            + String(repeating: "ping\n", count: fitting - 1) + "command_list_end"
        for (server, connect) in [("ours", { try self.client() }), ("mpd", { try real.connect() })] {
            let atCap = try connect()
            try atCap.sendLine(exact)
            XCTAssertEqual(answerLines(atCap), ["OK"], server)
            let over = try connect()
            try? over.sendLine(list("ping", fitting + 1))
            XCTAssertNil(answerLines(over), "\(server) hangs up on a list past the cap")
        }
    }

    /// Another connection is answered while a long list runs.
    func testOtherConnectionsAreAnsweredWhileALongListRuns() throws {
        let long = try client()
        try long.sendLine(list("ping", 100_000, ok: true))
        let other = try client()
        for volume in [10, 20, 30] {
            try other.run("setvol", "\(volume)")
            XCTAssertEqual(value(try other.run("status"), "volume"), "\(volume)")
        }
        XCTAssertEqual(answerLines(long)?.count, 100_001, "the list ran to its end")
    }
}
