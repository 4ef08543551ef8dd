import Foundation
import XZFuzzSupport
import XZSystem

/// Watches the request being answered from a thread of its own: one that has used more than a second
/// of the fuzzing thread's CPU, or has stalled for ten seconds, is a finding. It names the line and
/// aborts the fuzzing thread, so libFuzzer prints where it was and saves the input as a crash.
final class FuzzWatchdog: Sendable {
    private struct Running {
        var line: [UInt8]
        var started: UInt64
    }

    static let cpuBudgetNs: UInt64 = 1_000_000_000
    static let stallNs: UInt64 = 10_000_000_000

    private let running = Mutex<Running?>(nil)
    private let clock: clockid_t
    /// The fuzzing thread, which gets the abort so that libFuzzer prints its stack.
    private let fuzzing: pthread_t

    /// Made on the thread that answers the requests.
    init() {
        var clock = clockid_t()
        fuzzing = pthread_self()
        pthread_getcpuclockid(fuzzing, &clock)
        self.clock = clock
        let thread = Thread { [self] in watch() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    func begin(_ line: [UInt8]) {
        let cpu = Self.now(clock)
        running.withLock { $0 = Running(line: line, started: cpu) }
    }

    func end() {
        running.withLock { $0 = nil }
    }

    private func watch() {
        var watching: (started: UInt64, wall: UInt64)?
        while true {
            usleep(50_000)
            guard let current = running.withLock({ $0 }) else { watching = nil; continue }
            // Read after the request started, so neither clock is behind its start.
            let now = Self.now(CLOCK_MONOTONIC)
            let cpu = Self.now(clock)
            if watching?.started != current.started { watching = (current.started, now) }
            let cpuUsed = cpu > current.started ? cpu - current.started : 0
            let wall = now - watching!.wall
            guard cpuUsed > Self.cpuBudgetNs || wall > Self.stallNs else { continue }
            let line = String(decoding: current.line.prefix(300), as: UTF8.self)
            let kind = cpuUsed > Self.cpuBudgetNs ? "SLOW REQUEST" : "STALLED REQUEST"
            printError("==protocol-fuzz== \(kind): cpu \(cpuUsed / 1_000_000) ms, wall \(wall / 1_000_000) ms: \(line)\n")
            pthread_kill(fuzzing, SIGABRT)
            while true { pause() }
        }
    }

    private static func now(_ clock: clockid_t) -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
