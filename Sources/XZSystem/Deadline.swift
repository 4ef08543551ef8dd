import Dispatch

/// When a piece of work must be done by, on the monotonic clock: long loops and queries ask it as they
/// go and stop with `DeadlinePassed` once it has passed. Reading it is a clock read (vDSO, no syscall).
package struct Deadline: Sendable, Equatable {
    /// Nanoseconds of `DispatchTime`'s clock; `UInt64.max` never passes.
    package let uptimeNanoseconds: UInt64

    package static let never = Deadline(uptimeNanoseconds: .max)

    package init(uptimeNanoseconds: UInt64) {
        self.uptimeNanoseconds = uptimeNanoseconds
    }

    /// `budget` from now; a budget too large for the clock never passes.
    package init(after budget: Duration) {
        let (seconds, attoseconds) = budget.components
        guard seconds >= 0 else {
            self.init(uptimeNanoseconds: 0)
            return
        }
        let nanoseconds = UInt64(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let total = nanoseconds.partialValue.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        let now = DispatchTime.now().uptimeNanoseconds.addingReportingOverflow(total.partialValue)
        self.init(uptimeNanoseconds: nanoseconds.overflow || total.overflow || now.overflow ? .max : now.partialValue)
    }

    package var hasPassed: Bool {
        uptimeNanoseconds != .max && DispatchTime.now().uptimeNanoseconds >= uptimeNanoseconds
    }

    /// Throws once the deadline has passed.
    package func check() throws(DeadlinePassed) {
        if hasPassed { throw DeadlinePassed() }
    }

    /// For a loop: checks every `interval`-th time round (`count` its turns so far), so the clock is
    /// read a few times per thousand items.
    @inline(__always)
    package func check(every interval: Int = 256, _ count: Int) throws(DeadlinePassed) {
        if count % interval == 0 { try check() }
    }
}

/// Work stopped because its deadline passed (a request past its time budget).
package struct DeadlinePassed: KindedError {
    package enum Kind: Hashable, Sendable {
        case passed
    }

    package let kind = Kind.passed
    package var message = "the request took longer than its time budget"

    package init() {}

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    package static let passed = DeadlinePassed()
}
