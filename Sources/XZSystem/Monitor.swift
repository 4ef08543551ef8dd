import Dispatch
import Synchronization

/// State behind a `Mutex` that a thread can also sleep on until another one changes it: a condition
/// variable without a lock taken and released by hand. Sleeping blocks the thread, so it is for dedicated
/// threads (the audio thread, a decoder reading a growing file), never the cooperative pool.
public final class Monitor<State: Sendable>: Sendable {
    private struct Guarded: Sendable {
        var state: State
        /// One semaphore per sleeping thread, signalled once by the change that wakes it.
        var sleepers: [DispatchSemaphore] = []
    }

    private let guarded: Mutex<Guarded>

    public init(_ state: State) {
        guarded = Mutex(Guarded(state: state))
    }

    /// Reads or changes the state; sleeping threads are not woken.
    public func withLock<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        guarded.withLock { body(&$0.state) }
    }

    /// Changes the state and wakes every sleeping thread to look at it again.
    public func change<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        guarded.withLock { guarded in
            let result = body(&guarded.state)
            Self.wake(&guarded)
            return result
        }
    }

    /// Wakes every sleeping thread, for a change made earlier through `withLock`.
    public func wake() {
        guarded.withLock { Self.wake(&$0) }
    }

    /// Runs `body` until it returns a value, sleeping in between until a `change` or `wake` (or `deadline`).
    /// Nil when the deadline passed with `body` still returning nil.
    public func wait<Result: Sendable>(until deadline: DispatchTime? = nil,
                                        _ body: (inout State) -> Result?) -> Result? {
        while true {
            // A fresh semaphore each time: one signalled after a timeout must not cut the next sleep short.
            let semaphore = DispatchSemaphore(value: 0)
            let result: Result? = guarded.withLock { guarded in
                if let result = body(&guarded.state) { return result }
                // Registered under the lock that the look took: a change after it finds this sleeper.
                guarded.sleepers.append(semaphore)
                return nil
            }
            if let result { return result }
            guard let deadline else {
                semaphore.wait()
                continue
            }
            if semaphore.wait(timeout: deadline) == .timedOut {
                return guarded.withLock { guarded in
                    guarded.sleepers.removeAll { $0 === semaphore }
                    return body(&guarded.state)
                }
            }
        }
    }

    private static func wake(_ guarded: inout Guarded) {
        for sleeper in guarded.sleepers { sleeper.signal() }
        guarded.sleepers.removeAll()
    }
}
