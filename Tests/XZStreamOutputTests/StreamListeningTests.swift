import Foundation
import XCTest
import XZEncoders
import XZPlaybackEngine
import XZStreamOutput
import XZTestSupport

/// What real clients hear of the stream: ffmpeg decoding it while a real player plays into it.
final class StreamListeningTests: XCTestCase {
    override func setUpWithError() throws {
        guard (try? TestProcess.which("ffmpeg")) != nil, (try? TestProcess.which("sox")) != nil else {
            throw XCTSkip("ffmpeg and sox are needed to listen to the stream")
        }
    }

    func testTwoListenersAtOnceHearTheToneWhileAThirdNeverReads() throws {
        for kind in StreamKinds.all {
            let rig = try StreamRig(kind)
            rig.player.play([try Tones.item(frequency: 440, seconds: 10)])
            try rig.waitUntilStreaming()
            // A listener that connects and never reads must not hold back the others.
            let stalled = try RawListener(port: rig.port, request: "GET / HTTP/1.1\r\n\r\n")
            let url = "http://127.0.0.1:\(rig.port)/"
            let heard = FFmpegListener.decodeTogether([url, url], seconds: 2)
            for (index, result) in heard.enumerated() {
                let samples = try result.get()
                XCTAssertGreaterThanOrEqual(samples.count, 44_100 * 19 / 10, "\(kind) listener \(index): \(samples.count) samples")
                let frequency = FFmpegListener.frequency(Array(samples.dropFirst(4410)))
                XCTAssertEqual(frequency, 440, accuracy: 440 * 0.02, "\(kind) listener \(index)")
            }
            withExtendedLifetime(stalled) {}
        }
    }

    /// Pause sends silence whatever `always_on` says (MPD's pause), so `always_on` is checked with one kind only.
    func testPauseSendsSilenceAndTheListenerStaysConnected() throws {
        for (kind, alwaysOn) in StreamKinds.all.map({ ($0, false) }) + [(.opus, true)] {
            let rig = try StreamRig(kind, alwaysOn: alwaysOn)
            rig.player.play([try Tones.item(frequency: 440, seconds: 30)])
            try rig.waitUntilStreaming()
            let before = try RawListener(port: rig.port, request: "GET / HTTP/1.1\r\n\r\n", readTimeout: 1)
            XCTAssertTrue(try before.readHead().hasPrefix("HTTP/1.1 200"))
            XCTAssertFalse(before.read(for: 0.3).isEmpty, "\(kind): the tone reaches the listener")
            rig.player.pause()
            XCTAssertTrue(rig.events.wait { $0.contains { if case .paused = $0 { true } else { false } } })
            // Paused, a new listener hears silence at real-time pace, and the one before goes on receiving.
            // The tone written just before the pause may still come first: Opus holds up to 350 ms (decision
            // delay and page delay) until the silence pushes it out.
            let samples = try FFmpegListener.decode("http://127.0.0.1:\(rig.port)/", seconds: 1.2, container: StreamKinds.container(kind))
            XCTAssertGreaterThanOrEqual(samples.count, 44_100 * 11 / 10, "\(kind) always_on \(alwaysOn)")
            XCTAssertLessThan(FFmpegListener.peak(Array(samples.dropFirst(22_050))), 64, "\(kind) always_on \(alwaysOn): silence")
            XCTAssertFalse(before.read(for: 0.5).isEmpty, "\(kind): the listener before the pause still receives")
            XCTAssertFalse(before.isClosedByServer(within: 0.3))
            // On again, the tone comes back.
            rig.player.resume()
            let resumed = try FFmpegListener.decode("http://127.0.0.1:\(rig.port)/", seconds: 1)
            XCTAssertEqual(FFmpegListener.frequency(Array(resumed.dropFirst(4410))), 440, accuracy: 9, "\(kind) after resume")
        }
    }

