import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Long command lists, the same to MPD and to the host: the server's CPU for one list, and the worst
/// `status` round trip of another client while lists run (a list must not hold up other connections).
extension ServerBenchmark {
    struct CommandListFigures {
        /// Best of three runs.
        var cpuSeconds: Double
        /// The slowest `status` answered while the list ran, over three runs.
        var worstStatus: Double
        var statusCount: Int
    }

    /// `list` (a whole command list) sent to the server of `pid` on `port`; `cleanup` runs after each
    /// run (e.g. `clear` after adds), outside the figures.
    func commandListFigures(port: Int, pid: pid_t, list: String, cleanup: String? = nil) throws -> CommandListFigures {
        let sender = try ProtocolConnection(port: port)
        var cpu = Double.infinity
        for _ in 0..<3 {
            let before = processCPUSeconds(pid)
            try sender.request(list)
            cpu = min(cpu, processCPUSeconds(pid) - before)
            if let cleanup { try sender.request(cleanup) }
        }
        var worst = 0.0
        var count = 0
        let prober = try ProtocolConnection(port: port)
        for _ in 0..<3 {
            let done = DispatchGroup()
            let failures = FailureList()
            done.enter()
            Thread.detachNewThread {
                do { try sender.request(list) } catch { failures.add(error) }
                done.leave()
            }
            while done.wait(timeout: .now()) == .timedOut {
                let start = DispatchTime.now().uptimeNanoseconds
                try prober.request("status")
                worst = max(worst, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                count += 1
            }
            if let error = failures.first { throw error }
            if let cleanup { try sender.request(cleanup) }
        }
        return CommandListFigures(cpuSeconds: cpu, worstStatus: worst, statusCount: count)
    }

    /// The rows for 100,000 `ping`s and 10,000 `add`s in one list, MPD's beside ours.
    func commandListRows(mpd: (port: Int, pid: pid_t), ours: (port: Int, pid: pid_t), uris: [String]) throws {
        let pings = "command_list_begin\n" + String(repeating: "ping\n", count: 100_000) + "command_list_end"
        let adds = (["command_list_begin"] + uris.map { "add \(quoted($0))" } + ["command_list_end"]).joined(separator: "\n")
        for (label, list, cleanup) in [("100,000 pings", pings, nil), ("\(uris.count) adds", adds, "clear")] {
            let figures = try [mpd, ours].map { try commandListFigures(port: $0.port, pid: $0.pid, list: list, cleanup: cleanup) }
            row("list of \(label): CPU, ms", figures[0].cpuSeconds * 1000, figures[1].cpuSeconds * 1000, format: "%9.1f",
                target: "<= 1.00x", met: figures[1].cpuSeconds <= figures[0].cpuSeconds)
            row("  worst status meanwhile, ms", figures[0].worstStatus * 1000, figures[1].worstStatus * 1000,
                format: "%9.2f", target: "< 20 ms", met: figures[1].worstStatus < 0.020)
        }
    }
}
