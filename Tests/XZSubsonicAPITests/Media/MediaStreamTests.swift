import Foundation
import GRDB
import XCTest
@testable import XZSubsonicAPI
import XZSystem
import XZTestSupport

/// `stream` and `download` on a library of generated songs: raw files with their ranges, every format
/// transcoded and decoded back by ffmpeg for the song's length, offsets, bit rates, the CUE rip's tracks,
/// the cap on transcodes, the cache, and hostile parameters.
final class MediaStreamTests: XCTestCase {
    static let shared = Result { try MediaFixture() }
    var fixture: MediaFixture { get throws { try Self.shared.get() } }

    /// What a client receives of a transcode: the body its producer makes, or the cached transcode's file.
    func produce(_ reply: SubsonicReply) throws -> (contentType: String, bytes: [UInt8]) {
        switch reply {
        case .stream(let stream):
            let sink = CollectingSink()
            try stream.produce(sink)
            return (stream.contentType, sink.bytes)
        case .file(let file) where file.path.contains("/cache/transcodes/"):
            return (file.contentType, [UInt8](try Data(contentsOf: URL(fileURLWithPath: file.path))))
        default:
            throw TestFailure("expected a transcode, got \(reply)")
        }
    }

    func testEveryFormatTranscodesToEveryTargetForTheSongsLength() throws {
        let fixture = try fixture
        let targets: [(parameter: String, codec: String, type: String)] = [
            ("mp3", "mp3", "audio/mpeg"), ("opus", "opus", "audio/ogg"), ("ogg", "vorbis", "audio/ogg"), ("flac", "flac", "audio/flac"),
        ]
        for name in MediaFixture.formats.map(\.name) {
            for target in targets {
                let song = try fixture.song(name)
                let reply = try fixture.answer(fixture.request(name, [("format", target.parameter)]))
                if case .file(let raw) = reply, raw.path.hasPrefix(fixture.music.path) {
                    // The file's own format: sent as it is.
                    XCTAssertEqual(TranscodeFormat(fileName: name), TranscodeFormat(parameter: target.parameter), name)
                    XCTAssertEqual(raw.size, Int64(try Data(contentsOf: fixture.music.appendingPathComponent(name)).count))
                    continue
                }
                let (contentType, bytes) = try produce(reply)
                XCTAssertEqual(contentType, target.type)
                let decoded = try DecodedMedia(bytes, in: fixture.folder, name: "out-\(name).\(target.parameter)")
                XCTAssertEqual(decoded.codec, target.codec, "\(name) → \(target.parameter)")
                XCTAssertEqual(decoded.seconds, Double(song.durationMs ?? 0) / 1000, accuracy: 0.5, "\(name) → \(target.parameter)")
            }
        }
    }

    func testCueTracksAreTranscodedToTheirOwnLength() throws {
        let fixture = try fixture
        let lengths = CueFixtures.trackFrames.map { Double(($0.end ?? 750) - $0.start) / 75 }
        for (index, length) in lengths.enumerated() {
            let name = "Rip/image.cue/track000\(index + 1)"
            // No format: the track is a part of its image, served losslessly as FLAC.
            let (raw, rawBytes) = try produce(fixture.answer(fixture.request(name)))
            XCTAssertEqual(raw, "audio/flac")
            XCTAssertEqual(try DecodedMedia(rawBytes, in: fixture.folder, name: "cue\(index).flac").seconds, length, accuracy: 0.05)
            let (_, mp3) = try produce(fixture.answer(fixture.request(name, [("format", "mp3")])))
            XCTAssertEqual(try DecodedMedia(mp3, in: fixture.folder, name: "cue\(index).mp3").seconds, length, accuracy: 0.5)
        }
    }

