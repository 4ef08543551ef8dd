
/// Items passed in order from a producing thread to a consuming one. `take` waits for the next and is nil
/// once the producer finished and all were taken; with a `capacity`, `put` waits while that many are
/// waiting. The consumer's `cancel` drops what waits and tells the producer to stop.
package final class ThreadHandOff<Element: Sendable>: Sendable {
    private struct State: Sendable {
        var items: [Element] = []
        var finished = false
        var cancelled = false
    }

    private let state = Monitor(State())
    private let capacity: Int?

    package init(capacity: Int? = nil) { self.capacity = capacity }

    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    package func put(_ item: Element) {
        if let capacity {
            _ = state.wait { $0.items.count < capacity || $0.cancelled ? true : nil }
        }
        state.change { if !$0.cancelled { $0.items.append(item) } }
    }

    package func take() -> Element? {
        let taken: Element?? = state.wait { state in
            if !state.items.isEmpty { return .some(state.items.removeFirst()) }
            return state.finished ? .some(nil) : nil
        }
        // A producer may be waiting for the room this made.
        if capacity != nil { state.wake() }
        return taken ?? nil
    }

    /// The producer is done: `take` returns what is left, then nil.
    package func finish() { state.change { $0.finished = true } }

    package func cancel() {
        state.change {
            $0.cancelled = true
            $0.items.removeAll()
        }
    }

    package func waitUntilFinished() {
        _ = state.wait { $0.finished ? true : nil }
    }
}
