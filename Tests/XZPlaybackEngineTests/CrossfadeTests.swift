import Foundation
import XCTest
@testable import XZPlaybackEngine
import XZPlaybackValues
import XZTestSupport

/// Crossfade and MixRamp rendered through the player to `raw:`, checked sample by sample against the tones
/// that went in.
final class CrossfadeTests: XCTestCase {
    private static let rate = 44_100
    /// MPD fades only songs of 20 s or more.
    private static let seconds = 21
    private var folder: TemporaryFolder!
    /// 440 Hz, then 1000 Hz: over a 50 ms window each makes whole cycles.
    private var first: Tone!
    private var second: Tone!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("crossfade")
        first = try Tone.make(folder.path("first.flac"), frequency: 440, seconds: Self.seconds)
        second = try Tone.make(folder.path("second.flac"), frequency: 1000, seconds: Self.seconds)
    }

    func testCrossfadeOverlapsTheJoinWithEqualPowerGains() throws {
        let fade = 2 * Self.rate
        let render = try Render.run([item(first.path), item(second.path)], in: folder, before: { player in
            player.crossfade = CrossfadeSettings(seconds: 2)
        })
        let out = Reference.int16s(render.pcm)
        XCTAssertEqual(out.count / 2, first.frames + second.frames - fade, "a + b - 2 s")
        guard out.count / 2 == first.frames + second.frames - fade else { return }
        let start = first.frames - fade
        assertMix(out, from: start, frames: fade) { n in
            let angle = Double(n) * .pi / 2 / Double(fade)
            return Double(self.second.left(n)) * sin(angle) + Double(self.first.left(start + n)) * cos(angle)
        }
        // Each 50 ms window of the overlap holds both tones at cos and sin of the way through it.
        let window = Self.rate / 20
        for k in 0..<(fade / window) {
            let from = start + k * window
            let outgoing = amplitude(out, from: from, count: window, frequency: 440)
            let incoming = amplitude(out, from: from, count: window, frequency: 1000)
            let angle = (Double(k) + 0.5) * Double(window) * .pi / 2 / Double(fade)
            XCTAssertEqual(outgoing, 0.4 * cos(angle), accuracy: 0.005, "window \(k): 440 Hz")
            XCTAssertEqual(incoming, 0.4 * sin(angle), accuracy: 0.005, "window \(k): 1000 Hz")
            XCTAssertEqual(outgoing * outgoing + incoming * incoming, 0.16, accuracy: 0.004, "window \(k): equal power")
        }
        XCTAssertEqual(amplitude(out, from: start - window, count: window, frequency: 1000), 0, accuracy: 0.001, "before")
        XCTAssertEqual(amplitude(out, from: first.frames, count: window, frequency: 440), 0, accuracy: 0.001, "after")
        XCTAssertEqual(render.endings.map(\.reason), [.completed, .completed])
        XCTAssertTrue(render.errors.isEmpty, "\(render.errors)")
        // The first song ends (played through) before the second starts.
        let order = render.audioEvents.compactMap { event -> String? in
            switch event {
            case .started(let item, _): return "start " + item.path
            case .ended(let item, _, _): return "end " + item.path
            default: return nil
            }
        }
        XCTAssertEqual(order, ["start " + first.path, "end " + first.path, "start " + second.path, "end " + second.path])
    }

    func testNoFadeWithCrossfadeZeroShortSongsOrAnotherRate() throws {
        let plain = try Render.run([item(first.path), item(second.path)], in: folder)
        XCTAssertEqual(plain.pcm, first.pcm + second.pcm, "crossfade 0: the concatenation")
        // Under 20 s (MPD's floor) the songs join gaplessly whatever the setting.
        let short1 = try Tone.make(folder.path("short1.flac"), frequency: 440, seconds: 5)
        let short2 = try Tone.make(folder.path("short2.flac"), frequency: 1000, seconds: 5)
        let shortRender = try Render.run([item(short1.path), item(short2.path)], in: folder, before: { player in
            player.crossfade = CrossfadeSettings(seconds: 2)
        })
        XCTAssertEqual(shortRender.pcm, short1.pcm + short2.pcm, "short songs")
        // Another sample rate: no resampling to fade, each plays whole at its own rate.
        let other = try Tone.make(folder.path("other.flac"), frequency: 1000, seconds: Self.seconds, rate: 48_000)
        let mixed = try Render.run([item(first.path), item(other.path)], in: folder, before: { player in
            player.crossfade = CrossfadeSettings(seconds: 2)
        })
        XCTAssertEqual(mixed.pcm, first.pcm + other.pcm, "different rates")
    }

    func testSkipAlbumsKeepsAnAlbumInOrderGapless() throws {
        let settings = CrossfadeSettings(seconds: 2, skipsAlbums: true)
        let inOrder = [item(first.path, album: "Album", track: 1), item(second.path, album: "Album", track: 2)]
        let gapless = try Render.run(inOrder, in: folder, before: { player in player.crossfade = settings })
        XCTAssertEqual(gapless.pcm, first.pcm + second.pcm, "tracks 1 and 2 of one album")
        let skipping = [item(first.path, album: "Album", track: 1), item(second.path, album: "Album", track: 3)]
        let faded = try Render.run(skipping, in: folder, before: { player in player.crossfade = settings })
        XCTAssertEqual(faded.pcm.count / 4, first.frames + second.frames - 2 * Self.rate, "tracks 1 and 3 fade")
        let albums = [item(first.path, album: "One", track: 1), item(second.path, album: "Two", track: 2)]
        let twoAlbums = try Render.run(albums, in: folder, before: { player in player.crossfade = settings })
        XCTAssertEqual(twoAlbums.pcm.count / 4, first.frames + second.frames - 2 * Self.rate, "two albums fade")
    }

    func testOnSkipFadesOnlyWhenTheUserSkips() throws {
        let settings = CrossfadeSettings(seconds: 2, onlyOnSkip: true)
        let natural = try Render.run([item(first.path), item(second.path)], in: folder, before: { player in
            player.crossfade = settings
        })
        XCTAssertEqual(natural.pcm, first.pcm + second.pcm, "a song that ends joins the next gaplessly")

        // Paced to real time, so `next` comes while the first song plays.
        let out = folder.path("skip.raw")
        let log = EventLog()
        let player = Player(output: RawFileOutput(path: out, realtime: true), onEvent: { log.append($0) })
        player.crossfade = settings
        player.play([item(first.path), item(second.path)])
        XCTAssertTrue(log.wait { $0.contains(.position(ms: 750)) })
        player.next()
        XCTAssertTrue(log.wait { events in
            events.contains { if case .started(let item, _) = $0 { return item.path == self.second.path } else { return false } }
                && events.contains(.position(ms: 2_750))
        })
        player.stop()
        XCTAssertTrue(player.waitUntilFinished(timeout: 20))
        player.shutdown()
        let pcm = Reference.int16s(try Data(contentsOf: URL(fileURLWithPath: out)))
        guard case .ended(_, .skipped, let skippedMs)? = log.events.first(where: {
            if case .ended(let item, _, _) = $0 { return item.path == first.path } else { return false }
        }) else { return XCTFail("no skip: \(log.events)") }
        // The skip's place to the sample: where the second song's fade-in fits.
        let fade = 2 * Self.rate
        let near = skippedMs * Self.rate / 1000
        let skip = (near - 64 ... near + 64).first { s in
            pcm.count / 2 >= s + fade && (0..<fade).allSatisfy { n in
                let angle = Double(n) * .pi / 2 / Double(fade)
                let expected = Double(second.left(n)) * sin(angle) + Double(first.left(s + n)) * cos(angle)
                return abs(Double(pcm[2 * (s + n)]) - expected.rounded()) <= 1
            }
        }
        guard let skip else { return XCTFail("no fade of 2 s after the skip at \(skippedMs) ms") }
        XCTAssertTrue((0..<skip).allSatisfy { pcm[2 * $0] == first.left($0) }, "the first song up to the skip")
        let after = pcm.count / 2 - skip
        XCTAssertTrue((fade..<after).allSatisfy { pcm[2 * (skip + $0)] == second.left($0) }, "the second alone after the fade")
    }

    func testMixRampTagsPickTheOverlap() throws {
        // At -17 dB the end of the first reaches 2.4 s back and the start of the second 0.8 s in; less the 1 s delay.
        try TestProcess.runChecked("metaflac", ["--set-tag=MIXRAMP_END=-20.00 3.00;-15.00 2.00", first.path])
        try TestProcess.runChecked("metaflac", ["--set-tag=MIXRAMP_START=-20.00 0.50;-15.00 1.00", second.path])
        let ramp = try Render.run([item(first.path), item(second.path)], in: folder, before: { player in
            player.crossfade = CrossfadeSettings(seconds: 1, mixRampDB: -17, mixRampDelay: 1)
        })
        let overlap = Int(2.2 * Double(Self.rate))
        let out = Reference.int16s(ramp.pcm)
        XCTAssertEqual(out.count / 2, first.frames + second.frames - overlap, "2.2 s of overlap from the tags")
        guard out.count / 2 == first.frames + second.frames - overlap else { return }
        // MixRamp adds the songs at full level, as MPD.
        let start = first.frames - overlap
        assertMix(out, from: start, frames: overlap) { n in Double(self.second.left(n)) + Double(self.first.left(start + n)) }
        // `mixrampdelay nan` is the plain crossfade.
        let plain = try Render.run([item(first.path), item(second.path)], in: folder, before: { player in
            player.crossfade = CrossfadeSettings(seconds: 1, mixRampDB: -17, mixRampDelay: .nan)
        })
        XCTAssertEqual(plain.pcm.count / 4, first.frames + second.frames - Self.rate, "nan: the 1 s crossfade")
        // A delay longer than the tags' overlap: no overlap at all, as MPD.
        let none = try Render.run([item(first.path), item(second.path)], in: folder, before: { player in
            player.crossfade = CrossfadeSettings(seconds: 1, mixRampDB: -17, mixRampDelay: 4)
        })
        XCTAssertEqual(none.pcm.count / 4, first.frames + second.frames, "delay past the overlap")
    }

    func testMixRampInterpolationAsMPD() {
        let ramp = "-20.00 3.00;-15.00 2.00;-10.00 1.00"
        XCTAssertEqual(CrossfadeSettings.interpolate(ramp, requiredDB: -15), 2)
        XCTAssertEqual(CrossfadeSettings.interpolate(ramp, requiredDB: -17), 2.4, accuracy: 1e-9)
        XCTAssertEqual(CrossfadeSettings.interpolate(ramp, requiredDB: -30), 3, "quieter than any: the first")
        XCTAssertEqual(CrossfadeSettings.interpolate(ramp, requiredDB: -5), -1, "louder than any: none")
        XCTAssertEqual(CrossfadeSettings.interpolate("junk", requiredDB: -17), -1)
    }

    func testSettingsChangeReportsOptions() {
        var machine = PlayerStateMachine(seed: 1)
        machine.setCrossfade(CrossfadeSettings(seconds: 3))
        XCTAssertEqual(machine.takeChanges(), .options)
        machine.setCrossfade(CrossfadeSettings(seconds: 3, mixRampDelay: .nan))
        XCTAssertEqual(machine.takeChanges(), .options)
        machine.setCrossfade(CrossfadeSettings(seconds: 3, mixRampDelay: .nan))
        XCTAssertEqual(machine.takeChanges(), [], "nan twice is no change")
    }

    // MARK: Helpers

    private func item(_ path: String, album: String? = nil, track: Int? = nil) -> QueueItem {
        QueueItem(path: path, title: URL(fileURLWithPath: path).lastPathComponent, album: album, track: track)
    }

    /// The left channel of `out` from `start` is `expected(n)` rounded, within one step, for `frames` frames.
    private func assertMix(_ out: [Int16], from start: Int, frames: Int, _ expected: (Int) -> Double,
                           file: StaticString = #filePath, line: UInt = #line) {
        let clamp = { (value: Double) in min(max(value.rounded(), -32768), 32767) }
        let wrong = (0..<frames).first { abs(Double(out[2 * (start + $0)]) - clamp(expected($0))) > 1 }
        XCTAssertNil(wrong, "the mix differs at frame \(wrong ?? 0) of the overlap", file: file, line: line)
    }

    /// The amplitude (full scale 1) of `frequency` in the left channel over `count` frames.
    private func amplitude(_ out: [Int16], from start: Int, count: Int, frequency: Double) -> Double {
        var re = 0.0, im = 0.0
        for n in 0..<count {
            let value = Double(out[2 * (start + n)]) / 32768
            let angle = 2 * .pi * frequency * Double(n) / Double(Self.rate)
            re += value * cos(angle)
            im -= value * sin(angle)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(count)
    }
}

/// A sine tone at 0.4 of full scale, as FLAC, and its samples as sox decodes them.
private struct Tone {
    let path: String
    let pcm: Data
    let samples: [Int16]

    var frames: Int { samples.count / 2 }
    func left(_ frame: Int) -> Int16 { samples[2 * frame] }

    static func make(_ path: String, frequency: Int, seconds: Int, rate: Int = 44_100) throws -> Tone {
        try TestProcess.runChecked("sox", ["-n", "-r", "\(rate)", "-c", "2", "-b", "16", path,
                                           "synth", "\(seconds)", "sine", "\(frequency)", "vol", "0.4"])
        let decoded = try TestProcess.run("sox", [path, "-t", "raw", "-e", "signed", "-b", "16", "-L", "-"])
        guard decoded.status == 0 else { throw TestFailure("sox could not decode \(path): \(decoded.stderr)") }
        return Tone(path: path, pcm: decoded.stdoutData, samples: Reference.int16s(decoded.stdoutData))
    }
}
