import Foundation
import XZSystem
#if canImport(Glibc)
import Glibc
#endif

/// How the prompt leaves when its terminal goes (hung up, a read or write that fails with EIO, a pipe
/// whose reader has gone) or on SIGHUP / SIGTERM, whatever it is doing at the time: waiting at the
/// prompt, running a command, attaching to a host, hosting, printing a background job's progress.
/// The player it hosts stops as on `quit` (state saved, clients' connections closed) and the process is
/// gone within a second, whatever is stuck. Downloads keep their .part and resume at the next start.
final class PromptExit: Sendable {
    private let console: Console
    private let stop: @Sendable () -> Void
    /// The terminal's settings before the line editor changed them, given back on SIGTERM.
    private let terminalSettings: termios?
    private let leaving = Mutex(false)

    /// The longest a leaving prompt takes; the state is saved first thing in `stop`, well before.
    static let patience = 0.8

    init(console: Console, stop: @escaping @Sendable () -> Void) {
        self.console = console
        self.stop = stop
        var settings = termios()
        terminalSettings = tcgetattr(STDIN_FILENO, &settings) == 0 ? settings : nil
    }

    /// From any thread, any number of times: the first call starts leaving on a thread of its own and
    /// returns at once (it may come from a thread the stop waits for, or one holding the console).
    func leave(status: Int32) {
        let first = leaving.withLock { leaving in
            defer { leaving = true }
            return !leaving
        }
        guard first else { return }
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: Self.patience)
            _exit(status)
        }
        Thread.detachNewThread { [self] in
            // Nobody may be there to read it: nothing more is printed.
            console.lose()
            stop()
            if var settings = terminalSettings { tcsetattr(STDIN_FILENO, TCSANOW, &settings) }
            _exit(status)
        }
    }

    /// For the main thread once it has asked to leave: the process ends from the leaving thread.
    func waitForExit() -> Never {
        while true { pause() }
    }

    /// A thread blocked until the terminal hangs up (it asks the kernel for nothing else, so it never
    /// wakes otherwise), which then ends the prompt: the one way to notice while no read or write of the
    /// terminal is under way, e.g. while a command waits on a host.
    func watchTerminal() {
        let terminals = [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO].filter { isatty($0) == 1 }
        guard !terminals.isEmpty else { return }
        let thread = Thread { [self] in
            var watched = terminals.map { pollfd(fd: $0, events: 0, revents: 0) }
            while true {
                let ready = poll(&watched, nfds_t(watched.count), -1)
                if ready < 0 && errno == EINTR { continue }
                // Any other failure leaves it to the line editor and the console, which notice too.
                if ready > 0 { leave(status: 128 + SIGHUP) }
                return
            }
        }
        thread.name = "xz-terminal"
        thread.start()
    }
}
