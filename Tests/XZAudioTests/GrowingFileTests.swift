import Foundation
import XCTest
@testable import XZAudio
import XZTestSupport

/// Decoding a file while it is still being written, as a download feeds it.
final class GrowingFileTests: XCTestCase {
    func testByteRangesMergeTruncateAndGaps() {
        var ranges = ByteRanges([0 ..< 10, 20 ..< 30])
        XCTAssertEqual(ranges.ranges, [0 ..< 10, 20 ..< 30])
        ranges.insert(10 ..< 20)
        XCTAssertEqual(ranges.ranges, [0 ..< 30], "adjacent ranges merge")
        ranges.insert(50 ..< 60)
        XCTAssertEqual(ranges.contiguous(from: 5), 25)
        XCTAssertEqual(ranges.contiguous(from: 40), 0)
        XCTAssertEqual(ranges.firstGap(from: 0, before: 60), 30)
        XCTAssertNil(ranges.firstGap(from: 50, before: 60))
        ranges.truncate(at: 25)
        XCTAssertEqual(ranges.ranges, [0 ..< 25])
        XCTAssertEqual(ranges.heldBytes, 25)
    }

    /// A writer thread copies the file in small slow pieces; the decoder starts long before it is done and
    /// its whole output equals `mpg123 -s` of the complete file.
    func testDecodingWhileTheFileGrowsMatchesMpg123() throws {
        let folder = try TemporaryFolder("growing")
        let complete = try AudioFixtures.makeMP3(at: folder.path("whole.mp3"), seconds: 6)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: complete))
        let partPath = folder.path("song.part")
        let source = GrowingFile(path: partPath)
        let writer = SlowWriter(bytes: bytes, path: partPath, source: source, chunk: 4096, delay: 0.01)
        writer.start()

        let decoder = try MP3Decoder(source: source, name: "http://example/song.mp3")
        XCTAssertFalse(source.isComplete, "the decoder opened before the download ended")
        let first = try PCM.read(decoder, samples: 4410)
        XCTAssertEqual(first.count, 4410 * 4)
        XCTAssertFalse(source.isComplete, "the first samples came before the download ended")
        let rest = try PCM.decodeAll(decoder)
        writer.wait()
        XCTAssertTrue(first + rest == (try Tool.mpg123PCM(complete)), "streamed decode differs from mpg123 -s")
    }

    /// A download that fails while the decoder waits gives the download's reason as the error.
    func testAFailedSourceEndsDecodingWithItsMessage() throws {
        let folder = try TemporaryFolder("growing-fail")
        let complete = try AudioFixtures.makeMP3(at: folder.path("whole.mp3"), seconds: 4)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: complete))
        let partPath = folder.path("song.part")
        let source = GrowingFile(path: partPath)
        try bytes.prefix(20_000).write(to: URL(fileURLWithPath: partPath))
        source.didWrite(at: 0, count: 20_000)
        source.setTotal(Int64(bytes.count))
        let decoder = try MP3Decoder(source: source, name: "http://example/song.mp3")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { source.fail("connection to example failed") }
        XCTAssertThrowsError(try PCM.decodeAll(decoder)) { error in
            XCTAssertEqual((error as? AudioError)?.message, "connection to example failed")
        }
    }

    /// Nothing at the start at all: opening fails with the source's message, not libmpg123's.
    func testOpeningASourceThatFailsBeforeAnyByte() throws {
        let folder = try TemporaryFolder("growing-none")
        let source = GrowingFile(path: folder.path("none.part"))
        source.fail("HTTP 404 Not Found from http://127.0.0.1/x.mp3")
        XCTAssertThrowsError(try MP3Decoder(source: source, name: "http://127.0.0.1/x.mp3")) { error in
            XCTAssertEqual((error as? AudioError)?.message, "HTTP 404 Not Found from http://127.0.0.1/x.mp3")
        }
    }

    /// A seek to a place that has not arrived asks the writer for bytes near it (not from the front), and
    /// decoding goes on from there once they come.
    func testFarSeekAsksForTheBytesAtTheTarget() throws {
        let folder = try TemporaryFolder("growing-seek")
        let complete = try AudioFixtures.makeMP3(at: folder.path("whole.mp3"), seconds: 20)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: complete))
        let partPath = folder.path("song.part")
        XCTAssertTrue(FileManager.default.createFile(atPath: partPath, contents: nil))
        let source = GrowingFile(path: partPath)
        source.setTotal(Int64(bytes.count))
        let writer = RangeWriter(handle: try FileHandle(forWritingTo: URL(fileURLWithPath: partPath)), bytes: bytes, source: source)
        writer.put(0 ..< 40_000)
        let asked = Locked<[Int64]>([])
        source.onWant { offset in
            asked.mutate { $0.append(offset) }
            // The "Range request": everything from the wanted place to the end.
            DispatchQueue.global().async { writer.put(Int(offset) ..< bytes.count) }
        }
        let decoder = try MP3Decoder(source: source, name: "http://example/song.mp3")
        let rate = decoder.format.sampleRate
        try decoder.seek(toSample: rate * 18)
        let after = try PCM.read(decoder, samples: rate)
        XCTAssertEqual(after.count, rate * decoder.format.bytesPerFrame, "a second of audio after the seek")
        XCTAssertEqual(Double(decoder.positionInSamples) / Double(rate), 19, accuracy: 0.2)
        let first = try XCTUnwrap(asked.value.first)
        XCTAssertGreaterThan(first, Int64(Double(bytes.count) * 0.8), "asked for bytes near 90 %, not the next ones in line")
        XCTAssertEqual(source.heldRanges.ranges.count, 2, "the gap before the target was never fetched")
    }

    /// A station's tags reach the reader where they stood, even with the writer a whole window ahead and a
    /// title in every block: a repeat is no change, and past the cap the newest change takes the latest tags.
    func testStreamTagsReachTheReaderWhenTheWriterIsFarAhead() {
        let source = GrowingFile(path: "/nonexistent/radio.part")
        source.useWindow(capacity: 1 << 20)
        let run = 1000, runs = 1000
        var title = ""
        for n in 0 ..< runs {
            // The title changes every 10 runs and is said again with every block between.
            title = "Song \(n / 10)"
            source.announce(StreamTags(name: "FM", title: title), ahead: 0)
            let audio = [UInt8](repeating: 0, count: run)
            XCTAssertEqual(audio.withUnsafeBytes { source.append($0) }, run, "the window takes run \(n)")
        }
        XCTAssertEqual(source.streamTags(at: 0)?.title, "Song 0")
        XCTAssertEqual(source.streamTags(at: Int64(10 * run - 1))?.title, "Song 0", "a repeat moves nothing")
        XCTAssertEqual(source.streamTags(at: Int64(10 * run))?.title, "Song 1", "each change where it stood")
        let lastKept = GrowingFile.maxPendingTags - 2
        XCTAssertEqual(source.streamTags(at: Int64(lastKept * 10 * run))?.title, "Song \(lastKept)")
        XCTAssertEqual(source.streamTags(at: Int64((lastKept + 1) * 10 * run))?.title, title, "past the cap, the last said")
        XCTAssertEqual(source.streamTags(at: Int64(runs * run))?.name, "FM")
    }
}

