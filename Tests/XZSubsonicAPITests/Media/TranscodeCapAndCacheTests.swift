import Foundation
import XCTest
@testable import XZSubsonicAPI
import XZSystem
import XZTestSupport

/// The cap on concurrent transcodes and the transcode cache: the cap's next transcode is refused until
/// one ends or its client goes; a finished transcode serves the next identical request as a file, and a
/// client that goes mid-way leaves no part of one behind.
final class TranscodeCapAndCacheTests: XCTestCase {
    func cacheFiles(_ fixture: MediaFixture) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixture.transcodeFolder.path)) ?? []).sorted()
    }

    func testTheCapRefusesOneMoreUntilOneEnds() throws {
        let fixture = try MediaFixture { $0.maxTranscodes = 2 }
        func start(_ format: String) throws -> StreamReply {
            guard case .stream(let reply) = try fixture.answer(fixture.request("song.flac", [("format", format), ("timeOffset", "1")])) else {
                throw TestFailure("not a transcode")
            }
            return reply
        }
        let gate = DispatchSemaphore(value: 0)
        let first = try start("mp3")
        let sink = CollectingSink(gate: gate)
        let running = Thread { try? first.produce(sink) }
        running.start()
        sink.started.wait()
        var second: StreamReply? = try start("opus")
        XCTAssertEqual(fixture.library.media.transcodes.count, 2)
        XCTAssertThrowsError(try start("ogg")) { error in
            XCTAssertTrue((error as? SubsonicError)?.isTooManyTranscodes == true, "\(error)")
            XCTAssertEqual((error as? SubsonicError)?.code, 0)
        }
        // A reply dropped unsent (the client went before its body) gives its place back.
        second = nil
        XCTAssertNil(second)
        XCTAssertEqual(fixture.library.media.transcodes.count, 1)
        _ = try start("ogg")
        XCTAssertEqual(fixture.library.media.transcodes.count, 1, "the reply above was dropped at once")
        // A HEAD request produces nothing and takes no place.
        do {
            let occupier = try start("flac")
            guard case .stream = try fixture.answer(fixture.request("song.flac", [("format", "mp3"), ("timeOffset", "1")], isHead: true)) else {
                return XCTFail("HEAD of a transcode")
            }
            withExtendedLifetime(occupier) {}
        }
        // The producer's end gives its place back.
        gate.signal()
        XCTAssertTrue(eventually(timeout: 60) { fixture.library.media.transcodes.count == 0 })
        XCTAssertFalse(sink.bytes.isEmpty)
    }

    func testTheCacheServesASecondRequestAndNeverAPartialFile() throws {
        let fixture = try MediaFixture()
        let request = try fixture.request("song.m4a", [("format", "mp3"), ("maxBitRate", "128")])
        // A client that goes mid-way: its transcode is not kept, in part or whole.
        guard case .stream(let first) = try fixture.answer(request) else { return XCTFail("not a transcode") }
        XCTAssertThrowsError(try first.produce(CollectingSink(leaveAfter: 20_000)))
        XCTAssertEqual(cacheFiles(fixture), [])
        guard case .stream = try fixture.answer(request) else { return XCTFail("a partial transcode was served from the cache") }

        // A transcode from an offset is not kept either.
        guard case .stream(let offset) = try fixture.answer(fixture.request("song.m4a", [("format", "mp3"), ("maxBitRate", "128"), ("timeOffset", "2")])) else {
            return XCTFail("not a transcode")
        }
        try offset.produce(CollectingSink())
        XCTAssertEqual(cacheFiles(fixture), [])

        guard case .stream(let whole) = try fixture.answer(request) else { return XCTFail("not a transcode") }
        let sink = CollectingSink()
        try whole.produce(sink)
        XCTAssertEqual(cacheFiles(fixture).count, 1)
        XCTAssertFalse(cacheFiles(fixture)[0].hasSuffix(".part"))
        guard case .file(let cached) = try fixture.answer(request) else { return XCTFail("the second request was transcoded again") }
        XCTAssertEqual(cached.contentType, "audio/mpeg")
        XCTAssertEqual([UInt8](try Data(contentsOf: URL(fileURLWithPath: cached.path))), sink.bytes)
        XCTAssertTrue(cached.path.hasPrefix(fixture.transcodeFolder.path))
        // With a range, as any file.
        guard case .file(let ranged) = try fixture.answer(fixture.request("song.m4a", [("format", "mp3"), ("maxBitRate", "128")], range: "bytes=-100")) else {
            return XCTFail("not from the cache")
        }
        XCTAssertEqual(ranged.range, (cached.size - 100)...(cached.size - 1))
        // Another rate is another transcode.
        guard case .stream = try fixture.answer(fixture.request("song.m4a", [("format", "mp3"), ("maxBitRate", "96")])) else {
            return XCTFail("another rate was served from the cache")
        }
    }

    func testTheCacheKeepsToItsCapacityOldestFirst() throws {
        // Room for about two 6 s MP3s at 128 kbit/s (~96 KB each).
        let fixture = try MediaFixture { $0.transcodeCacheBytes = 250_000 }
        var kept: [String] = []
        for name in ["song.wav", "song.flac", "song.ogg"] {
            guard case .stream(let reply) = try fixture.answer(fixture.request(name, [("format", "mp3"), ("maxBitRate", "128")])) else {
                return XCTFail("not a transcode")
            }
            try reply.produce(CollectingSink())
            kept = cacheFiles(fixture)
            Thread.sleep(forTimeInterval: 0.05)  // distinct modification times
        }
        XCTAssertEqual(kept.count, 2)
        let total = kept.reduce(Int64(0)) { $0 + (FileStatus(path: fixture.transcodeFolder.appendingPathComponent($1).path)?.size ?? 0) }
        XCTAssertLessThanOrEqual(total, 250_000)
        guard case .stream = try fixture.answer(fixture.request("song.wav", [("format", "mp3"), ("maxBitRate", "128")])) else {
            return XCTFail("the oldest transcode was kept")
        }
        guard case .file = try fixture.answer(fixture.request("song.ogg", [("format", "mp3"), ("maxBitRate", "128")])) else {
            return XCTFail("the newest transcode was dropped")
        }
    }
}
