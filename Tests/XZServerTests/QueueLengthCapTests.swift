import XCTest
import XZHostCore
import XZPlaybackValues
import XZProtocol
@testable import XZServer
import XZHostAssembly
import XZSystem
import XZTestSupport

/// The queue holds at most `max_playlist_length` entries, as MPD's: every way in adds what fits and then
/// answers MPD's ACK, and the host goes on serving.
final class QueueLengthCapTests: MusicFolderHostTestCase {
    func testAddsPastTheCapAnswerAsRealMPD() throws {
        host.maxQueueLength = 4
        XCTAssertEqual(try client().run("update").first?.key, "updating_db")
        host.updates.wait()
        try compareWithRealMPD([
            "add album", "add album", "playlist", "addid album/1.mp3", "add album/1.mp3", "status",
            "delete 0", "findadd \"(file != 'x')\"", "playlist", "searchadd \"(file != 'x')\"",
            "clear", "add album", "save p", "load p", "playlist", "clear", "load p", "load p", "playlist",
            "clear", "findadd \"(file != 'x')\"", "playlist", "ping",
        ], mpdConfig: "max_playlist_length \"4\"")
    }

    /// A command list's plain adds are queued together; the add that passes the cap is the one refused.
    func testCommandListAddsStopAtTheCap() throws {
        host.maxQueueLength = 4
        let client = try client()
        try client.sendLine("command_list_ok_begin")
        for _ in 0..<6 { try client.sendLine("add album/1.mp3") }
        try client.sendLine("command_list_end")
        for _ in 0..<4 { XCTAssertEqual(try client.readLine(), "list_OK") }
        XCTAssertEqual(try client.readLine(), "ACK [51@4] {add} Playlist is too large")
        XCTAssertEqual(try client.run("status").first { $0.key == "playlistlength" }?.value, "4")
        // A list whose adds go past the cap within one add: what fits, then the ACK.
        _ = try client.run("delete", "0:2")
        try client.sendLine("command_list_begin")
        try client.sendLine("add album")
        try client.sendLine("command_list_end")
        XCTAssertEqual(try client.readLine(), "ACK [51@0] {add} Playlist is too large")
        XCTAssertEqual(try client.run("playlist").count, 4)
        _ = try client.run("ping")
    }

    /// The player itself holds the cap: replacing the queue (the command line's `play`) and a state file
    /// restore keep what fits.
    func testPlayAndRestoreKeepWhatFits() throws {
        host.maxQueueLength = 2
        let items = (1...3).map { QueueItem(.file(music.appendingPathComponent("album/\($0).mp3").path), database: host.database) }
        host.play(items)
        host.stop()
        XCTAssertEqual(host.snapshot().entries.count, 2)
        XCTAssertEqual(host.queueRoom, 0)
        XCTAssertEqual(host.insert(items, at: nil), [])
        host.clearQueue()
        let state = folder.path("cap.state")
        try """
            sw_volume: 100
            state: stop
            playlist_begin
            0:album/1.mp3
            1:album/2.mp3
            2:album/3.mp3
            playlist_end

            """.write(toFile: state, atomically: true, encoding: .utf8)
        host.restoreState(from: state, paused: true)
        XCTAssertEqual(host.snapshot().entries.map(\.item.path),
                       ["album/1.mp3", "album/2.mp3"].map { music.appendingPathComponent($0).path })
    }

    func testConfigKeyHasMPDsNameAndDefault() throws {
        XCTAssertEqual(try HostSettings(config: ConfigFile(parsing: "")).maxPlaylistLength, 16_384)
        XCTAssertEqual(try HostSettings(config: ConfigFile(parsing: "max_playlist_length = 20\n")).maxPlaylistLength, 20)
        for bad in ["0", "-1", "many", "99999999999999999999"] {
            XCTAssertThrowsError(try HostSettings(config: ConfigFile(parsing: "max_playlist_length = \(bad)\n")), bad)
        }
    }
}
