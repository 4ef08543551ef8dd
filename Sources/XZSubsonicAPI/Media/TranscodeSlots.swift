import XZSystem

/// The cap on transcodes running at once: each holds a lease until its producer ends, or until the reply
/// holding it is dropped unsent (the client went before the body began).
package final class TranscodeSlots: Sendable {
    package let limit: Int
    private let running = Mutex(0)

    package init(limit: Int) {
        self.limit = limit
    }

    package var count: Int { running.withLock { $0 } }

    /// A lease, or `SubsonicError.tooManyTranscodes` when `limit` are running.
    package func acquire() throws -> TranscodeLease {
        let taken = running.withLock { count -> Bool in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard taken else { throw SubsonicError.tooManyTranscodes }
        return TranscodeLease(self)
    }

    fileprivate func release() {
        running.withLock { $0 -= 1 }
    }
}

/// One running transcode's place under the cap; released once, by `release()` or when it goes.
package final class TranscodeLease: Sendable {
    private let slots: TranscodeSlots
    private let released = Atomic(false)

    fileprivate init(_ slots: TranscodeSlots) {
        self.slots = slots
    }

    deinit { release() }

    package func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        slots.release()
    }
}
