import Foundation

/// Items passed in order from a producing thread to a consuming one. `take` waits for the next and is nil
/// once the producer finished and all were taken; with a `capacity`, `put` waits while that many are
/// waiting. The consumer's `cancel` drops what waits and tells the producer to stop.
// Sendable by hand: every field is read and written under `condition`.
public final class ThreadHandOff<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element] = []
    private var finished = false
    private var cancelled = false
    private let capacity: Int?

    public init(capacity: Int? = nil) { self.capacity = capacity }

    public var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    public func put(_ item: Element) {
        condition.lock()
        if let capacity {
            while items.count >= capacity && !cancelled { condition.wait() }
        }
        if !cancelled { items.append(item) }
        condition.broadcast()
        condition.unlock()
    }

    public func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !finished { condition.wait() }
        guard !items.isEmpty else { return nil }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    /// The producer is done: `take` returns what is left, then nil.
    public func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    public func cancel() {
        condition.lock()
        cancelled = true
        items.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    public func waitUntilFinished() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
