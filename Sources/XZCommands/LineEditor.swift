import CEditLine
import Foundation
import XZSystem
#if canImport(Glibc)
import Glibc
#endif

/// libedit on a terminal, through its callback interface so that the loop can also wake for lines
/// printed by background work and for Ctrl-C. One instance at a time; libedit's state is global, and
/// only the main thread drives it (a signal handler resets it just before the program leaves); other
/// threads only queue lines and wake the loop.
final class LineEditor: Sendable {
    private let prompt: String
    private let historyPath: String
    private let wakePipe: [Int32]
    private let pendingAnnouncements = Mutex<[String]>([])

    nonisolated(unsafe) fileprivate static var completedLine: String?
    nonisolated(unsafe) fileprivate static var reachedEOF = false
    nonisolated(unsafe) fileprivate static var completer: ((String, Bool) -> [String])?
    nonisolated(unsafe) fileprivate static var matches: [String] = []
    nonisolated(unsafe) fileprivate static var interruptFD: Int32 = -1
    nonisolated(unsafe) fileprivate static var interrupted: sig_atomic_t = 0
    nonisolated(unsafe) fileprivate static var resized: sig_atomic_t = 0

    init(prompt: String, historyPath: String, completer: @escaping (String, Bool) -> [String]) {
        self.prompt = prompt
        self.historyPath = historyPath
        LineEditor.completer = completer
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        wakePipe = fds
        for fd in wakePipe { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        LineEditor.interruptFD = wakePipe[1]

        // libedit decodes multibyte input by the locale: without a UTF-8 one, CJK keystrokes are lost.
        setlocale(LC_ALL, "")
        if String(cString: nl_langinfo(nl_item(CODESET))) != "UTF-8" { setlocale(LC_CTYPE, "C.UTF-8") }
        xz_rl_configure(UnsafePointer(strdup("xzmusic"))) { text, start, _ in
            LineEditor.matches = LineEditor.completer?(text.map { String(cString: $0) } ?? "", start == 0) ?? []
            xz_rl_completion_done()
            return rl_completion_matches(text) { _, state in
                if state == 0 { LineEditor.matchIndex = 0 }
                guard LineEditor.matchIndex < LineEditor.matches.count else { return nil }
                defer { LineEditor.matchIndex += 1 }
                return strdup(LineEditor.matches[LineEditor.matchIndex])
            }
        }
        // After the configuration, which turns off libedit's own signal handlers: the first history call
        // sets libedit up, and with its handlers on it would take SIGHUP and SIGTERM from the prompt's
        // watch and pass them on to the whole process group.
        stifle_history(1000)
        _ = read_history(historyPath)
        signal(SIGINT) { _ in
            LineEditor.interrupted = 1
            var byte: UInt8 = 3
            _ = write(LineEditor.interruptFD, &byte, 1)
        }
        // libedit's own handler, off with the others, would learn the terminal's new width.
        signal(SIGWINCH) { _ in
            LineEditor.resized = 1
            var byte: UInt8 = 4
            _ = write(LineEditor.interruptFD, &byte, 1)
        }
    }

    nonisolated(unsafe) fileprivate static var matchIndex = 0

    deinit {
        signal(SIGINT, SIG_DFL)
        signal(SIGWINCH, SIG_DFL)
        for fd in wakePipe where fd >= 0 { close(fd) }
    }

    /// Prints `text` above the prompt and redraws the line being typed. Called from any thread.
    func announce(_ text: String) {
        pendingAnnouncements.withLock { pending in
            // A prompt that cannot print (its loop held up) keeps the latest lines, not all of them.
            if pending.count >= Self.maxPendingAnnouncements { pending.removeFirst() }
            pending.append(text)
        }
        var byte: UInt8 = 1
        _ = write(wakePipe[1], &byte, 1)
    }

    static let maxPendingAnnouncements = 200

    /// What the terminal gave: a line, the end of input (Ctrl-D), or nothing any more (hung up, or a read
    /// that fails).
    enum Input: Equatable {
        case line(String), end, lost
    }

    /// The next line typed. Waits without spinning: every pass of the loop either takes input, prints
    /// lines, or ends; a terminal that reports input it does not give twice in a row is final.
    @MainActor func readLine() -> Input {
        LineEditor.completedLine = nil
        LineEditor.reachedEOF = false
        // The sink goes first: a line arriving while the prompt is drawn waits for the redraw below.
        Console.shared.setPromptSink { [weak self] text in self?.announce(text) }
        defer { Console.shared.setPromptSink(nil) }
        installHandler()
        flushAnnouncements()
        var emptyReadable = 0, readsTakingNothing = 0
        while LineEditor.completedLine == nil && !LineEditor.reachedEOF {
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakePipe[0], events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                // A signal interrupts the wait; any other failure leaves nothing to wait on.
                if errno == EINTR { continue }
                return .lost
            }
            // A hung-up terminal (its window closed, the pty's master gone), or a closed descriptor.
            if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return .lost }
            if fds[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wakePipe[0], &drain, drain.count) > 0 {}
                if LineEditor.interrupted != 0 {
                    LineEditor.interrupted = 0
                    // Ctrl-C drops the line being typed: a fresh handler starts with an empty buffer.
                    xz_print_now("^C\n")
                    rl_callback_handler_remove()
                    installHandler()
                }
                if LineEditor.resized != 0 {
                    LineEditor.resized = 0
                    rl_resize_terminal()
                }
                flushAnnouncements()
            }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            let available = Self.bytesWaiting()
            if available == 0 {
                // Readable with nothing to read is the end of input (a cooked terminal's Ctrl-D).
                emptyReadable += 1
                if emptyReadable >= 2 { return .end }
                continue
            }
            emptyReadable = 0
            errno = 0
            rl_callback_read_char()
            // A read that fails and takes nothing (EIO for a process group that lost its terminal) fails the
            // same way at once again.
            let failed = errno != 0 && errno != EINTR && errno != EAGAIN
            readsTakingNothing = failed && Self.bytesWaiting() >= available ? readsTakingNothing + 1 : 0
            if readsTakingNothing >= 2 { return .lost }
        }
        guard let line = LineEditor.completedLine else { return .end }
        if !line.trimmingCharacters(in: .whitespaces).isEmpty {
            _ = add_history(line)
            _ = write_history(historyPath)
        }
        return .line(line)
    }

    /// Bytes the terminal holds for reading; 0 when it cannot say.
    private static func bytesWaiting() -> Int32 {
        var count: Int32 = 0
        return ioctl(STDIN_FILENO, UInt(FIONREAD), &count) == 0 ? count : 0
    }

    private func installHandler() {
        rl_callback_handler_install(prompt) { line in
            if let line {
                LineEditor.completedLine = String(cString: line)
                free(line)
            } else {
                LineEditor.reachedEOF = true
            }
            rl_callback_handler_remove()
        }
    }

    private func flushAnnouncements() {
        let lines = pendingAnnouncements.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        guard !lines.isEmpty else { return }
        // Clear the prompt line, print above it, then let libedit draw prompt and typed text again.
        var out = "\r\u{1B}[2K"
        for line in lines { out += line + "\n" }
        xz_print_now(out)
        rl_forced_update_display()
    }
}
