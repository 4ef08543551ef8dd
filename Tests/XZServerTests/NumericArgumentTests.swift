import XCTest
import XZProtocol
@testable import XZServer
import XZTestSupport

/// Every numeric argument of the command table read as MPD reads it: huge, negative, junk and edge values
/// get MPD's ACK over real TCP, nothing changes, and the host goes on serving.
final class NumericArgumentTests: MusicFolderHostTestCase {
    static let huge = "9223372036854775807"
    static let queue = ["add album/1.mp3", "add album/2.mp3", "add album/3.mp3"]

    /// Lines whose answers real MPD gives too (a queue of 3, nothing playing).
    static let comparedLines: [String] = {
        var lines: [String] = []
        for value in [huge, "4294967295", "2147483648", "2147483647", "-2", "x", "1x", "5:2", "1:-1", "1:x",
                      "1:99999999999", "99999999999:", ":2", "5:6", "3", "3:", "0:\(huge)", "0:2147483647", "-\(huge)"] {
            lines += ["delete \(value)", "playlistinfo \(value)", "shuffle \(value)", "plchangesposid 0 \(value)",
                      "plchanges 0 \(value)", "prio 1 \(value)", "load p \(value)", "playlistdelete p \(value)",
                      "find \"(file != 'x')\" window \(value)"]
        }
        for value in [huge, "4294967296", "4294967295", "-1", "x", "256"] {
            lines += ["prio \(value) 0", "moveid \(value) 0", "deleteid \(value)", "swapid \(value) 1", "prioid 1 \(value)",
                      "playlistid \(value)", "seekid \(value) 1", "rangeid \(value) 1:2", "swap 0 \(value)", "seek \(value) 1",
                      "setvol \(value)", "volume \(value)", "crossfade \(value)", "binarylimit \(value)",
                      "enableoutput \(value)", "disableoutput \(value)", "toggleoutput \(value)",
                      "albumart album/1.mp3 \(value)", "readpicture album/1.mp3 \(value)", "play \(value)", "playid \(value)",
                      "move 0 \(value)", "move \(value) 0", "add album/1.mp3 \(value)", "addid album/1.mp3 \(value)",
                      "playlistadd p album/1.mp3 \(value)", "playlistmove p \(value) 0", "playlistmove p 0 \(value)",
                      "findadd \"(file != 'x')\" position \(value)", "searchaddpl q \"(file != 'x')\" position \(value)",
                      "load p 0:1 \(value)", "random \(value)", "consume \(value)", "single \(value)", "repeat \(value)",
                      "plchanges \(value)", "volume -\(value)"]
        }
        lines += ["delete -1", "playlistinfo -1", "move -1 0", "move 0:2 2", "move 0 3", "move 3 3", "move 0:9 0", "move 2:2 0",
                  "swap 0 3", "play 3", "play -2", "playid -2", "seek 3 1", "seek 0 -1", "seek 0 x", "binarylimit 63",
                  "binarylimit 64", "binarylimit 16777216", "volume -101", "volume 101",
                  "setvol 101", "consume 01", "consume -0", "consume 2", "add album/1.mp3 +1", "add album/1.mp3 -1",
                  "crossfade 1e3", "mixrampdb x", "playlistmove p 0 5", "playlistmove p 5 0", "playlistmove p 0:1 2",
                  "playlistadd p album/1.mp3 4", "searchaddpl q \"(file != 'x')\" position 99", "prio 1 0:300000000"]
        return lines
    }()

    func testNumbersAnswerAsRealMPD() throws {
        XCTAssertEqual(try client().run("update").first?.key, "updating_db")
        host.updates.wait()
        try compareWithRealMPD(Self.queue + ["save p"] + Self.comparedLines + ["playlist", "listplaylist p", "status"])
    }

