import XZSystem
import XZAudio
import XZPlaybackValues

/// One output of a set as `outputs` shows it: MPD's name and plugin for it, and the output itself.
package struct NamedOutput: Sendable {
    package let name: String
    package let plugin: String
    package let output: AudioOutput
    /// Enabled when the host starts (`enabled "no"` in its block: off until a client enables it).
    package let enabled: Bool

    package init(name: String, plugin: String, output: AudioOutput, enabled: Bool = true) {
        self.name = name
        self.plugin = plugin
        self.output = output
        self.enabled = enabled
    }
}

/// Several outputs the player writes to as one, as MPD's audio outputs: each enabled one gets the PCM in
/// the layout it asks for (converted where it differs from the set's). Command threads switch outputs
/// with `setEnabled`, which only records the wish; the audio thread opens or closes them at its next
/// write, so a slow device never holds a command. An output that fails is disabled with a notice and the
/// others go on. A live sound card among the open outputs paces the player; otherwise the player's clock does.
// Sendable by hand: everything but `wanted` and `failureListener` (both in a Mutex) is the audio thread's alone.
package final class OutputSet: AudioOutput, @unchecked Sendable {
    package let members: [NamedOutput]
    private let wanted: Mutex<[Bool]>
    /// What the set tells its owner from the audio thread.
    package enum Event: Sendable, Equatable {
        /// Output `index` failed and was disabled; `message` says why.
        case failed(index: Int, message: String)
        /// Audio came while every output is off (music went on after the last was disabled): MPD pauses.
        case everyOutputOff
    }

    private let listener = Mutex<(@Sendable (Event) -> Void)?>(nil)

    // The audio thread's.
    private var format: AudioFormat?
    /// Each member's open layout, nil while it is closed.
    private var opened: [AudioFormat?]
    private var scratch: UnsafeMutableRawBufferPointer?
    private var notices: [String] = []
    private var lastFailure: String?

    package init(_ members: [NamedOutput]) {
        self.members = members
        wanted = Mutex(members.map(\.enabled))
        opened = Array(repeating: nil, count: members.count)
    }

    deinit {
        close()
        scratch?.deallocate()
    }

    // MARK: Choosing, from any thread

    /// Which outputs are enabled, in the set's order.
    package var enabled: [Bool] { wanted.withLock { $0 } }

    /// Enables or disables output `index`; false when there is no such output. Takes effect at the next write.
    @discardableResult
    package func setEnabled(_ index: Int, _ enable: Bool) -> Bool {
        wanted.withLock { wanted in
            guard wanted.indices.contains(index) else { return false }
            wanted[index] = enable
            return true
        }
    }

    /// Switches output `index` to `next(enabled)` in one step; nil when there is no such output, else
    /// whether it was on, is on now, and whether any output is on.
    package func switchOutput(_ index: Int, _ next: (Bool) -> Bool) -> (was: Bool, now: Bool, anyOn: Bool)? {
        wanted.withLock { wanted in
            guard wanted.indices.contains(index) else { return nil }
            let was = wanted[index]
            wanted[index] = next(was)
            return (was, wanted[index], wanted.contains(true))
        }
    }

    /// Hears the set's events, on the audio thread.
    package func onEvent(_ listener: @escaping @Sendable (Event) -> Void) {
        self.listener.withLock { $0 = listener }
    }

    // MARK: AudioOutput, on the audio thread

    /// With every output off it opens nothing and writes tell `everyOutputOff`: the owner pauses,
    /// as MPD's `play` with every output disabled leaves the player paused.
    package func open(format newFormat: AudioFormat) throws {
        format = newFormat
        let wish = wanted.withLock { $0 }
        follow(wish)
        // Every enabled output failed: the set cannot play either.
        guard !wish.contains(true) || opened.contains(where: { $0 != nil }) else {
            throw PlaybackError.outputFailed("no audio output could be opened" + (lastFailure.map { ": " + $0 } ?? ""))
        }
    }

    package func write(_ pcm: UnsafeRawBufferPointer) throws {
        guard let format else { throw PlaybackError.outputFailed("the outputs are not open") }
        let wish = wanted.withLock { $0 }
        follow(wish)
        // Told at each write, whatever brought the music on (play, resume, a restore), until the owner pauses it.
        if !wish.contains(true) { listener.withLock { $0 }?(.everyOutputOff) }
        guard let source = pcm.baseAddress, pcm.count > 0 else { return }
        let samples = pcm.count / format.sample.bytes
        for index in members.indices {
            guard let layout = opened[index] else { continue }
            do {
                if layout.sample == format.sample {
                    try members[index].output.write(pcm)
                } else {
                    let bytes = samples * layout.sample.bytes
                    let target = scratchBuffer(bytes)
                    PCMConversion.convert(source, format.sample, samples: samples, into: target.baseAddress!,
                                          layout.sample, volume: 100, scale: 1)
                    try members[index].output.write(UnsafeRawBufferPointer(rebasing: target[0..<bytes]))
                }
            } catch {
                fail(index, error)
            }
        }
        // With every output off the audio goes nowhere, paced by the player, until its owner pauses it.
    }

    package func close() {
        closeAll()
        format = nil
    }

    package func outputFormat(for source: AudioFormat) -> AudioFormat {
        source.with(sample: source.sample == .s16 ? .s16 : .s32)
    }

    package var needsPacing: Bool { !pacedByDevice }
    package var isLive: Bool { pacedByDevice }

    package var bufferedFrames: Int {
        var most = 0
        for index in members.indices where opened[index] != nil {
            most = max(most, members[index].output.bufferedFrames)
        }
        return most
    }

    package func takeNotices() -> [String] {
        var all = notices
        notices = []
        for index in members.indices where opened[index] != nil { all += members[index].output.takeNotices() }
        return all
    }

    package func prepare() {
        for member in members { member.output.prepare() }
    }

    package func songStarted(title: String?, artist: String?, album: String?) {
        for member in members { member.output.songStarted(title: title, artist: artist, album: album) }
    }

    package func pauseChanged(_ paused: Bool) {
        for member in members { member.output.pauseChanged(paused) }
    }

    // MARK: Following the wish

    /// A sound card that blocks until it has room is the clock; files and the null output are not.
    private var pacedByDevice: Bool {
        members.indices.contains { opened[$0] != nil && members[$0].output.isLive && !members[$0].output.needsPacing }
    }

    /// Opens the outputs wished on (in the set's current layout) and closes those wished off.
    private func follow(_ wish: [Bool]) {
        for index in members.indices {
            if !wish[index] {
                if opened[index] != nil {
                    members[index].output.disable()
                    opened[index] = nil
                }
                continue
            }
            guard let format else { continue }
            let layout = members[index].output.outputFormat(for: format)
            guard opened[index] != layout else { continue }
            do {
                try members[index].output.open(format: layout)
                opened[index] = layout
                notices += members[index].output.takeNotices()
            } catch {
                fail(index, error)
            }
        }
    }

    private func fail(_ index: Int, _ error: Error) {
        members[index].output.disable()
        opened[index] = nil
        setEnabled(index, false)
        let message = "audio output \"\(members[index].name)\" (\(members[index].plugin)) disabled: \(error)"
        lastFailure = message
        // One line: told by the owner that listens, else among the player's notices.
        if let listener = listener.withLock({ $0 }) {
            listener(.failed(index: index, message: message))
        } else {
            notices.append(message)
        }
    }

    private func closeAll() {
        for index in members.indices where opened[index] != nil {
            members[index].output.close()
            opened[index] = nil
        }
    }

    /// A buffer for one converted write, grown (never shrunk) to the largest write seen.
    private func scratchBuffer(_ bytes: Int) -> UnsafeMutableRawBufferPointer {
        if let scratch, scratch.count >= bytes { return scratch }
        scratch?.deallocate()
        let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 16)
        scratch = grown
        return grown
    }
}
