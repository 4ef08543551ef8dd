import Foundation
import XZSystem
import XZAudio
import XZPlaybackValues
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MPD's `fifo` output: signed 16-bit PCM into a named pipe (made when missing), for a visualiser or
/// snapcast to read. As MPD's, it holds a reading end of its own, so opening never waits for a reader
/// and a full pipe is emptied rather than waited on: the player is never held by a reader that is slow or gone.
package final class FifoOutput: AudioOutput {
    private struct Ends: Sendable {
        var reader: Int32 = -1
        var writer: Int32 = -1
    }

    package let path: String
    /// MPD's `format` as the reader expects it (snapserver's `sampleformat`): songs at another rate or with
    /// other channels are not written, as the reader would play them at the wrong speed. Nil: every song as it is.
    package let readerFormat: (sampleRate: Int, channels: Int)?
    package var needsPacing: Bool { true }
    package var bufferedFrames: Int { 0 }
    private let ends = Mutex(Ends())
    /// The audio thread's: the open song's format differs from `readerFormat`.
    private let skipping = Mutex<(skips: Bool, notice: String?)>((false, nil))

    package init(path: String, readerFormat: (sampleRate: Int, channels: Int)? = nil) {
        self.path = path
        self.readerFormat = readerFormat
    }

    /// MPD's `format` of a fifo output, `RATE:16:CHANNELS` (the pipe is always 16-bit); nil when it is not one.
    package static func readerFormat(parsing text: String) -> (sampleRate: Int, channels: Int)? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, let rate = Int(fields[0]), (1...384_000).contains(rate), fields[1] == "16",
              let channels = Int(fields[2]), (1...8).contains(channels) else { return nil }
        return (rate, channels)
    }

    package func takeNotices() -> [String] {
        skipping.withLock { state in
            defer { state.notice = nil }
            return state.notice.map { [$0] } ?? []
        }
    }

    deinit { close() }

    package func outputFormat(for source: AudioFormat) -> AudioFormat { source.with(sample: .s16) }

    package func open(format: AudioFormat) throws {
        if let readerFormat {
            let skips = format.sampleRate != readerFormat.sampleRate || format.channels != readerFormat.channels
            skipping.withLock { state in
                state.notice = skips && !state.skips
                    ? "fifo \(path): a song of \(format.sampleRate) Hz, \(format.channels) channels is not written: its reader takes \(readerFormat.sampleRate):16:\(readerFormat.channels)"
                    : nil
                state.skips = skips
            }
        }
        try ends.withLock { ends throws(PlaybackError) in
            guard ends.writer < 0 else { return }
            var info = stat()
            if lstat(path, &info) != 0 {
                guard errno == ENOENT, mkfifo(path, 0o666) == 0 else { throw failure("cannot make the FIFO") }
            } else if info.st_mode & S_IFMT != S_IFIFO {
                throw PlaybackError.outputFailed("\(path) exists and is not a FIFO")
            }
            let reader = posixOpen(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard reader >= 0 else { throw failure("cannot open the FIFO") }
            let writer = posixOpen(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            guard writer >= 0 else {
                let error = failure("cannot open the FIFO for writing")
                posixClose(reader)
                throw error
            }
            ends = Ends(reader: reader, writer: writer)
        }
    }

    package func write(_ pcm: UnsafeRawBufferPointer) throws {
        let (reader, writer) = ends.withLock { ($0.reader, $0.writer) }
        guard writer >= 0, var rest = pcm.baseAddress else { throw PlaybackError.outputFailed("fifo output \(path) is not open") }
        if skipping.withLock({ $0.skips }) { return }
        var left = pcm.count
        var discard = [UInt8](repeating: 0, count: 0)
        while left > 0 {
            let written = Glibc.write(writer, rest, left)
            if written > 0 {
                rest += written
                left -= written
                continue
            }
            if written < 0, errno == EINTR { continue }
            guard written < 0, errno == EAGAIN else { throw failure("cannot write to the FIFO") }
            // Nobody reads fast enough: what waits in the pipe is dropped, as MPD drops it.
            if discard.isEmpty { discard = [UInt8](repeating: 0, count: 65536) }
            let drained = discard.withUnsafeMutableBytes { Glibc.read(reader, $0.baseAddress, $0.count) }
            if drained <= 0, errno != EAGAIN, errno != EINTR { throw failure("cannot empty the FIFO") }
        }
    }

    package func close() {
        ends.withLock { ends in
            if ends.writer >= 0 { posixClose(ends.writer) }
            if ends.reader >= 0 { posixClose(ends.reader) }
            ends = Ends()
        }
    }

    private func failure(_ what: String) -> PlaybackError {
        PlaybackError.outputFailed("\(what) \(path): " + String(cString: strerror(errno)))
    }
}

extension OutputType {
    /// MPD's `fifo` output: its `path`, made when missing.
    package static let fifo = OutputType("fifo", keys: [Key("path", .path(orNone: false)), Key("format", .text(allowsEmpty: false))]) { block in
        let path = try block.required("path")
        guard let text = block.text("format") else { return FifoOutput(path: path) }
        guard let format = FifoOutput.readerFormat(parsing: text) else {
            throw block.error("format", "format must be RATE:16:CHANNELS (the pipe's PCM is 16-bit), not \"\(text.prefix(40))\"")
        }
        return FifoOutput(path: path, readerFormat: format)
    }
}
