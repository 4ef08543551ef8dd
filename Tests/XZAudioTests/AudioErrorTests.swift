import Foundation
import XCTest
import XZAudio
import XZTestSupport

/// Errors are matched by kind; the file and the message users see ride along.
final class AudioErrorTests: XCTestCase {
    func testKindsCompareWithoutTheirDetails() {
        let error = AudioError.damaged("broken FLAC header", file: "/music/a.flac")
        XCTAssertEqual(error, .damaged)
        XCTAssertNotEqual(error, .unreadable)
        XCTAssertEqual(error.kind, .damaged)
        XCTAssertEqual(error.description, "/music/a.flac: broken FLAC header")
        XCTAssertEqual(Set([error, .damaged, .unreadable]).count, 2)
        switch error as Error {
        case AudioError.unreadable: XCTFail("matched another kind")
        case AudioError.damaged: break
        default: XCTFail("no kind matched")
        }
    }

    func testOpeningNamesTheKind() throws {
        let folder = try TemporaryFolder("audio-errors")
        XCTAssertThrowsError(try AudioDecoders.open(path: folder.path("missing.mp3"))) { error in
            XCTAssertEqual(error as? AudioError, .unreadable)
        }
        XCTAssertThrowsError(try AudioDecoders.open(path: folder.path(""))) { error in
            XCTAssertEqual(error as? AudioError, .unreadable, "a folder")
        }
        let empty = folder.path("empty.ogg")
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        do {
            _ = try AudioDecoders.open(path: empty)
            XCTFail("an empty file opened")
        } catch AudioError.unsupportedFormat {
            // The kind matched, whatever the message.
        } catch {
            XCTFail("\(error)")
        }
        XCTAssertThrowsError(try AudioDecoders.open(path: empty)) { error in
            XCTAssertEqual((error as? AudioError)?.message, "is empty, not an audio file")
        }
    }

    func testAStreamThatFailedIsUnreadable() {
        let file = GrowingFile(path: "/nonexistent/stream.mp3")
        file.fail("HTTP 404 Not Found")
        XCTAssertThrowsError(try AudioDecoders.open(.growing(file, name: "http://x/a.mp3", giveUp: { false }))) { error in
            XCTAssertEqual(error as? AudioError, .unreadable)
            XCTAssertEqual((error as? AudioError)?.message, "HTTP 404 Not Found")
        }
    }
}
