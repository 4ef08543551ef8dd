import Foundation
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
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let started = Date()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        guard spawned == 0 else {
            throw NSError(domain: "bench", code: Int(spawned), userInfo: [NSLocalizedDescriptionKey: "cannot start \(arguments[0])"])
        }
        // Peak RSS comes from /proc, polled until the child exits: wait4's ru_maxrss would also count
        // this process's own memory, which the child shared for a moment while posix_spawn forked it.
        var peakKiB = 0
        var status: Int32 = 0
        var usage = rusage()
        var interrupted = false
        while true {
            peakKiB = max(peakKiB, highWaterMarkKiB(pid))
            if let stopAfter, !interrupted, Date().timeIntervalSince(started) >= stopAfter {
                kill(pid, SIGINT)
                interrupted = true
            }
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            usleep(2_000)
        }
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return MeasuredRun(cpuSeconds: cpu, wallSeconds: Date().timeIntervalSince(started),
                           peakRSSKiB: peakKiB, status: status)
    }

    /// VmHWM of a running process, in KiB; 0 once it has exited.
    private static func highWaterMarkKiB(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
}
