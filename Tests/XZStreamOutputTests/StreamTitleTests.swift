import Foundation
import XCTest
import XZEncoders
import XZPlaybackEngine
import XZStreamOutput
import XZTestSupport

/// ICY titles: a listener asking with `Icy-MetaData: 1` reads `StreamTitle` blocks every `icy-metaint` bytes.
final class StreamTitleTests: XCTestCase {
    override func setUpWithError() throws {
        guard (try? TestProcess.which("sox")) != nil else { throw XCTSkip("sox is needed for the tone files") }
    }

    /// The titles a listener reads, in order, until `done` says enough or the stream stalls.
    private func titles(_ listener: RawListener, metaint: Int, until done: ([String]) -> Bool) -> [String] {
        var seen: [String] = []
        while !done(seen) {
            guard listener.read(exactly: metaint) != nil, let length = listener.read(exactly: 1) else { break }
            guard length[0] > 0 else { continue }
            guard let block = listener.read(exactly: Int(length[0]) * 16) else { break }
            seen.append(String(decoding: block.prefix { $0 != 0 }, as: UTF8.self))
        }
        return seen
    }

    func testTheTitleChangesAtTheNextSong() throws {
        for kind in StreamKinds.icy {
            let rig = try StreamRig(kind)
            let second = "It's \"B\"\u{7}\nside"
            rig.player.play([try Tones.item(frequency: 440, seconds: 3, title: "First Song", artist: "Ann"),
                             try Tones.item(frequency: 660, seconds: 6, title: second, artist: "Bob")])
            try rig.waitUntilStreaming()
            let listener = try RawListener(port: rig.port, request: "GET / HTTP/1.1\r\nIcy-MetaData: 1\r\n\r\n")
            let head = try listener.readHead()
            XCTAssertTrue(head.hasPrefix("HTTP/1.1 200"), head)
            XCTAssertTrue(head.contains("icy-name: XZMusic test stream\r\n"), head)
            let metaint = try XCTUnwrap(head.split(separator: "\r\n").first { $0.hasPrefix("icy-metaint: ") }
                .flatMap { Int($0.dropFirst("icy-metaint: ".count)) }, head)
            XCTAssertEqual(metaint, 8192)
            let expected = "StreamTitle='Bob - It\u{2019}s \"B\"  side';"
            let seen = titles(listener, metaint: metaint) { $0.contains(expected) }
            XCTAssertEqual(seen.first, "StreamTitle='Ann - First Song';", "\(kind)")
            XCTAssertEqual(seen.last, expected, "\(kind): the quote and control characters are data")
        }
    }

    /// Ogg kinds never offer ICY (testAnOggStreamCarriesTheNewTitleInItsChainedPart checks their bytes).
    func testAListenerNotAskingGetsNoTitles() throws {
        for kind in StreamKinds.icy {
            let rig = try StreamRig(kind)
            rig.player.play([try Tones.item(frequency: 440, seconds: 5, title: "Song", artist: "Ann")])
            try rig.waitUntilStreaming()
            let listener = try RawListener(port: rig.port, request: "GET / HTTP/1.1\r\n\r\n")
            let head = try listener.readHead()
            XCTAssertFalse(head.contains("icy-metaint"), head)
            // Past three of the 8192-byte intervals where blocks would be.
            let bytes = try XCTUnwrap(listener.read(exactly: 3 * 8192 + 1), "\(kind)")
            XCTAssertNil(bytes.firstRange(of: Array("StreamTitle".utf8)), "\(kind)")
        }
    }

    func testALongTitleIsCutToTheBlockLimit() throws {
        let kind = try XCTUnwrap(StreamKinds.icy.first)
        let rig = try StreamRig(kind)
        rig.player.play([try Tones.item(frequency: 440, seconds: 5, title: String(repeating: "é", count: 5000), artist: "Ann")])
        try rig.waitUntilStreaming()
        let listener = try RawListener(port: rig.port, request: "GET / HTTP/1.1\r\nIcy-MetaData:1\r\n\r\n")
        XCTAssertTrue(try listener.readHead().contains("icy-metaint: 8192"))
        let seen = titles(listener, metaint: 8192) { !$0.isEmpty }
        let title = try XCTUnwrap(seen.first)
        XCTAssertTrue(title.hasPrefix("StreamTitle='Ann - éé") && title.hasSuffix("';"), title)
        XCTAssertLessThanOrEqual(title.utf8.count, 1024 + "StreamTitle='';".count)
    }

    func testTagsNoSendsNoTitle() throws {
        let kind = try XCTUnwrap(StreamKinds.icy.first)
        let rig = try StreamRig(kind) { $0.sendsTags = false }
        rig.player.play([try Tones.item(frequency: 440, seconds: 5, title: "Song", artist: "Ann")])
        try rig.waitUntilStreaming()
        let listener = try RawListener(port: rig.port, request: "GET / HTTP/1.1\r\nIcy-MetaData: 1\r\n\r\n")
        XCTAssertTrue(try listener.readHead().contains("icy-metaint: 8192"))
        for _ in 0..<8 {
            XCTAssertNotNil(listener.read(exactly: 8192))
            XCTAssertEqual(listener.read(exactly: 1), [0], "no title with tags \"no\"")
        }
    }

    /// Ogg streams carry the title themselves: each song is a chained part whose comments have it, so a
    /// listener there all along reads the new title after the old, and ffprobe on the stream shows the current one.
    func testAnOggStreamCarriesTheNewTitleInItsChainedPart() throws {
        guard (try? TestProcess.which("ffprobe")) != nil else { throw XCTSkip("ffprobe is needed to read the stream's tags") }
        for kind in StreamKinds.ogg {
            let rig = try StreamRig(kind)
            rig.player.play([try Tones.item(frequency: 440, seconds: 0.6, title: "First Song", artist: "Ann"),
                             try Tones.item(frequency: 660, seconds: 10, title: "Second Song", artist: "Bob")])
            try rig.waitUntilStreaming()
            let listener = try RawListener(port: rig.port, request: "GET / HTTP/1.1\r\n\r\n", readTimeout: 1)
            XCTAssertTrue(try listener.readHead().hasPrefix("HTTP/1.1 200"))
            let bytes = listener.read(for: 1.5)
            let first = bytes.firstRange(of: Array("TITLE=First Song".utf8))?.lowerBound
            let second = bytes.firstRange(of: Array("TITLE=Second Song".utf8))?.lowerBound
            XCTAssertNotNil(second, "\(kind): the chained part's comments carry the new title")
            if let first, let second { XCTAssertLessThan(first, second, "\(kind)") }
            XCTAssertNil(bytes.firstRange(of: Array("StreamTitle".utf8)), "\(kind): no ICY blocks in an Ogg stream")
            let probed = try TestProcess.run("ffprobe", ["-v", "error", "-rw_timeout", "5000000", "-analyzeduration", "100000",
                                                         "-show_entries", "stream_tags:format_tags", "-of", "default=nw=1",
                                                         "http://127.0.0.1:\(rig.port)/"])
            XCTAssertEqual(probed.status, 0, "\(kind): \(probed.stderr)")
            let tags = probed.stdout.lowercased()
            XCTAssertTrue(tags.contains("tag:title=second song") && tags.contains("tag:artist=bob"), "\(kind): \(probed.stdout)")
        }
    }
}