    /// Closing the listeners at stop does not depend on the encoder (checked with WAVE); the silence after a stop
    /// with `always_on` is encoded, so it is checked for every kind; disabling then lets the listeners go.
    func testStopClosesTheListenersUnlessAlwaysOn() throws {
        for (kind, alwaysOn) in [(EncoderKind.wave, false)] + StreamKinds.all.map({ ($0, true) }) {
            let rig = try StreamRig(kind, alwaysOn: alwaysOn)
            rig.player.play([try Tones.item(frequency: 440, seconds: 30)])
            try rig.waitUntilStreaming()
            let listener = try RawListener(port: rig.port, request: "GET / HTTP/1.1\r\n\r\n", readTimeout: 1)
            XCTAssertTrue(try listener.readHead().hasPrefix("HTTP/1.1 200"))
            rig.player.stop()
            if alwaysOn {
                XCTAssertFalse(listener.read(for: 0.5).isEmpty, "\(kind): silence keeps coming")
                XCTAssertFalse(listener.isClosedByServer(within: 0.3), "\(kind): always_on keeps the listener")
                let samples = try FFmpegListener.decode("http://127.0.0.1:\(rig.port)/", seconds: 1, container: StreamKinds.container(kind))
                XCTAssertGreaterThanOrEqual(samples.count, 44_100 * 9 / 10, "\(kind)")
                XCTAssertLessThan(FFmpegListener.peak(Array(samples.dropFirst(11_025))), 64, "\(kind): silence after stop")
                // Switched off, the stream kept on lets its listeners go, as MPD's disable does.
                rig.output.disable()
                XCTAssertTrue(listener.isClosedByServer(within: 5), "\(kind): disable closes the listener even with always_on")
            } else {
                XCTAssertTrue(listener.isClosedByServer(within: 5), "\(kind): stop closes the listener, as MPD's")
                let refused = try RawListener(port: rig.port, request: "GET / HTTP/1.1\r\n\r\n")
                XCTAssertTrue(try refused.readHead().hasPrefix("HTTP/1.1 503"))
            }
        }
    }

    /// A listener joining after several songs (each an Ogg stream chained with its tag) starts at the current
    /// song's header and decodes it, for every kind; a listener there since the first song keeps decoding too.
    func testAListenerJoiningAfterSeveralSongsDecodesTheCurrentOne() throws {
        for kind in StreamKinds.all {
            let rig = try StreamRig(kind)
            rig.player.play([try Tones.item(frequency: 330, seconds: 0.6, title: "One"),
                             try Tones.item(frequency: 550, seconds: 0.6, title: "Two"),
                             try Tones.item(frequency: 440, seconds: 10, title: "Three")])
            try rig.waitUntilStreaming()
            // Someone listens from the start, so every song is encoded and chained.
            let url = "http://127.0.0.1:\(rig.port)/"
            let early = Locked<Result<[Int16], Error>?>(nil)
            let earlyDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                let result = Result { try FFmpegListener.decode(url, seconds: 2.5) }
                early.update { $0 = result }
                earlyDone.signal()
            }
            XCTAssertTrue(rig.events.wait { $0.filter { if case .started = $0 { true } else { false } }.count >= 3 }, "\(kind)")
            Thread.sleep(forTimeInterval: 0.5)
            let late = try FFmpegListener.decode(url, seconds: 1)
            XCTAssertGreaterThanOrEqual(late.count, 44_100 * 9 / 10, "\(kind)")
            XCTAssertEqual(FFmpegListener.frequency(Array(late.dropFirst(4410))), 440, accuracy: 9, "\(kind): the late listener")
            earlyDone.wait()
            let heard = try XCTUnwrap(early.value).get()
            XCTAssertGreaterThanOrEqual(heard.count, 44_100 * 24 / 10, "\(kind): the early listener decodes across the songs")
        }
    }

    func testMpvPlaysTheStream() throws {
        guard (try? TestProcess.which("mpv")) != nil else { throw XCTSkip("mpv is not installed: the stream is heard through ffmpeg only") }
        let folder = try TemporaryFolder("stream-mpv")
        for kind in StreamKinds.all {
            let rig = try StreamRig(kind)
            rig.player.play([try Tones.item(frequency: 440, seconds: 10)])
            try rig.waitUntilStreaming()
            let wav = folder.path("mpv-\(kind).wav")
            try TestProcess.runChecked("mpv", ["--no-video", "--no-config", "--really-quiet", "--ao=pcm", "--ao-pcm-file=\(wav)",
                                               "--length=2", "http://127.0.0.1:\(rig.port)/"])
            let decoded = try FFmpegListener.decode(wav, seconds: 2)
            XCTAssertEqual(FFmpegListener.frequency(Array(decoded.dropFirst(4410))), 440, accuracy: 9, "\(kind)")
        }
    }
}
