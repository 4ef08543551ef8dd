import Foundation
import XCTest
import XZAudio
import XZPlaybackEngine
import XZPlaybackValues
import XZSystem

/// The set the player writes to when the config has several outputs: each enabled output gets the PCM in its
/// own layout, switches take effect at the next write, a failing output is dropped while the others go on.
final class OutputSetTests: XCTestCase {
    private let deep = AudioFormat(sampleRate: 44_100, channels: 2, sample: .s32, bits: 24)

    func testEachOutputGetsThePCMInTheLayoutItAsksFor() throws {
        let wide = KeptOutput()
        let narrow = KeptOutput(sample: .s16)
        let set = OutputSet([NamedOutput(name: "wide", plugin: "null", output: wide),
                             NamedOutput(name: "narrow", plugin: "recorder", output: narrow)])
        let format = set.outputFormat(for: deep)
        XCTAssertEqual(format.sample, .s32)
        try set.open(format: format)
        try write(set, [Int32(0x4000_0000), -0x4000_0000, Int32.max, 0])
        XCTAssertEqual(wide.state.withLock { $0.opened }.last?.sample, .s32)
        XCTAssertEqual(narrow.state.withLock { $0.opened }.last?.sample, .s16)
        XCTAssertEqual(wide.samples(Int32.self), [0x4000_0000, -0x4000_0000, Int32.max, 0])
        XCTAssertEqual(narrow.samples(Int16.self), [0x4000, -0x4000, Int16.max, 0])
    }

    func testASwitchFromAnotherThreadTakesEffectAtTheNextWrite() throws {
        let first = KeptOutput()
        let second = KeptOutput()
        let set = OutputSet([NamedOutput(name: "first", plugin: "null", output: first),
                             NamedOutput(name: "second", plugin: "null", output: second, enabled: false)])
        try set.open(format: deep)
        XCTAssertEqual(second.state.withLock { $0.opened }.count, 0, "an output off at start stays closed")
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            XCTAssertTrue(set.setEnabled(1, true))
            XCTAssertTrue(set.setEnabled(0, false))
            XCTAssertFalse(set.setEnabled(2, true), "no output 2")
            done.signal()
        }
        done.wait()
        XCTAssertEqual(second.state.withLock { $0.opened }.count, 0, "opened by the audio thread, not the command")
        try write(set, [1, 2])
        XCTAssertEqual(first.samples(Int32.self), [])
        XCTAssertTrue(first.state.withLock { $0.closed } > 0)
        XCTAssertEqual(second.samples(Int32.self), [1, 2])
        XCTAssertEqual(set.enabled, [false, true])
    }

    func testAFailingOutputIsDisabledWithANoticeAndTheOthersGoOn() throws {
        let failing = KeptOutput(failing: true)
        let working = KeptOutput()
        let set = OutputSet([NamedOutput(name: "Kitchen", plugin: "alsa", output: failing),
                             NamedOutput(name: "Null Output", plugin: "null", output: working)])
        let heard = Mutex<[OutputSet.Event]>([])
        set.onEvent { event in heard.withLock { $0.append(event) } }
        try set.open(format: deep)
        try write(set, [5, 6])
        try write(set, [7, 8])
        XCTAssertEqual(working.samples(Int32.self), [5, 6, 7, 8])
        XCTAssertEqual(set.enabled, [false, true])
        let notice = "audio output \"Kitchen\" (alsa) disabled: the device is gone"
        XCTAssertEqual(heard.withLock { $0 }, [.failed(index: 0, message: notice)])
        XCTAssertEqual(set.takeNotices(), [], "told once, to the owner that listens")

        // A set nobody listens to tells it among the player's notices.
        let unheard = OutputSet([NamedOutput(name: "Kitchen", plugin: "alsa", output: KeptOutput(failing: true))])
        try unheard.open(format: deep)
        try write(unheard, [5, 6])
        XCTAssertEqual(unheard.takeNotices(), [notice])
    }

    func testWithEveryOutputFailingTheSetCannotOpen() {
        let set = OutputSet([NamedOutput(name: "Kitchen", plugin: "alsa", output: KeptOutput(failingOpen: true))])
        XCTAssertThrowsError(try set.open(format: deep)) { error in
            XCTAssertEqual("\(error)", "no audio output could be opened: audio output \"Kitchen\" (alsa) disabled: no such device")
            XCTAssertTrue(PlaybackError.outputFailed ~= error)
        }
    }

    func testALiveOutputPacesThePlayerOnlyWhileItIsOpen() throws {
        let card = KeptOutput(live: true)
        let set = OutputSet([NamedOutput(name: "card", plugin: "alsa", output: card),
                             NamedOutput(name: "file", plugin: "recorder", output: KeptOutput())])
        try set.open(format: deep)
        XCTAssertFalse(set.needsPacing)
        XCTAssertTrue(set.isLive)
        set.setEnabled(0, false)
        try write(set, [1, 2])
        XCTAssertTrue(set.needsPacing, "files alone: the player's clock paces")
        XCTAssertFalse(set.isLive)
    }

    func testAudioWithEveryOutputOffIsToldAtEachWrite() throws {
        let output = KeptOutput()
        let set = OutputSet([NamedOutput(name: "only", plugin: "null", output: output)])
        let heard = Mutex<[OutputSet.Event]>([])
        set.onEvent { event in heard.withLock { $0.append(event) } }
        set.setEnabled(0, false)
        try set.open(format: deep)
        try write(set, [1, 2])
        try write(set, [3, 4])
        XCTAssertEqual(heard.withLock { $0 }, [.everyOutputOff, .everyOutputOff], "an open with every output off is no failure")
        XCTAssertEqual(output.samples(Int32.self), [])
        set.setEnabled(0, true)
        try write(set, [5, 6])
        set.setEnabled(0, false)
        try write(set, [7, 8])
        XCTAssertEqual(heard.withLock { $0 }, [.everyOutputOff, .everyOutputOff, .everyOutputOff])
        XCTAssertEqual(output.samples(Int32.self), [5, 6])
    }

    func testSongsAndPausesReachEveryOutput() {
        let outputs = [KeptOutput(), KeptOutput()]
        let set = OutputSet(outputs.enumerated().map { NamedOutput(name: "\($0)", plugin: "null", output: $1, enabled: $0 == 0) })
        set.songStarted(title: "晴天", artist: "周杰伦", album: nil)
        set.pauseChanged(true)
        for output in outputs {
            XCTAssertEqual(output.state.withLock { $0.told }, ["晴天 周杰伦", "paused true"])
        }
    }

    private func write(_ set: OutputSet, _ samples: [Int32]) throws {
        try samples.withUnsafeBytes { try set.write($0) }
    }
}