    func testFLACOfSixteenBitsIsLossless() throws {
        let fixture = try fixture
        let (_, bytes) = try produce(fixture.answer(fixture.request("song.wav", [("format", "flac")])))
        let path = fixture.folder.path("lossless.flac")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        func pcm(_ path: String) throws -> Data {
            try TestProcess.runChecked("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-"]).stdoutData
        }
        XCTAssertEqual(try pcm(path), try pcm(fixture.music.appendingPathComponent("song.wav").path))
    }

    func testTimeOffsetShortensTheTranscode() throws {
        let fixture = try fixture
        for format in ["mp3", "opus", "ogg", "flac"] {
            let (_, bytes) = try produce(fixture.answer(fixture.request("song.flac", [("format", format), ("timeOffset", "4")])))
            XCTAssertEqual(try DecodedMedia(bytes, in: fixture.folder, name: "offset.\(format)").seconds, MediaFixture.seconds - 4,
                           accuracy: 0.5, format)
        }
        let (_, cue) = try produce(fixture.answer(fixture.request("Rip/image.cue/track0002", [("format", "flac"), ("timeOffset", "1")])))
        XCTAssertEqual(try DecodedMedia(cue, in: fixture.folder, name: "offset-cue.flac").seconds, 248.0 / 75 - 1, accuracy: 0.05)
    }

    func testMaxBitRateIsTheEncodersRate() throws {
        let fixture = try fixture
        XCTAssertEqual([1, 33, 100, 193, 319, 5000].map { TranscodeFormat.mp3.kbps(maxBitRate: $0) }, [32, 32, 96, 192, 256, 320])
        XCTAssertEqual(TranscodeFormat.mp3.kbps(maxBitRate: 0), 192)
        XCTAssertEqual(TranscodeFormat.opus.kbps(maxBitRate: Int.max), 510)
        XCTAssertEqual(TranscodeFormat.flac.kbps(maxBitRate: 64), 0)
        for (format, kbps) in [("mp3", 96), ("opus", 64), ("ogg", 112), ("mp3", 320), ("mp3", 100)] {
            let (_, bytes) = try produce(fixture.answer(fixture.request("song.flac", [("format", format), ("maxBitRate", "\(kbps)")])))
            let decoded = try DecodedMedia(bytes, in: fixture.folder, name: "rate.\(format)")
            // A ceiling: VBR encoders spend less where the music needs less.
            XCTAssertTrue((0.6...1.15).contains(decoded.kbps / Double(kbps)), "\(format) at \(kbps): \(decoded.kbps) kbit/s")
        }
        // Default rates when none is asked for.
        let (_, mp3) = try produce(fixture.answer(fixture.request("song.wav", [("format", "mp3")])))
        XCTAssertEqual(try DecodedMedia(mp3, in: fixture.folder, name: "default.mp3").kbps, 192, accuracy: 10)
    }

    func testHighRatesAndMonoBecomeMP3() throws {
        let fixture = try fixture
        for name in ["hires.flac", "mono.wav"] {
            let (_, bytes) = try produce(fixture.answer(fixture.request(name, [("format", "mp3")])))
            XCTAssertEqual(try DecodedMedia(bytes, in: fixture.folder, name: "\(name).mp3").seconds, MediaFixture.seconds, accuracy: 0.5, name)
        }
    }

    func testRawStreamsAreTheFileWithItsRange() throws {
        let fixture = try fixture
        let path = fixture.music.appendingPathComponent("song.mp3").path
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        for request in [try fixture.request("song.mp3"), try fixture.request("song.mp3", [("format", "raw")]),
                        try fixture.request("song.mp3", [("format", "mp3")]), try fixture.request("song.mp3", [("format", "mp3"), ("maxBitRate", "320")])] {
            guard case .file(let file) = try fixture.answer(request) else { return XCTFail("\(request.parameters) is not raw") }
            XCTAssertEqual(file.size, Int64(data.count))
            XCTAssertNil(file.range)
            XCTAssertEqual(file.contentType, "audio/mpeg")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file.path)), data)
        }
        guard case .file(let ranged) = try fixture.answer(fixture.request("song.mp3", range: "bytes=100-1099")),
              let range = ranged.range else { return XCTFail("no range") }
        XCTAssertEqual(range, 100...1099)
        XCTAssertEqual(ranged.size, Int64(data.count))
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: ranged.path))
        try handle.seek(toOffset: UInt64(range.lowerBound))
        XCTAssertEqual(try handle.read(upToCount: range.count), data[100...1099])
        XCTAssertThrowsError(try fixture.answer(fixture.request("song.mp3", range: "bytes=\(data.count)-"))) {
            XCTAssertTrue(MediaError.rangeNotSatisfiable ~= $0, "\($0)")
        }
        // A rate cap below the file's own transcodes it.
        guard case .stream = try fixture.answer(fixture.request("song.mp3", [("maxBitRate", "64")])) else {
            return XCTFail("a cap below the file's rate streams the file as it is")
        }
        guard case .file = try fixture.answer(fixture.request("song.mp3", [("format", "raw"), ("maxBitRate", "64")])) else {
            return XCTFail("raw is the file whatever the cap")
        }
        guard case .file(let flac) = try fixture.answer(fixture.request("song.flac", [("format", "flac"), ("maxBitRate", "64")])) else {
            return XCTFail("FLAC asked of a FLAC file is the file")
        }
        XCTAssertEqual(flac.contentType, "audio/flac")
    }

    func testDownloadIsTheOriginalNamedFile() throws {
        let fixture = try fixture
        guard case .file(let file) = try fixture.answer(fixture.request("song.ogg", endpoint: "download")) else { return XCTFail("not a file") }
        XCTAssertEqual(file.path, fixture.music.appendingPathComponent("song.ogg").path)
        XCTAssertEqual(file.contentType, "audio/ogg")
        XCTAssertEqual(file.headers.first { $0.name == "Content-Disposition" }?.value,
                       "attachment; filename=\"song.ogg\"; filename*=UTF-8''song.ogg")
        // A CUE track downloads as its own part of the image.
        let track: [(name: String, value: String)]
        switch try fixture.answer(fixture.request("Rip/image.cue/track0001", endpoint: "download")) {
        case .stream(let stream): track = stream.headers
        case .file(let file) where file.path.contains("/cache/transcodes/"): track = file.headers
        default: return XCTFail("a CUE track downloads as its part")
        }
        XCTAssertEqual(track.first { $0.name == "Content-Disposition" }?.value,
                       "attachment; filename=\"First.flac\"; filename*=UTF-8''First.flac")
    }

    func testAttachmentNamesAreSanitized() {
        XCTAssertEqual(SubsonicMedia.attachment("a\"b/c\\d\u{7}e\r\nf.mp3"), "attachment; filename=\"abcdef.mp3\"; filename*=UTF-8''abcdef.mp3")
        XCTAssertEqual(SubsonicMedia.attachment("歌 1.flac"), "attachment; filename=\"_ 1.flac\"; filename*=UTF-8''%E6%AD%8C%201.flac")
        XCTAssertEqual(SubsonicMedia.attachment("\"/\u{0}"), "attachment; filename=\"download\"; filename*=UTF-8''download")
    }

    func testAStreamIsNeverAPlay() throws {
        let fixture = try fixture
        func plays() throws -> Int {
            try fixture.host.database.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM play_session") ?? 0 }
        }
        let before = try plays()
        _ = try produce(fixture.answer(fixture.request("song.m4a", [("format", "opus")])))
        _ = try fixture.answer(fixture.request("song.m4a"))
        _ = try fixture.answer(fixture.request("song.m4a", endpoint: "download"))
        XCTAssertEqual(try plays(), before)
    }

    func testEstimatedLengthIsTheBodysLength() throws {
        let fixture = try fixture
        for format in ["mp3", "opus", "ogg"] {
            guard case .stream(let stream) = try fixture.answer(fixture.request("song.wav", [("format", format), ("estimateContentLength", "true"),
                                                                                           ("timeOffset", "1")])) else {
                return XCTFail("a transcode from an offset is never cached")
            }
            let sink = CollectingSink()
            try stream.produce(sink)
            let bytes = sink.bytes
            let length = try XCTUnwrap(stream.estimatedLength, format)
            XCTAssertEqual(Int64(bytes.count), length, format)
            let kbps = Double(TranscodeFormat(parameter: format)!.defaultKbps)
            XCTAssertTrue((MediaFixture.seconds - 1) * kbps * 125 < Double(length) && Double(length) < MediaFixture.seconds * kbps * 125 * 1.2,
                          "\(format): \(length)")
            XCTAssertEqual(try DecodedMedia(bytes, in: fixture.folder, name: "estimate.\(format)").seconds, MediaFixture.seconds - 1,
                           accuracy: 0.5, format)
        }
    }

    func testASongWithoutALocalFileIsNotFound() throws {
        let fixture = try fixture
        let id = try XCTUnwrap(fixture.songs["mono.wav"])
        let path = try fixture.song("mono.wav").localPath
        func setPath(_ value: String, url: String) throws {
            try fixture.host.database.pool.write {
                try $0.execute(sql: "UPDATE song SET local_path = ?, audio_url = ? WHERE id = ?", arguments: [value, url, id])
            }
        }
        try setPath("", url: "http://127.0.0.1:9/online.mp3")
        defer { try? setPath(path, url: "") }
        for endpoint in ["stream", "download"] {
            XCTAssertThrowsError(try fixture.answer(fixture.request("mono.wav", endpoint: endpoint))) {
                XCTAssertEqual(($0 as? SubsonicError)?.kind, .notFound, "\($0)")
            }
        }
    }

    func testHostileParameters() throws {
        let fixture = try fixture
        func refused(_ parameters: [(String, String)], _ code: SubsonicError.Kind, file: StaticString = #filePath, line: UInt = #line) {
            let request = SubsonicRequest(endpoint: "stream", parameters: parameters.map { (name: $0.0, value: $0.1) }, clientAddress: "::1")
            XCTAssertThrowsError(try fixture.answer(request), file: file, line: line) {
                XCTAssertEqual(($0 as? SubsonicError)?.kind, code, "\(parameters): \($0)", file: file, line: line)
            }
        }
        refused([], .missingParameter)
        refused([("id", "so-99999999999")], .notFound)
        refused([("id", "so-99999999999999999999999")], .notFound)
        refused([("id", "al-1")], .notFound)
        refused([("id", "../../etc/passwd")], .notFound)
        refused([("id", "/etc/passwd")], .notFound)
        refused([("id", String(repeating: "9", count: 5000))], .generic)
        refused([("id", "so-1\u{0}")], .generic)
        let song = "so-\(try XCTUnwrap(fixture.songs["song.wav"]))"
        refused([("id", song), ("maxBitRate", "ten")], .generic)
        refused([("id", song), ("timeOffset", "nan")], .generic)
        refused([("id", song), ("timeOffset", "soon")], .generic)
        refused([("id", song), ("estimateContentLength", "perhaps")], .generic)

        // Numbers past every domain are held within it.
        let (_, huge) = try produce(fixture.answer(fixture.request("song.wav", [("format", "mp3"), ("maxBitRate", "99999999999999999999999")])))
        XCTAssertEqual(try DecodedMedia(huge, in: fixture.folder, name: "huge.mp3").kbps, 320, accuracy: 10)
        let (_, past) = try produce(fixture.answer(fixture.request("song.wav", [("format", "ogg"), ("timeOffset", "1e308")])))
        XCTAssertLessThan(past.count, 10_000, "an offset past the end is the stream's header and nothing more")
        let (_, negative) = try produce(fixture.answer(fixture.request("song.wav", [("format", "opus"), ("timeOffset", "-5")])))
        XCTAssertEqual(try DecodedMedia(negative, in: fixture.folder, name: "negative.opus").seconds, MediaFixture.seconds, accuracy: 0.5)
        guard case .file = try fixture.answer(fixture.request("song.wav", [("format", "wma9; rm -rf /")])) else {
            return XCTFail("an unknown format is the file as it is")
        }
    }
}
