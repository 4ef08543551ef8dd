import Foundation
import XCTest
import XZCatalogue
@testable import XZStats

/// Every session and like exported as CSV or JSON reads back to the same values.
final class ExportTests: XCTestCase {
    private func populatedFixture() throws -> StatsFixture {
        let fixture = try StatsFixture()
        try fixture.importFeed([("1", "Hello, \"World\"", "Sing\ner", 200_000), ("2", "晴天", "周杰伦", 269_000),
                                ("3", "=SUM(A1)", "Plain", 31_000)])
        try fixture.play(try fixture.song("src:1"), playedMs: 150_000)
        try fixture.play(try fixture.song("src:2"), playedMs: 8_000, reason: .skipped)
        try fixture.play(try fixture.song("src:3"), playedMs: 4_000, reason: .error)
        try fixture.recorder.begin(song: try fixture.song("src:2")) // left open, as after a crash
        try fixture.store.like(songKey: "src:2", at: utc("2026-11-21T08:00:00Z"))
        try fixture.store.like(songKey: "src:1", at: utc("2026-11-21T09:00:00Z"))
        return fixture
    }

    func testRoundTripBothFormats() throws {
        let fixture = try populatedFixture()
        let archive = try fixture.store.archive()
        XCTAssertEqual(archive.sessions.count, 4)
        XCTAssertEqual(archive.likes.map(\.songKey), ["src:2", "src:1"], "oldest first")
        XCTAssertEqual(archive.sessions.map(\.endReason), [.completed, .skipped, .error, nil])
        for format in StatsArchive.Format.allCases {
            let url = fixture.folder.url.appendingPathComponent("export.\(format.rawValue)")
            try fixture.store.export(format: format, to: url)
            let data = try Data(contentsOf: url)
            let back = try StatsArchive.decode(data, as: format)
            XCTAssertEqual(back, archive, format.rawValue)
            XCTAssertEqual(try back.encoded(as: format), data, "\(format.rawValue) re-encodes byte for byte")
        }
    }

    func testExportErrorsNameTheReasonAndLeaveNothingBehind() throws {
        let fixture = try populatedFixture()
        let folder = fixture.folder.url
        func message(_ url: URL) -> String {
            do {
                try fixture.store.export(format: .csv, to: url)
                return "written"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(message(folder), "cannot write \(folder.path): it is a folder")
        XCTAssertEqual(message(folder.appendingPathComponent("missing/x.csv")),
                       "cannot write \(folder.path)/missing/x.csv: cannot create a file in \(folder.path)/missing: No such file or directory")
        // Overwriting keeps the old file whole until the new one is complete.
        let target = folder.appendingPathComponent("stats.csv")
        try Data("old".utf8).write(to: target)
        XCTAssertEqual(message(target), "written")
        XCTAssertEqual(try Data(contentsOf: target), try fixture.store.exportData(format: .csv))
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains { $0.hasSuffix(".tmp") })
    }

    func testCSVLayout() throws {
        let fixture = try populatedFixture()
        let csv = String(decoding: try fixture.store.archive().encoded(as: .csv), as: UTF8.self)
        let lines = csv.components(separatedBy: "\r\n")
        XCTAssertEqual(lines.first, "record,id,song_key,song_id,title,singer,time,played_ms,position_ms,duration_ms,"
                       + "end_reason,counted,counted_at,skip")
        XCTAssertTrue(lines[1].hasPrefix("session,1,src:1,1,\"Hello, \"\"World\"\"\",\"Sing\ner\",2026-11-18T11:06:40Z,150000,150000,200000,completed,1,2026-11-18T11:08:20Z,0"), lines[1])
        XCTAssertTrue(lines.contains("like,,src:2,2,晴天,周杰伦,2026-11-21T08:00:00Z,,,,,,,"), csv)
        XCTAssertEqual(lines.last, "", "ends with a line break")
    }

    func testJSONLayout() throws {
        let fixture = try populatedFixture()
        let object = try JSONSerialization.jsonObject(with: try fixture.store.archive().encoded(as: .json)) as? [String: Any]
        let sessions = try XCTUnwrap(object?["sessions"] as? [[String: Any]])
        XCTAssertEqual(Set(sessions[0].keys), ["id", "song_key", "song_id", "title", "singer", "started_at", "played_ms",
                                               "position_ms", "duration_ms", "end_reason", "counted", "counted_at", "skip"])
        XCTAssertEqual(sessions[0]["started_at"] as? String, "2026-11-18T11:06:40Z")
        XCTAssertTrue(sessions[3]["end_reason"] is NSNull, "an unfinished session has a null end")
        let likes = try XCTUnwrap(object?["likes"] as? [[String: Any]])
        XCTAssertEqual(likes.first?["liked_at"] as? String, "2026-11-21T08:00:00Z")
    }

    func testHistoryJSONIsAListOfSessions() throws {
        let fixture = try populatedFixture()
        let data = try JSONEncoder().encode(try fixture.store.history(limit: 2))
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        XCTAssertEqual(list.count, 2)
        XCTAssertEqual(list.map { $0["title"] as? String }, ["晴天", "=SUM(A1)"], "newest first")
    }

    func testBrokenInputIsReportedNotTrusted() {
        let header = StatsArchive.columns.joined(separator: ",")
        let cases: [(String, String)] = [
            ("title,singer\r\n", "not a stats export"),
            (header + "\r\nsession,1,k\r\n", "line 2: 3 fields"),
            (header + "\r\nsession,x,k,,t,s,2026-11-21T08:00:00Z,1,1,,completed,1,,0\r\n", "line 2: id is not a number"),
            (header + "\r\nsession,1,k,,t,s,2026-11-21T08:00:00Z,1,1,,paused,1,,0\r\n", "line 2: unknown end_reason paused"),
            (header + "\r\nlike,,k,,t,s,yesterday,,,,,,,\r\n", "line 2: not a UTC time: yesterday"),
            (header + "\r\nplay,,k,,t,s,2026-11-21T08:00:00Z,,,,,,,\r\n", "line 2: record must be session or like"),
            (header + "\r\nlike,,k,,\"open,s,2026-11-21T08:00:00Z,,,,,,,\r\n", "a quoted field is not closed"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try StatsArchive.decode(Data(text.utf8), as: .csv), message) { error in
                XCTAssertTrue("\(error)".contains(message), "\(error) should mention \(message)")
            }
        }
        XCTAssertThrowsError(try StatsArchive.decode(Data("[1]".utf8), as: .json))
    }
}
