import Foundation
import XZSystem
import XZText
#if canImport(Glibc)
import Glibc
#endif

/// All terminal output goes through here. Lines that arrive while the user types at the REPL prompt
/// (lyrics, download progress, track changes) are handed to the line editor, which prints them above
/// the prompt and redraws what was typed.
package final class Console: Sendable {
    package static let shared = Console()

    /// Where lines go, held while writing so that lines from different threads never interleave.
    private let output = Mutex(Output())

    private struct Output {
        /// The line editor's sink while it waits at the prompt, which receives asynchronous lines.
        var sink: (@Sendable (String) -> Void)?
        /// A write found the terminal (or the pipe) gone: nothing is written any more.
        var lost = false
        /// Told once, outside the lock, when that happens (the prompt leaves).
        var onLoss: (@Sendable () -> Void)?
    }

    package let stdoutIsTTY = isatty(STDOUT_FILENO) == 1
    package let stderrIsTTY = isatty(STDERR_FILENO) == 1

    /// Colour only on a terminal and never with NO_COLOR.
    package var colorEnabled: Bool {
        stdoutIsTTY && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }

    package func line(_ text: String = "") {
        writing { write(STDOUT_FILENO, text + "\n", &$0.lost) }
    }

    /// Several lines in one write, so that a line from a background activity cannot land among them.
    package func lines(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        line(lines.joined(separator: "\n"))
    }

    /// Text handed over piece by piece and written as it comes; no background line lands among the pieces.
    package func stream<Failure: Error>(_ produce: (@escaping (String) -> Void) throws(Failure) -> Void) throws(Failure) {
        var lostNow = false
        defer { if lostNow { tellLoss() } }
        try output.withLock { (output) throws(Failure) in
            var lost = output.lost
            defer {
                lostNow = !output.lost && lost
                output.lost = lost
            }
            try produce { self.write(STDOUT_FILENO, $0, &lost) }
        }
    }

    package func error(_ text: String) {
        writing { output in
            // The player silences fd 2 for a moment while libao probes drivers.
            StderrSilencer.outsideSilence { write(STDERR_FILENO, text + "\n", &output.lost) }
        }
    }

    /// Progress that redraws itself on one stderr line (TTY only).
    package func status(_ text: String) {
        guard stderrIsTTY else { return }
        writing { write(STDERR_FILENO, "\r\u{1B}[2K" + text, &$0.lost) }
    }

    package func clearStatus() {
        guard stderrIsTTY else { return }
        writing { write(STDERR_FILENO, "\r\u{1B}[2K", &$0.lost) }
    }

    /// A line from a background activity: above the prompt when the user is typing, else plain.
    /// Above the prompt it is broken into lines that fit the terminal: a line the terminal wraps itself
    /// would garble the redraw, and a cut one would lose the end of an error.
    package func announce(_ text: String) {
        writing { output in
            if let sink = output.sink {
                Format.wrap(text, width: width - 1).forEach(sink)
            } else {
                write(STDOUT_FILENO, text + "\n", &output.lost)
            }
        }
    }

    func setPromptSink(_ sink: (@Sendable (String) -> Void)?) {
        output.withLock { $0.sink = sink }
    }

    /// `handler` runs once, on the thread whose write failed, when the terminal or the pipe written to is
    /// gone; from then on nothing is written. Without one a failed write is only dropped.
    func onLoss(_ handler: @escaping @Sendable () -> Void) {
        output.withLock { $0.onLoss = handler }
    }

    /// Tells that the terminal is gone: for the line editor, which reads it.
    func lose() {
        let first = output.withLock { output in
            defer { output.lost = true }
            return !output.lost
        }
        if first { tellLoss() }
    }

    /// Runs `body` under the lock; a loss it caused is told after the lock is let go, so that the handler
    /// may print (its lines are dropped) without waiting on itself.
    private func writing(_ body: (inout Output) -> Void) {
        let lostNow = output.withLock { output in
            let wasLost = output.lost
            body(&output)
            return !wasLost && output.lost
        }
        if lostNow { tellLoss() }
    }

    private func tellLoss() {
        output.withLock { $0.onLoss }?()
    }

    package func styled(_ text: String, _ code: String) -> String {
        colorEnabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// Terminal width, or 100 when output is not a terminal.
    package var width: Int {
        var size = winsize()
        if stdoutIsTTY, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 {
            return Int(size.ws_col)
        }
        return 100
    }

    /// Writes all of `text`, or drops it. A terminal or pipe that is gone (EIO, EPIPE, ENXIO) marks the
    /// output lost: a failed write is never retried.
    private func write(_ fd: Int32, _ text: String, _ lost: inout Bool) {
        guard !lost else { return }
        var failure: Int32 = 0
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if count > 0 {
                    offset += count
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    // A write of nothing would be asked again for ever: as final as an error.
                    failure = count < 0 ? errno : EIO
                    return
                }
            }
        }
        if [EIO, EPIPE, ENXIO].contains(failure) { lost = true }
    }
}

extension String {
    /// Outside text made safe for the terminal.
    var safe: String { TerminalText.sanitize(self) }
}