    /// Each line once killed or stalled the host; now each is answered and the host keeps serving.
    func testHostileNumbersLeaveTheHostServing() throws {
        let client = try client()
        for line in Self.queue + ["play 0"] { XCTAssertEqual(answer(client, line), "OK", line) }
        let expected: [(String, String)] = [
            ("delete \(Self.huge)", "ACK [2@0] {delete} Number too large: \(Self.huge)"),
            ("add album/1.mp3 +\(Self.huge)", "ACK [2@0] {add} Number too large: \(Self.huge)"),
            ("add album/1.mp3 -\(Self.huge)", "ACK [2@0] {add} Number too large: \(Self.huge)"),
            ("add album/1.mp3 +2147483647", "ACK [2@0] {add} Number too large: 2147483647"),
            ("binarylimit \(Self.huge)", "ACK [2@0] {binarylimit} Number too large: \(Self.huge)"),
            ("prio 1 0:\(Self.huge)", "ACK [2@0] {prio} Number too large: 0:\(Self.huge)"),
            ("plchangesposid 0 0:\(Self.huge)", "ACK [2@0] {plchangesposid} Number too large: 0:\(Self.huge)"),
            ("move 1:2 +\(Self.huge)", "ACK [2@0] {move} Number too large: \(Self.huge)"),
            ("move 1 -\(Self.huge)", "ACK [2@0] {move} Number too large: \(Self.huge)"),
            ("move 1 -2", "ACK [2@0] {move} Bad song index"),
            ("move 0 +0", "ACK [2@0] {move} Cannot move current song relative to itself"),
            ("seek 0 -1e300", "ACK [2@0] {seek} Negative value not allowed: -1e300"),
            ("seek 0 nan", "ACK [2@0] {seek} Float expected: nan"),
            ("seekcur +nan", "ACK [2@0] {seekcur} Float expected: +nan"),
            ("lyricsoffset \(Self.huge)", "ACK [2@0] {lyricsoffset} Number too large: \(Self.huge)"),
            ("lyricsoffset 1.5", "ACK [2@0] {lyricsoffset} Integer expected: 1.5"),
        ]
        for (line, ack) in expected {
            XCTAssertEqual(answer(client, line), ack, line)
            XCTAssertEqual(answer(client, "ping"), "OK", "after \(line)")
        }
        // Accepted as MPD accepts them, held to what the host can do.
        for line in ["binarylimit 64", "readpicture album/1.mp3 0", "prio 1 0:2147483647", "prio 1 0:300000000 -1 0: 1:2",
                     "plchangesposid 0 0:2147483647", "playlistinfo 0:2147483647", "crossfade 4294967295",
                     "mixrampdb 1e300", "mixrampdb nan", "mixrampdelay inf", "mixrampdelay 1e300", "mixrampdelay -inf",
                     "seekcur -1e300", "seekcur +1e300", "seekcur inf", "seek 0 1e300", "seek 0 inf", "crossfade 0",
                     "mixrampdelay -1", "lyricsoffset 2147483647", "lyricsoffset -2147483648", "lyricsoffset 0"] {
            XCTAssertFalse(answer(client, line).hasPrefix("ACK"), line)
            XCTAssertEqual(answer(client, "ping"), "OK", "after \(line)")
        }
        let status = try client.run("status")
        XCTAssertEqual(status.first { $0.key == "playlistlength" }?.value, "3")
        XCTAssertEqual(try client.run("playlistinfo").filter { $0.key == "Prio" }.map(\.value), ["1", "1", "1"])
        XCTAssertEqual(try client.run("plchangesposid", "0", "0:2147483647").filter { $0.key == "cpos" }.map(\.value),
                       ["0", "1", "2"])
    }

    /// `binarylimit` is held below the server's output limit, so a picture chunk always fits an answer.
    func testBinaryLimitStaysBelowTheOutputLimit() throws {
        let client = try client()
        let limit = server.limits.maxOutputBytes
        XCTAssertEqual(answer(client, "binarylimit \(limit - 4096)"), "OK")
        XCTAssertEqual(answer(client, "binarylimit \(limit - 4095)"), "ACK [2@0] {binarylimit} Number too large: \(limit - 4095)")
        XCTAssertEqual(answer(client, "ping"), "OK")
    }

    /// One line: "OK", or the ACK line.
    func answer(_ client: MPDClient, _ line: String) -> String {
        do {
            try client.sendLine(line)
            _ = try client.readResponse()
            return "OK"
        } catch let error as MPDError {
            return error.ackLine(index: 0)
        } catch {
            return "\(error)"
        }
    }
}
