import Foundation
import XCTest
import XZProtocol
import XZServer
import XZTestSupport

/// A FIFO named like a song or a cover in the music folder: every command that would open it answers at
/// once (MPD opens regular files only), and an update walks past it.
final class RegularFilesOnlyTests: MusicFolderHostTestCase {
    func testFIFOsNamedLikeSongsAndCoversBlockNothing() throws {
        let fifos = music.appendingPathComponent("fifo")
        try FileManager.default.createDirectory(at: fifos, withIntermediateDirectories: true)
        let song = fifos.appendingPathComponent("x.mp3").path
        let cover = music.appendingPathComponent("album/cover.jpg").path
        let lyrics = music.appendingPathComponent("album/1.lrc").path
        for fifo in [song, cover, lyrics] { XCTAssertEqual(mkfifo(fifo, 0o644), 0) }
        // A request that blocks on a FIFO is freed (and fails the test) rather than hanging it.
        let done = DispatchSemaphore(value: 0)
        let freed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            if done.wait(timeout: .now() + 60) == .timedOut {
                XCTFail("a request blocked on a FIFO")
                // Each blocked reader is let go, until the test ends.
                repeat {
                    for path in [song, cover, lyrics] {
                        let fd = open(path, O_RDWR | O_NONBLOCK)
                        if fd >= 0 { close(fd) }
                    }
                } while done.wait(timeout: .now() + 1) == .timedOut
            }
            freed.signal()
        }
        defer {
            done.signal()
            freed.wait()
        }

        let client = try client()
        func ack(_ line: String) -> String? {
            do {
                try client.sendLine(line)
                _ = try client.readBinaryResponse()
                return nil
            } catch let error as MPDError {
                return error.message
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(ack("readcomments fifo/x.mp3"), "No such song")
        XCTAssertEqual(ack("addid fifo/x.mp3"), "No such song")
        // Not a song of the library: refused as a name that is not there, so the answer tells nothing of the file.
        XCTAssertEqual(ack("add fifo/x.mp3"), "No such directory")
        XCTAssertEqual(ack("albumart fifo/x.mp3 0"), "No file exists")
        XCTAssertEqual(ack("readpicture fifo/x.mp3 0"), "No file exists")
        XCTAssertEqual(ack("sticker set song fifo/x.mp3 rating 5"), "No such song")
        XCTAssertEqual(ack("playlistadd p fifo/x.mp3"), "No such directory")
        // A folder holding one adds nothing of it.
        XCTAssertNil(ack("add fifo"))
        XCTAssertEqual(try client.run("playlistinfo").filter { $0.key == "file" }.count, 0)
        // A cover that is a FIFO is no cover: the song's own answer comes at once.
        XCTAssertEqual(ack("albumart album/1.mp3 0"), "No file exists")
        XCTAssertNil(ack("readpicture album/1.mp3 0"))
        // The update walks past it.
        XCTAssertEqual(try client.run("update").first?.key, "updating_db")
        host.updates.wait()
        XCTAssertEqual(try client.run("stats").first { $0.key == "songs" }?.value, "3")
        XCTAssertEqual(try client.run("listfiles", "fifo").count, 0, "listfiles lists files and folders only")
        // A lyrics FIFO beside a song is no lyrics file: the song plays and stops.
        XCTAssertEqual(try client.run("addid", "album/1.mp3").first?.key, "Id")
        try client.run("play")
        try client.run("stop")
        XCTAssertEqual(try client.run("status").first { $0.key == "state" }?.value, "stop")
    }
}
