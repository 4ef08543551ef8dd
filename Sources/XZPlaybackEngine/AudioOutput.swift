import Foundation
import XZSystem
import SystemPackage
import XZAudio
import XZPlaybackValues
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A sink for native-endian interleaved PCM in the layout `outputFormat(for:)` asks for. Used from the
/// audio thread only; Sendable so that the player can hand it to that thread.
///
/// `open(format:)` is called before the first write and again whenever the format changes; the output
/// stays open across tracks of the same format (gapless). An output that cannot take a new format
/// while open throws `PlaybackError.outputFormatRefused` and the player fails that track alone; any other
/// error from `open` or `write` means the output is unusable and stops the queue.
package protocol AudioOutput: AnyObject, Sendable {
    func open(format: AudioFormat) throws
    /// What this output takes for a track in `source`'s format: the same rate and channels, 16-bit for a
    /// 16-bit source, 32-bit for deeper and float ones.
    func outputFormat(for source: AudioFormat) -> AudioFormat
    func write(_ pcm: UnsafeRawBufferPointer) throws
    /// Releases the device or finishes the file; a later `open` starts again.
    func close()
    /// Switched off by the user (`disableoutput`) or after a failure: `close`, and a stream kept on at stop
    /// (`always_on`) lets its listeners go too, as MPD's disable does.
    func disable()
    /// True when writes return at once (null driver, files) and the player must pace them to real time.
    var needsPacing: Bool { get }
    /// Frames written but not yet heard; the player subtracts them from the position.
    var bufferedFrames: Int { get }
    /// True for a sound card: writes block until it has room, so small chunks keep commands quick.
    var isLive: Bool { get }
    /// Messages for the user produced by the last `open` (e.g. a fallback); each is returned once.
    func takeNotices() -> [String]
    /// Does slow one-time set-up ahead of the first `open`, while the player waits anyway (a stream connecting).
    func prepare()
    /// The song now starting to play: a stream output shows its title to listeners.
    func songStarted(title: String?, artist: String?, album: String?)
    /// The player paused (true) or went on (false); a stream output kept on sends silence meanwhile.
    func pauseChanged(_ paused: Bool)
}

extension AudioOutput {
    package func outputFormat(for source: AudioFormat) -> AudioFormat {
        source.with(sample: source.sample == .s16 ? .s16 : .s32)
    }

    package func takeNotices() -> [String] { [] }
    package func prepare() {}
    package func disable() { close() }
    package var isLive: Bool { false }
    package func songStarted(title: String?, artist: String?, album: String?) {}
    package func pauseChanged(_ paused: Bool) {}
}

/// Raw PCM written straight to a file, always signed 16-bit (the bytes `mpg123 -s` writes). The file is truncated by the first open of this instance and
/// appended to after that, so stop/play in one session keeps everything. A format change is written
/// as is (the file then mixes formats); there is no header to disagree with.
package final class RawFileOutput: AudioOutput {
    private struct File: Sendable {
        var fd: Int32 = -1
        var openedBefore = false
    }

    package let path: String
    package let needsPacing: Bool
    package var bufferedFrames: Int { 0 }
    private let file = Mutex(File())

    package init(path: String, realtime: Bool = false) {
        self.path = path
        self.needsPacing = realtime
    }

    package func outputFormat(for source: AudioFormat) -> AudioFormat { source.with(sample: .s16) }

    deinit { close() }

    package func open(format: AudioFormat) throws {
        try file.withLock { file throws(PlaybackError) in
            guard file.fd < 0 else { return }
            // Non-blocking, so a FIFO nobody reads fails here (ENXIO) and a full one fails its write,
            // rather than holding the audio thread and every other output with it.
            let flags = O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC | (file.openedBefore ? O_APPEND : O_TRUNC)
            let opened = posixOpen(path, flags, 0o644)
            guard opened >= 0 else { throw PlaybackError.outputFailed("cannot open \(path) for writing: " + unwritableReason(errno)) }
            file.fd = opened
            file.openedBefore = true
        }
    }

    package func write(_ pcm: UnsafeRawBufferPointer) throws {
        let fd = file.withLock { $0.fd }
        guard fd >= 0 else { throw PlaybackError.outputFailed("raw output \(path) is not open") }
        do {
            try FileDescriptor(rawValue: fd).writeAll(pcm)
        } catch let error as Errno {
            throw PlaybackError.outputFailed("cannot write to \(path): " + unwritableReason(error.rawValue))
        }
    }

    package func close() {
        file.withLock { file in
            if file.fd >= 0 { _ = posixClose(file.fd) }
            file.fd = -1
        }
    }
}

// File-scope wrappers: inside the output classes `open`, `write` and `close` name the methods.
func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 { open(path, flags, mode) }
@discardableResult func posixClose(_ fd: Int32) -> Int32 { close(fd) }

/// Why a file opened non-blocking cannot be written, in the words of what happened: a FIFO without a
/// reader, or one whose reader does not keep up, rather than errno's.
package func unwritableReason(_ code: Int32) -> String {
    switch code {
    case ENXIO: return "it is a FIFO nobody reads"
    case EAGAIN: return "nobody reads it fast enough"
    default: return String(cString: strerror(code))
    }
}
