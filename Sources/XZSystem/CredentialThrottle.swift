/// Slows password guessing: each wrong credential waits twice as long as the one before (0.25 s, 0.5 s,
/// 1 s, … up to 16 s). MPD's `password` counts wrong guesses per connection (`delay(afterFailures:)`);
/// stateless HTTP requests count them per client address in an instance, whose table is capped.
package final class CredentialThrottle: Sendable {
    package static let firstDelay = Duration.milliseconds(250)
    /// The wait stops doubling here: 0.25 s × 2⁶ = 16 s.
    package static let maxDoublings = 6

    /// The wait before answering the `failures`-th wrong credential in a row; zero before any.
    package static func delay(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        return firstDelay * (1 << min(failures - 1, maxDoublings))
    }

    /// Addresses remembered at most; past it the one whose last failure is oldest is forgotten.
    package let capacity: Int
    /// An address that has not failed for this long starts again from no failures.
    package let forgetAfter: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let table = Mutex<[String: Failures]>([:])

    private struct Failures {
        var count: Int
        var last: ContinuousClock.Instant
    }

    package init(capacity: Int = 4096, forgetAfter: Duration = .seconds(15 * 60),
                 now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.capacity = max(1, capacity)
        self.forgetAfter = forgetAfter
        self.now = now
    }

    /// How long to hold a request from `address` before checking its credentials: zero unless its last
    /// attempts were wrong.
    package func delay(for address: String) -> Duration {
        let now = now()
        return table.withLock { table in
            guard let failures = table[address], now - failures.last < forgetAfter else { return .zero }
            return Self.delay(afterFailures: failures.count)
        }
    }

    /// Counts a wrong credential from `address`; returns the wait its next attempt will get.
    @discardableResult
    package func recordFailure(from address: String) -> Duration {
        let now = now()
        return table.withLock { table in
            var failures = table[address].flatMap { now - $0.last < forgetAfter ? $0 : nil } ?? Failures(count: 0, last: now)
            failures.count = min(failures.count + 1, Self.maxDoublings + 1)
            failures.last = now
            if table[address] == nil, table.count >= capacity {
                table = table.filter { now - $0.value.last < forgetAfter }
                if table.count >= capacity, let oldest = table.min(by: { $0.value.last < $1.value.last })?.key {
                    table[oldest] = nil
                }
            }
            table[address] = failures
            return Self.delay(afterFailures: failures.count)
        }
    }

    /// Right credentials from `address`: its next requests are not held.
    package func recordSuccess(from address: String) {
        table.withLock { table in _ = table.removeValue(forKey: address) }
    }

    /// Addresses remembered now.
    package var rememberedAddresses: Int { table.withLock { $0.count } }
}
