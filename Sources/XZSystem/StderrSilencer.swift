#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sends fd 2 to /dev/null while `body` runs, for C libraries that print to stderr themselves.
/// fd 2 is process-wide, so other threads' stderr output in that moment is lost too; the calls
/// wrapped are short (driver probing, device open). Nothing is flushed: C's stderr is unbuffered, so what
/// is printed reaches fd 2 at once (and fflush(NULL) would wait for the lock of stdin, which a prompt
/// reading piped input holds while it waits for a line).
package enum StderrSilencer {
    /// Held while fd 2 is silenced.
    private static let silence = Mutex(())

    /// Runs `body` (a write to stderr) when fd 2 is not silenced, so that the message is not lost.
    package static func outsideSilence<T>(_ body: () -> T) -> T {
        holding(body)
    }

    package static func run<T>(_ body: () -> T) -> T {
        holding { silenced(body) }
    }

    private static func holding<T>(_ body: () -> T) -> T {
        var result: T?
        silence.withLock { _ in result = body() }
        return result!
    }

    private static func silenced<T>(_ body: () -> T) -> T {
        let saved = dup(2)
        let sink = open("/dev/null", O_WRONLY)
        if saved >= 0, sink >= 0 { _ = dup2(sink, 2) }
        defer {
            if saved >= 0 {
                _ = dup2(saved, 2)
                _ = close(saved)
            }
            if sink >= 0 { _ = close(sink) }
        }
        return body()
    }
}
