import Foundation
import XZSystem
import SystemPackage
import XZPlayback
import XZText
#if canImport(Glibc)
import Glibc
#endif

/// All terminal output goes through here. Lines that arrive while the user types at the REPL prompt
/// (lyrics, download progress, track changes) are handed to the line editor, which prints them above
/// the prompt and redraws what was typed.
public final class Console: Sendable {
    public static let shared = Console()

    /// The line editor's sink while it waits at the prompt, which receives asynchronous lines. Held
    /// while writing, so that lines from different threads never interleave.
    private let output = Mutex<(@Sendable (String) -> Void)?>(nil)

    public let stdoutIsTTY = isatty(STDOUT_FILENO) == 1
    public let stderrIsTTY = isatty(STDERR_FILENO) == 1

    /// Colour only on a terminal and never with NO_COLOR.
    public var colorEnabled: Bool {
        stdoutIsTTY && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }

    public func line(_ text: String = "") {
        output.withLock { _ in write(STDOUT_FILENO, text + "\n") }
    }

    /// Several lines in one write, so that a line from a background activity cannot land among them.
    public func lines(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        line(lines.joined(separator: "\n"))
    }

    /// Text handed over piece by piece and written as it comes; no background line lands among the pieces.
    public func stream<Failure: Error>(_ produce: (@escaping (String) -> Void) throws(Failure) -> Void) throws(Failure) {
        try output.withLock { (_) throws(Failure) in try produce { self.write(STDOUT_FILENO, $0) } }
    }

    public func error(_ text: String) {
        output.withLock { _ in
            // The player silences fd 2 for a moment while libao probes drivers.
            StderrSilencer.outsideSilence { write(STDERR_FILENO, text + "\n") }
        }
    }

    /// Progress that redraws itself on one stderr line (TTY only).
    public func status(_ text: String) {
        guard stderrIsTTY else { return }
        output.withLock { _ in write(STDERR_FILENO, "\r\u{1B}[2K" + text) }
    }

    public func clearStatus() {
        guard stderrIsTTY else { return }
        output.withLock { _ in write(STDERR_FILENO, "\r\u{1B}[2K") }
    }

    /// A line from a background activity: above the prompt when the user is typing, else plain.
    /// Above the prompt it is broken into lines that fit the terminal: a line the terminal wraps itself
    /// would garble the redraw, and a cut one would lose the end of an error.
    public func announce(_ text: String) {
        output.withLock { sink in
            if let sink {
                Format.wrap(text, width: width - 1).forEach(sink)
            } else {
                write(STDOUT_FILENO, text + "\n")
            }
        }
    }

    func setPromptSink(_ sink: (@Sendable (String) -> Void)?) {
        output.withLock { $0 = sink }
    }

    public func styled(_ text: String, _ code: String) -> String {
        colorEnabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// Terminal width, or 100 when output is not a terminal.
    public var width: Int {
        var size = winsize()
        if stdoutIsTTY, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 {
            return Int(size.ws_col)
        }
        return 100
    }

    private func write(_ fd: Int32, _ text: String) {
        // A terminal or pipe that is gone leaves nowhere to report the failure to.
        _ = try? FileDescriptor(rawValue: fd).writeAll(text.utf8)
    }
}

extension String {
    /// Outside text made safe for the terminal.
    var safe: String { TerminalText.sanitize(self) }
}
