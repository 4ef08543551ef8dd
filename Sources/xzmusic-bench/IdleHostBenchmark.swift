import Foundation
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

extension ServerBenchmark {
    /// What an idle server costs: CPU clock ticks over the same minute, and its threads.
    struct IdleHostFigures {
        var ticks: (mpd: Int, ours: Int)
        var threads: (mpd: Int, ours: Int)
    }

    /// MPD and the host side by side, both idle with nothing playing, each with an `mpc idleloop` and a
    /// bare `mpc idle` attached: the CPU clock ticks (user + system) each spends over the same `seconds`.
    func idleHostFigures(mpd: (port: Int, pid: pid_t), ours: (port: Int, pid: pid_t), seconds: Double = 60) throws -> IdleHostFigures {
        let mpc = try TestProcess.which("mpc")
        var clients: [RunningProcess] = []
        defer {
            for client in clients {
                client.signal(SIGTERM)
                _ = client.finish(timeout: 5)
            }
        }
        for port in [mpd.port, ours.port] {
            for command in ["idleloop", "idle"] {
                clients.append(try RunningProcess(mpc, ["-h", "127.0.0.1", "-p", "\(port)", command],
                                                  environment: ProcessInfo.processInfo.environment))
            }
        }
        // Past the clients' greetings and the servers' answers to them.
        Thread.sleep(forTimeInterval: 2)
        let before = (mpd: Self.cpuTicks(mpd.pid), ours: Self.cpuTicks(ours.pid))
        Thread.sleep(forTimeInterval: seconds)
        let after = (mpd: Self.cpuTicks(mpd.pid), ours: Self.cpuTicks(ours.pid))
        return IdleHostFigures(ticks: (after.mpd - before.mpd, after.ours - before.ours),
                               threads: (Self.threadCount(mpd.pid), Self.threadCount(ours.pid)))
    }

    func printIdleHostRows(_ figures: IdleHostFigures) {
        print(String(format: "idle host CPU ticks in 60 s, clients attached: MPD %d, xzmusic %d   target 0 ticks %@",
                     figures.ticks.mpd, figures.ticks.ours, figures.ticks.ours == 0 ? "met" : "MISSED"))
        print(String(format: "host threads, idle with clients attached: MPD %d, xzmusic %d",
                     figures.threads.mpd, figures.threads.ours))
    }

    /// utime + stime of every thread of `pid`, in clock ticks (/proc/PID/stat fields 14 and 15).
    static func cpuTicks(_ pid: pid_t) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        return user + system
    }

    private static func threadCount(_ pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
    }
}
