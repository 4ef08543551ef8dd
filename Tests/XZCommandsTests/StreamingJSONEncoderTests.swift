import Foundation
import XCTest
@testable import XZCommands
import XZDownloader
import XZStats

final class StreamingJSONEncoderTests: XCTestCase {
    private struct Record: Encodable {
        var id: Int64
        var title: String
        var album: String?
        var seconds: Double?
        var liked: Bool
        var tags: [String: String]
        var plays: [Int]
    }

    private let awkward = "quote \" back\\slash /slash \n\r\t\u{08}\u{0C}\u{01}\u{1F} 周杰伦 ロビンソン 😀 e\u{301}"

    func testTextReadsBackToTheSameValues() throws {
        let record = Record(id: 7, title: awkward, album: nil, seconds: 1.5, liked: true,
                            tags: ["b": "2", "a": "1", "c": awkward], plays: [1, -2, 3])
        let text = try StreamingJSONEncoder.text(record)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(object["id"] as? Int, 7)
        XCTAssertEqual(object["title"] as? String, awkward)
        XCTAssertTrue(object["album"] is NSNull, "an unknown value is null, not left out")
        XCTAssertEqual(object["seconds"] as? Double, 1.5)
        XCTAssertEqual(object["liked"] as? Bool, true)
        XCTAssertEqual(object["tags"] as? [String: String], ["a": "1", "b": "2", "c": awkward])
        XCTAssertEqual(object["plays"] as? [Int], [1, -2, 3])
        XCTAssertTrue(text.contains(#""tags":{"a":"1","b":"2","c":"#), "dictionary keys in order: \(text)")
        XCTAssertTrue(text.contains("/slash"), "slashes are not escaped")
        XCTAssertTrue(text.contains(#"\u0001\u001f"#), text)
    }

    func testKeysFollowTheRecordAndEveryOneIsPresent() throws {
        let record = Record(id: 1, title: "t", album: nil, seconds: nil, liked: false, tags: [:], plays: [])
        XCTAssertEqual(try StreamingJSONEncoder.text(record),
                       #"{"id":1,"title":"t","album":null,"seconds":null,"liked":false,"tags":{},"plays":[]}"#)
    }

    func testSmallChunksJoinToTheWholeAndNeverSplitACharacter() throws {
        let records = (0..<500).map { Record(id: Int64($0), title: "\(awkward) \($0)", album: $0 % 2 == 0 ? "专辑" : nil,
                                               seconds: Double($0) / 4, liked: $0 % 3 == 0, tags: ["k": "\($0)"], plays: [$0]) }
        var chunks: [String] = []
        let encoder = StreamingJSONEncoder(chunkSize: 100) { chunks.append($0) }
        try encoder.encode(records)
        encoder.finish()
        XCTAssertGreaterThan(chunks.count, 100)
        XCTAssertFalse(chunks.contains { $0.contains("\u{FFFD}") })
        XCTAssertEqual(chunks.joined(), try StreamingJSONEncoder.text(records))
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(chunks.joined().utf8)) as? [[String: Any]])
        XCTAssertEqual(parsed.count, 500)
        XCTAssertEqual(parsed[499]["title"] as? String, "\(awkward) 499")
    }

    func testNumbersJSONCanHold() throws {
        XCTAssertEqual(try StreamingJSONEncoder.text([0.25, 100, -3e300, .infinity, .nan]), "[0.25,100,-3e+300,null,null]")
        XCTAssertEqual(try StreamingJSONEncoder.text([Int64.min, Int64.max]), "[-9223372036854775808,9223372036854775807]")
    }

    /// Records of the layers below print every key, an unknown value as null.
    func testLowerLayersRecordsPrintEveryKey() throws {
        let removed = TopSong(id: nil, songKey: "file:/x.mp3", title: "X", singer: "Y", plays: 3)
        XCTAssertEqual(try StreamingJSONEncoder.text(removed), #"{"id":null,"title":"X","singer":"Y","plays":3}"#)
        let task = DownloadTaskInfo(id: 1, songKey: "src:1", title: "T", singer: "S", kind: .audio, state: .queued)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try StreamingJSONEncoder.text(task).utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["id", "song_key", "title", "singer", "kind", "state", "bytes_done", "bytes_total",
                                          "bytes_per_second", "eta_seconds", "last_error", "note", "path"])
        XCTAssertTrue(object["path"] is NSNull)
    }
}
