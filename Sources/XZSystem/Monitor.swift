import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// State that threads read and change under a lock, and that a thread can also sleep on until another
/// one changes it: a condition variable whose lock is never taken or released by hand. Sleeping blocks
/// the thread, so it is for dedicated threads (the audio thread, a decoder reading a growing file, a
/// hand-off's consumer), never the cooperative pool.
///
/// `@unchecked Sendable` as a wrapper of C handles: `state` is only touched with the pthread mutex held,
/// and the mutex and condition live at fixed addresses for the monitor's life.
package final class Monitor<State: Sendable>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state: State

    package init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
        // Deadlines are DispatchTime's, which counts on the monotonic clock.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Reads or changes the state; sleeping threads are not woken.
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Changes the state and wakes every sleeping thread to look at it again.
    package func change<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return try body(&state)
    }

    /// Wakes every sleeping thread, for a change made earlier through `withLock`.
    package func wake() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Runs `body` until it returns a value, sleeping in between until a `change` or `wake` (or `deadline`).
    /// Nil when the deadline passed with `body` still returning nil.
    package func wait<Result>(until deadline: DispatchTime? = nil, _ body: (inout State) throws -> Result?) rethrows -> Result? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var limit = timespec()
        if let deadline {
            let nanoseconds = deadline.uptimeNanoseconds
            limit = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        }
        while true {
            if let result = try body(&state) { return result }
            if deadline == nil {
                pthread_cond_wait(condition, mutex)
            } else if pthread_cond_timedwait(condition, mutex, &limit) == ETIMEDOUT {
                return try body(&state)
            }
        }
    }
}
