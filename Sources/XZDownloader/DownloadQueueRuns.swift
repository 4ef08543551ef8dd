import Foundation
import XZSystem

/// What a command does to tasks: `download pause|resume|cancel ID|all`.
package enum DownloadAction: String, Sendable, CaseIterable {
    case pause, resume, cancel
}

extension DownloadManager {
    /// Applies `action` to `target` and returns how many tasks it changed; nil when `target` is a task id
    /// that names no task. Resuming also re-queues the tasks a run that is gone left running.
    package func apply(_ action: DownloadAction, to target: DownloadTarget) throws -> Int? {
        let count: Int
        switch action {
        case .pause: count = try pause(target)
        case .cancel: count = try cancel(target)
        case .resume:
            let interrupted = try resumeInterrupted()
            count = try resume(target) + interrupted
        }
        if case .task(let id) = target, count == 0, try !tasks().contains(where: { $0.id == id }) { return nil }
        return count
    }

    /// Works through the queue until nothing more can start, then shuts down; `onEvent` hears every event
    /// (from a task of its own) before this returns. Returns how many tasks failed in this run, not counting
    /// those an earlier run left failed. A `shutdown()` meanwhile (a signal) stops it early.
    package func runUntilIdle(onEvent: @escaping @Sendable (DownloadEvent) -> Void) async -> Int {
        let failures = Mutex(0)
        let listener = Task.detached { [events] in
            for await event in events {
                if case .failed = event { failures.withLock { $0 += 1 } }
                onEvent(event)
            }
        }
        run()
        await waitUntilIdle()
        // Shutting down ends the event stream, so the listener has heard every event once it is done.
        await shutdown()
        await listener.value
        return failures.withLock { $0 }
    }
}