/// Copies `bytes` into `path` a piece at a time, telling `source` about each piece.
final class SlowWriter: @unchecked Sendable {
    let bytes: Data
    let path: String
    let source: GrowingFile
    let chunk: Int
    let delay: Double
    private let done = DispatchSemaphore(value: 0)

    init(bytes: Data, path: String, source: GrowingFile, chunk: Int, delay: Double) {
        self.bytes = bytes
        self.path = path
        self.source = source
        self.chunk = chunk
        self.delay = delay
    }

    func start() {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        source.setTotal(Int64(bytes.count))
        Thread { [self] in
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + chunk)
                handle.write(bytes.subdata(in: offset ..< end))
                source.didWrite(at: Int64(offset), count: end - offset)
                offset = end
                Thread.sleep(forTimeInterval: delay)
            }
            try? handle.close()
            source.finish()
            done.signal()
        }.start()
    }

    func wait() { done.wait() }
}

/// Writes pieces of `bytes` at their places, as Range answers would.
final class RangeWriter: @unchecked Sendable {
    let handle: FileHandle
    let bytes: Data
    let source: GrowingFile
    private let lock = NSLock()

    init(handle: FileHandle, bytes: Data, source: GrowingFile) {
        self.handle = handle
        self.bytes = bytes
        self.source = source
    }

    func put(_ range: Range<Int>) {
        lock.withLock {
            handle.seek(toFileOffset: UInt64(range.lowerBound))
            handle.write(bytes.subdata(in: range))
        }
        source.didWrite(at: Int64(range.lowerBound), count: range.count)
    }
}

final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
