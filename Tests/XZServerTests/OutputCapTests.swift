import Foundation
import XCTest
import XZMPDCommands
import XZProtocol
@testable import XZServer
import XZHostAssembly
import XZTestSupport
import XZSystem
#if canImport(Glibc)
import Glibc
#endif

/// An answer stops growing at `max_output_buffer_size` while it is made: a command list of listings
/// stops at the limit (what follows in the list never runs), nothing of it is sent, and the client is
/// dropped, as MPD drops a client whose output buffer is full. Others are served all along.
final class OutputCapTests: MusicFolderHostTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try host.database.importFolder(at: music)
    }

    private func volume() throws -> String? { value(try client().run("getvol"), "volume") }

    func testAListOfListingsPastTheLimitStopsThereAndDropsTheClient() throws {
        var limits = ServerLimits()
        limits.maxOutputBytes = 64 * 1024
        try restartServer(limits: limits)
        try client().run("setvol", "20")
        let steady = try client()
        let fd = try rawConnection()
        defer { close(fd) }
        // About 1 KB per listing: the limit is passed a sixth of the way in.
        write("command_list_begin\n" + String(repeating: "listallinfo\n", count: 400) + "setvol 77\ncommand_list_end\n", to: fd)
        XCTAssertEqual(readUntilClosed(fd), ClientSession.greeting, "dropped without any of the answer")
        XCTAssertEqual(try volume(), "20", "the list stopped at the limit: its last command never ran")
        XCTAssertEqual(value(try steady.run("status"), "volume"), "20", "another client is served")
    }

    func testAnAnswerWithinTheLimitIsWhole() throws {
        var limits = ServerLimits()
        limits.maxOutputBytes = 64 * 1024
        try restartServer(limits: limits)
        let client = try client()
        try client.sendLine("command_list_begin\n" + String(repeating: "listallinfo\n", count: 20) + "command_list_end")
        XCTAssertEqual(try client.readResponse().filter { $0.key == "file" }.count, 60)
        XCTAssertNoThrow(try client.run("ping"))
    }

    func testConfigKeysHaveMPDsNamesInKibibytes() throws {
        let defaults = try HostSettings(config: ConfigFile(parsing: ""))
        XCTAssertEqual(defaults.limits.maxOutputBytes, 8192 * 1024)
        XCTAssertEqual(defaults.limits.maxCommandListBytes, 2048 * 1024)
        let set = try HostSettings(config: ConfigFile(parsing: "max_output_buffer_size = 64\nmax_command_list_size = 16\n"))
        XCTAssertEqual(set.limits.maxOutputBytes, 64 * 1024)
        XCTAssertEqual(set.limits.maxCommandListBytes, 16 * 1024)
        for bad in ["max_output_buffer_size = 0", "max_command_list_size = -1", "max_output_buffer_size = 99999999999999999999",
                    "max_command_list_size = 2M"] {
            XCTAssertThrowsError(try HostSettings(config: ConfigFile(parsing: bad)), bad)
        }
    }

    func testTheResponseRefusesBytesPastItsLimit() {
        var response = MPDResponse(limit: 10)
        response.add("file", "0123456789")
        XCTAssertTrue(response.isFull)
        let size = response.bytes.count
        response.add("file", "more")
        response.appendLine("OK")
        response.append(rendered: [1, 2, 3])
        XCTAssertEqual(response.bytes.count, size, "nothing more is written once full")
    }
}
