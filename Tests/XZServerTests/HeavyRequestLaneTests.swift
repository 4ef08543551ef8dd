import Foundation
import XCTest
import XZMPDCommands
import XZProtocol
@testable import XZServer
import XZTestSupport

/// Searches, listings and updates run on threads of their own: when every one of them is stuck (each
/// holding a library reader, as a runaway regular expression does), quick lookups of every client —
/// the queue, adding a file, status, stickers — are still answered, and new clients still greeted.
final class HeavyRequestLaneTests: MusicFolderHostTestCase {
    func testStuckHeavyRequestsDoNotHoldUpLookupsOfOtherClients() throws {
        try host.database.importFolder(at: music)
        let gate = occupyHeavyLane()
        var released = false
        defer { if !released { release(gate) } }
        // A search of its own waits behind the stuck ones.
        let searcher = try client()
        try searcher.sendLine("find artist Artist")

        let other = try client()
        XCTAssertTrue(other.greeting.hasPrefix("OK MPD "), "a new client is greeted")
        try other.run("add", "album/1.mp3")
        try other.run("addid", "album/2.mp3")
        XCTAssertEqual(try other.run("playlistinfo").filter { $0.key == "file" }.map(\.value), ["album/1.mp3", "album/2.mp3"])
        XCTAssertEqual(value(try other.run("status"), "playlistlength"), "2")
        XCTAssertEqual(try other.run("playlistid").filter { $0.key == "Title" }.map(\.value), ["Song 1", "Song 2"])
        try other.run("sticker", "set", "song", "album/1.mp3", "rating", "7")
        XCTAssertEqual(value(try other.run("sticker", "get", "song", "album/1.mp3", "rating"), "sticker"), "rating=7")
        XCTAssertNotNil(value(try other.run("stats"), "songs"))
        // A command list of lookups is a lookup too.
        try other.sendLine("command_list_begin\nstatus\ncurrentsong\nplaylistinfo\ncommand_list_end")
        XCTAssertEqual(value(try other.readResponse(), "playlistlength"), "2")

        release(gate)
        released = true
        XCTAssertEqual(try searcher.readResponse().filter { $0.key == "file" }.count, 3, "the search is answered once a thread is free")
    }
}