/// Keeps what it was given; `failing` throws at every write, as a device pulled out.
private final class KeptOutput: AudioOutput, Sendable {
    struct State {
        var opened: [AudioFormat] = []
        var closed = 0
        var bytes: [UInt8] = []
        var told: [String] = []
    }

    let state = Mutex(State())
    private let sample: SampleFormat?
    private let failing: Bool
    private let live: Bool

    private let failingOpen: Bool

    init(sample: SampleFormat? = nil, failing: Bool = false, failingOpen: Bool = false, live: Bool = false) {
        self.sample = sample
        self.failingOpen = failingOpen
        self.failing = failing
        self.live = live
    }

    func outputFormat(for source: AudioFormat) -> AudioFormat { source.with(sample: sample ?? .s32) }
    func open(format: AudioFormat) throws {
        if failingOpen { throw PlaybackError.outputFailed("no such device") }
        state.withLock { $0.opened.append(format) }
    }
    func write(_ pcm: UnsafeRawBufferPointer) throws {
        if failing { throw PlaybackError.outputFailed("the device is gone") }
        state.withLock { $0.bytes += pcm }
    }
    func close() { state.withLock { $0.closed += 1 } }
    var needsPacing: Bool { !live }
    var isLive: Bool { live }
    var bufferedFrames: Int { 0 }
    func songStarted(title: String?, artist: String?, album: String?) {
        state.withLock { $0.told.append("\(title ?? "") \(artist ?? "")") }
    }
    func pauseChanged(_ paused: Bool) { state.withLock { $0.told.append("paused \(paused)") } }

    func samples<Sample: FixedWidthInteger>(_: Sample.Type) -> [Sample] {
        state.withLock { state in
            state.bytes.withUnsafeBytes { Array($0.bindMemory(to: Sample.self)) }
        }
    }
}
