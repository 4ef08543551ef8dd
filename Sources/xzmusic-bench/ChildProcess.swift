import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process measured by the kernel: CPU time and peak RSS from wait4's rusage.
struct MeasuredRun {
    let cpuSeconds: Double
    let wallSeconds: Double
    let peakRSSKiB: Int
    let status: Int32

    /// Runs `arguments` with stdout sent to `stdoutPath`; sends SIGINT after `stopAfter` seconds if given.
    static func run(_ arguments: [String], stdoutPath: String = "/dev/null", stopAfter: Double? = nil) throws -> MeasuredRun {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let started = Date()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        guard spawned == 0 else {
            throw NSError(domain: "bench", code: Int(spawned), userInfo: [NSLocalizedDescriptionKey: "cannot start \(arguments[0])"])
        }
        if let stopAfter {
            Thread.sleep(forTimeInterval: stopAfter)
            kill(pid, SIGINT)
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return MeasuredRun(cpuSeconds: cpu, wallSeconds: Date().timeIntervalSince(started),
                           peakRSSKiB: Int(usage.ru_maxrss), status: status)
    }
}
