import Foundation
import XZSystem
#if canImport(Glibc)
import Glibc
#endif

/// A child process measured by the kernel: CPU time from wait4's rusage, peak RSS from /proc.
struct MeasuredRun {
    let cpuSeconds: Double
    let wallSeconds: Double
    let peakRSSKiB: Int
    let status: Int32

    /// Runs `arguments` with stdout and stderr sent to `stdoutPath`; sends SIGINT after `stopAfter` seconds if given.
    static func run(_ arguments: [String], stdoutPath: String = "/dev/null", stopAfter: Double? = nil) throws -> MeasuredRun {
        let started = Date()
        let pid = try spawn(arguments) { actions in
            posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        return reap(pid, started: started, stopAfter: stopAfter)
    }

    /// Runs an interactive `arguments` that reads `input` from a pipe kept open (as a terminal would
    /// be) for `seconds`, then ends it with SIGTERM.
    static func runInteractive(_ arguments: [String], input: String, seconds: Double) throws -> MeasuredRun {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw benchFailure("cannot make a pipe") }
        let started = Date()
        let pid = try spawn(arguments) { actions in
            posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
            posix_spawn_file_actions_addclose(&actions, fds[0])
            posix_spawn_file_actions_addclose(&actions, fds[1])
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        close(fds[0])
        defer { close(fds[1]) }
        let bytes = Array(input.utf8)
        guard write(fds[1], bytes, bytes.count) == bytes.count else { throw benchFailure("cannot write to \(arguments[0])") }
        return reap(pid, started: started, stopAfter: seconds, signal: SIGTERM)
    }

    /// Runs `arguments` to its end, output discarded, blocked in wait4 rather than polling, so the wall
    /// time of a program that lasts milliseconds is exact; no peak RSS (0). Given `timeout`, a program
    /// still running after that many seconds is killed (its status then tells SIGKILL).
    static func timed(_ arguments: [String], timeout: Double? = nil) throws -> MeasuredRun {
        let started = DispatchTime.now().uptimeNanoseconds
        let pid = try spawn(arguments) { actions in
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        if let timeout {
            // The child is reaped only once `exited` is set, so the watchdog never signals a reused pid.
            let exited = Mutex(false)
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                exited.withLock { if !$0 { kill(pid, SIGKILL) } }
            }
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            exited.withLock { $0 = true }
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let wall = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return MeasuredRun(cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime), wallSeconds: wall,
                           peakRSSKiB: 0, status: status)
    }

    /// Runs `arguments` with stdout into a pipe that this process drains at `bytesPerSecond` for
    /// `seconds` and then closes: the pipe paces the child as a sound card would.
    static func runPaced(_ arguments: [String], bytesPerSecond: Int, seconds: Double) throws -> MeasuredRun {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw benchFailure("cannot make a pipe") }
        let started = Date()
        let pid = try spawn(arguments) { actions in
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            posix_spawn_file_actions_addclose(&actions, fds[0])
            posix_spawn_file_actions_addclose(&actions, fds[1])
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        close(fds[1])
        var buffer = [UInt8](repeating: 0, count: 4096)
        var received = 0
        while case let elapsed = Date().timeIntervalSince(started), elapsed < seconds {
            let ahead = Double(received) / Double(bytesPerSecond) - elapsed
            if ahead > 0 {
                usleep(UInt32(min(ahead, seconds - elapsed) * 1e6))
                continue
            }
            let count = read(fds[0], &buffer, buffer.count)
            if count <= 0 { break }
            received += count
        }
        close(fds[0])
        return reap(pid, started: started, stopAfter: nil)
    }

    private static func spawn(_ arguments: [String],
                              _ configure: (inout posix_spawn_file_actions_t) -> Void) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        configure(&actions)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ) == 0 else {
            throw benchFailure("cannot start \(arguments[0])")
        }
        return pid
    }

    /// Waits for the child. Peak RSS comes from /proc, polled until it exits: wait4's ru_maxrss would
    /// also count this process's own memory, which the child shared for a moment while posix_spawn forked it.
    private static func reap(_ pid: pid_t, started: Date, stopAfter: Double?, signal: Int32 = SIGINT) -> MeasuredRun {
        var peakKiB = 0
        var status: Int32 = 0
        var usage = rusage()
        var interrupted = false
        while true {
            peakKiB = max(peakKiB, memoryKiB(pid, "VmHWM"))
            if let stopAfter, !interrupted, Date().timeIntervalSince(started) >= stopAfter {
                kill(pid, signal)
                interrupted = true
            }
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            usleep(2_000)
        }
        return MeasuredRun(cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime), wallSeconds: Date().timeIntervalSince(started),
                           peakRSSKiB: peakKiB, status: status)
    }

    private static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1e6
    }

    /// A memory line of /proc/PID/status (VmRSS, VmHWM…) in KiB; 0 once the process has exited.
    static func memoryKiB(_ pid: pid_t, _ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
}
