import Foundation
import XCTest
import XZPlaybackEngine
import XZTestSupport

/// Files that cannot be played give one error naming them and the player goes on.
final class BrokenFileTests: XCTestCase {
    private var fixtures: PlaybackFixtures!
    private var folder: TemporaryFolder!

    override func setUpWithError() throws {
        fixtures = try PlaybackFixtures.shared()
        folder = try TemporaryFolder("playback-broken")
    }

    /// Unplayable files, each with a word its error message must hold (nil: any message).
    private func brokenFiles() throws -> [(path: String, words: String?)] {
        var seed: UInt32 = 42
        let garbage: [UInt8] = (0..<65_536).map { _ in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: seed >> 24)
        }
        let text = Array(String(repeating: "This is not an MP3 file, just words on a line.\n", count: 300).utf8)
        let audio = try fixtures.bytes("cbr44")
        // Claims a tag twice the file's size in front of real audio.
        let size = audio.count * 2
        let synchsafe: [UInt8] = [UInt8((size >> 21) & 0x7F), UInt8((size >> 14) & 0x7F), UInt8((size >> 7) & 0x7F), UInt8(size & 0x7F)]
        let tagPastEnd = Array("ID3".utf8) + [3, 0, 0] + synchsafe + audio
        return [
            (try fixtures.write("empty.mp3", []), nil),
            (try fixtures.write("garbage.mp3", garbage), nil),
            (try fixtures.write("text.mp3", text), nil),
            (try fixtures.write("three-bytes.mp3", Array(audio.prefix(3))), nil),
            (try fixtures.write("tag-past-end.mp3", tagPastEnd), "ID3v2"),
            (folder.path("missing.mp3"), nil),
        ]
    }

    func testEachBrokenFileAloneGivesOneErrorAndEnds() throws {
        for (path, words) in try brokenFiles() {
            let render = try Render.run([item(path)], in: folder)
            let name = URL(fileURLWithPath: path).lastPathComponent
            XCTAssertEqual(render.errors.count, 1, name)
            XCTAssertEqual(render.errors.first?.file, path, name)
            if let words { XCTAssertTrue(render.errors.first?.message.contains(words) ?? false, "\(name): \(render.errors)") }
            XCTAssertFalse(render.errors.first?.message.isEmpty ?? true, name)
            XCTAssertEqual(render.endings.map(\.reason), [.error], name)
            XCTAssertFalse(render.events.contains { if case .started = $0 { return true } else { return false } }, name)
            XCTAssertEqual(render.lastReport, .queueFinished, name)
            XCTAssertEqual(render.failed, 1, name)
            XCTAssertTrue(render.pcm.isEmpty, name)
        }
    }

    func testBrokenFilesInsideAQueueDoNotStopTheGoodOnes() throws {
        let broken = try brokenFiles().map(\.path)
        let good = [try fixtures.path("cbr44"), try fixtures.path("cbr44b")]
        // good, every broken one, good: the good ones play completely and back to back.
        let paths = [good[0]] + broken + [good[1]]
        let render = try Render.run(paths.map { item($0) }, in: folder)
        Reference.assertSame(render.pcm, try Reference.mpg123(good[0]) + Reference.mpg123(good[1]), "good files around broken ones")
        XCTAssertEqual(render.errors.map(\.file), broken)
        XCTAssertEqual(render.endings.map(\.path), paths)
        XCTAssertEqual(render.endings.map(\.reason), [.completed] + broken.map { _ in .error } + [.completed])
        XCTAssertEqual(render.failed, broken.count)
    }

    func testTruncatedFilePlaysWhatIsThere() throws {
        let audio = try fixtures.bytes("vbr44")
        let path = try fixtures.write("vbr-half.mp3", Array(audio.prefix(audio.count / 2)))
        let render = try Render.run([item(path), item(try fixtures.path("cbr44b"))], in: folder)
        Reference.assertSame(render.pcm, try Reference.mpg123(path) + Reference.mpg123(try fixtures.path("cbr44b")), "half a file, then a whole one")
        XCTAssertEqual(render.endings.map(\.reason), [.completed, .completed])
    }

    func testCorruptMiddlePlaysOnAndReportsDamageOnce() throws {
        var audio = try fixtures.bytes("cbr44")
        var seed: UInt32 = 1234
        let start = audio.count / 2
        for i in start..<start + 6000 {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            audio[i] = UInt8(truncatingIfNeeded: seed >> 24)
        }
        let path = try fixtures.write("corrupt-middle.mp3", audio)
        let good = try fixtures.path("cbr44b")
        let render = try Render.run([item(path), item(good)], in: folder)
        let damage = render.notices.filter { $0.hasPrefix(path + ": ") }
        XCTAssertEqual(damage.count, 1, "\(render.notices)")
        XCTAssertTrue(damage.first?.contains("Skipped") ?? false, "\(damage)")
        XCTAssertEqual(render.endings.map(\.reason), [.completed, .completed])
        // What survived of the damaged file, then the good one complete.
        let goodPCM = try Reference.mpg123(good)
        XCTAssertTrue(render.pcm.suffix(goodPCM.count) == goodPCM, "good file after the damaged one")
        let damagedPart = render.pcm.count - goodPCM.count
        let clean = try Reference.mpg123(try fixtures.path("cbr44"))
        XCTAssertGreaterThan(Double(damagedPart) / Double(clean.count), 0.75, "most of the damaged track played")
        XCTAssertTrue(render.pcm.prefix(clean.count / 4) == clean.prefix(clean.count / 4), "start before the damage intact")
    }

    func testAllBrokenWithRepeatAllStops() throws {
        let broken = try brokenFiles().map(\.path).prefix(3)
        let log = EventLog()
        let player = Player(output: LibaoOutput(.null), onEvent: { log.append($0) })
        player.setRepeat(.all)
        player.play(broken.map { item($0) })
        XCTAssertTrue(player.waitUntilFinished(timeout: 30), "gave up instead of cycling forever")
        XCTAssertEqual(player.failedTrackCount, broken.count)
        XCTAssertEqual(player.snapshot().state, .stopped)
        player.shutdown()
        XCTAssertEqual(log.events.last, .queueUnplayable)
    }

    /// 5 KB of a 128 kbps MP3 is about 0.3 s: on repeat it would start again several times a second.
    func testAFileCutToAFractionOfASecondFailsAndRepeatAllStops() throws {
        let path = try fixtures.write("cut-short.mp3", Array(try fixtures.bytes("cbr44").prefix(5000)))
        let log = EventLog()
        let player = Player(output: LibaoOutput(.null), onEvent: { log.append($0) })
        player.setRepeat(.all)
        player.play([item(path)])
        XCTAssertTrue(player.waitUntilFinished(timeout: 30), "stopped instead of cycling")
        player.shutdown()
        let events = log.events.filter { $0.reportedChanges == nil }
        let errors = events.compactMap { if case .error(_, let message) = $0 { return message } else { return nil } }
        XCTAssertEqual(errors.count, 1, "\(errors)")
        XCTAssertTrue(errors.first?.contains("cut short or empty") == true, "\(errors)")
        let endings = events.compactMap { if case .ended(_, let reason, _) = $0 { return reason } else { return nil } }
        XCTAssertEqual(endings, [.error], "never completed")
        XCTAssertEqual(player.failedTrackCount, 1)
        XCTAssertEqual(events.last, .queueUnplayable)
        XCTAssertTrue(player.snapshot().lastError?.contains("cut-short.mp3") == true)
    }
}
