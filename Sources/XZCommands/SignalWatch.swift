import Foundation
import XZSystem
#if canImport(Glibc)
import Glibc
#endif

/// Handles signals on a thread of its own instead of letting them end the process at once. While
/// several watches want one signal (a command's inside the prompt's), the latest one hears it; when the
/// last watch of a signal is cancelled, the signal gets back the handling it had before.
///
/// A plain `sigaction` handler that writes the signal's number to a pipe: unlike a dispatch signal
/// source (libdispatch installs its handler once per signal, asynchronously, after the caller set the
/// signal to be ignored), no signal is dropped between two watches or before the first is ready.
final class SignalWatch: Sendable {
    private let numbers: [Int32]
    private let token: Int

    init(_ numbers: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        self.numbers = numbers
        token = SignalRouter.shared.add(numbers, handler)
    }

    func cancel() { SignalRouter.shared.remove(token, numbers) }
}

/// The process's one signal pipe and the watches that hear what comes through it.
private final class SignalRouter: Sendable {
    static let shared = SignalRouter()

    private struct Watch {
        let token: Int
        let handler: @Sendable (Int32) -> Void
    }

    private struct State {
        var next = 0
        /// Per signal, its watches in the order they came; the last hears it.
        var watches: [Int32: [Watch]] = [:]
        /// The handling a signal had before its first watch.
        var previous: [Int32: sigaction] = [:]
    }

    private let state = Mutex(State())

    private init() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // A full pipe drops the byte, never blocks the handler: the signals already in it are enough to wake.
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        signalPipe = fds[1]
        let reader = fds[0]
        let thread = Thread { [self] in route(from: reader) }
        thread.name = "xz-signals"
        thread.start()
    }

    func add(_ numbers: [Int32], _ handler: @escaping @Sendable (Int32) -> Void) -> Int {
        state.withLock { state in
            state.next += 1
            for number in numbers {
                if state.watches[number, default: []].isEmpty {
                    var action = sigaction()
                    action.__sigaction_handler.sa_handler = { number in
                        let saved = errno
                        var byte = UInt8(truncatingIfNeeded: number)
                        _ = write(signalPipe, &byte, 1)
                        errno = saved
                    }
                    action.sa_flags = SA_RESTART
                    sigemptyset(&action.sa_mask)
                    var old = sigaction()
                    sigaction(number, &action, &old)
                    state.previous[number] = old
                }
                state.watches[number, default: []].append(Watch(token: state.next, handler: handler))
            }
            return state.next
        }
    }

    func remove(_ token: Int, _ numbers: [Int32]) {
        state.withLock { state in
            for number in numbers {
                state.watches[number]?.removeAll { $0.token == token }
                guard state.watches[number]?.isEmpty ?? false, var old = state.previous.removeValue(forKey: number) else { continue }
                state.watches[number] = nil
                sigaction(number, &old, nil)
            }
        }
    }

    /// Hands each signal to its latest watch; ends only if the pipe does, which it never does while the process runs.
    private func route(from reader: Int32) {
        var byte: UInt8 = 0
        while true {
            let count = read(reader, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return }
            let number = Int32(byte)
            let handler = state.withLock { $0.watches[number]?.last?.handler }
            handler?(number)
        }
    }
}

/// Written once before any handler is installed, then only read by the handler: a plain global, which a
/// signal handler may read.
nonisolated(unsafe) private var signalPipe: Int32 = -1

/// The signal that asked the program to stop: set from the signal thread, read by the waiting thread.
final class InterruptFlag: Sendable {
    private let value = Mutex<Int32?>(nil)
    /// Runs `action` before the signal becomes visible to readers, so they never act ahead of it.
    func set(_ signal: Int32, after action: () -> Void = {}) {
        value.withLock { value in
            action()
            value = value ?? signal
        }
    }
    var signal: Int32? { value.withLock { $0 } }
}
