import Foundation
import Synchronization

/// Items passed in order from a producing thread to a consuming one. `take` waits for the next and is nil
/// once the producer finished and all were taken; with a `capacity`, `put` waits while that many are
/// waiting. The consumer's `cancel` drops what waits and tells the producer to stop.
public final class ThreadHandOff<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var finished = false
        var cancelled = false
    }

    private let state = Mutex(State())
    /// Only for sleeping until another thread changes `state`: every change is made while holding it,
    /// so a waiter between its check and its wait cannot miss the wake-up.
    private let changed = NSCondition()
    private let capacity: Int?

    public init(capacity: Int? = nil) { self.capacity = capacity }

    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    public func put(_ item: Element) {
        changed.lock()
        defer { changed.unlock() }
        if let capacity {
            while state.withLock({ $0.items.count >= capacity && !$0.cancelled }) { changed.wait() }
        }
        state.withLock { if !$0.cancelled { $0.items.append(item) } }
        changed.broadcast()
    }

    public func take() -> Element? {
        changed.lock()
        defer { changed.unlock() }
        while state.withLock({ $0.items.isEmpty && !$0.finished }) { changed.wait() }
        let item: Element? = state.withLock { $0.items.isEmpty ? nil : $0.items.removeFirst() }
        if item != nil { changed.broadcast() }
        return item
    }

    /// The producer is done: `take` returns what is left, then nil.
    public func finish() { change { $0.finished = true } }

    public func cancel() {
        change {
            $0.cancelled = true
            $0.items.removeAll()
        }
    }

    public func waitUntilFinished() {
        changed.lock()
        defer { changed.unlock() }
        while !state.withLock({ $0.finished }) { changed.wait() }
    }

    private func change(_ body: (inout State) -> Void) {
        changed.lock()
        defer { changed.unlock() }
        state.withLock { body(&$0) }
        changed.broadcast()
    }
}
