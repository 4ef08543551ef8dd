import Foundation
import XCTest
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// An idle `xzmusic serve` with clients attached and nothing playing wakes for nothing: between two looks
/// at its threads' context switches (/proc/PID/task/TID/status), none of its threads ran but libdispatch's,
/// whose pool monitor (started by Swift's runtime with the first queued work, never stopped) looks once a
/// second. A write by another process is still heard at once, through inotify rather than a poll.
final class IdleHostWakeTests: LibraryProcessTestCase {
    override func setUpWithError() throws {
        temp = try TemporaryFolder("idle-host")
        // The library and its demo exist before the host opens it.
        XCTAssertEqual(try xzmusic(["info", "#1"]).status, 0)
    }

    func testAnIdleHostWithClientsAttachedWakesForNothingAndStillHearsOtherProcesses() throws {
        let host = try RunningProcess(binary, ["serve", "--port", "0"], environment: environment)
        defer {
            host.signal(SIGTERM)
            XCTAssertEqual(host.finish(), 0)
        }
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        let line = try XCTUnwrap(host.stdout.split(separator: "\n").first { $0.contains("hosting") })
        let port = try XCTUnwrap(line.split(separator: ":").last.map(String.init))
        let mpc = try TestProcess.which("mpc")
        let clientEnvironment = ProcessInfo.processInfo.environment
        let idleloop = try RunningProcess(mpc, ["-p", port, "idleloop"], environment: clientEnvironment)
        defer {
            idleloop.signal(SIGTERM)
            _ = idleloop.finish()
        }
        let waiting = try RunningProcess(mpc, ["-p", port, "idle", "sticker"], environment: clientEnvironment)
        // Past start-up: the catalogue's first look, the clients' greetings, pool threads leaving.
        Thread.sleep(forTimeInterval: 2)

        let pid = host.process.processIdentifier
        let before = ThreadWakes(pid: pid)
        Thread.sleep(forTimeInterval: 3)
        let woke = ThreadWakes(pid: pid).since(before)
        XCTAssertFalse(before.byThread.isEmpty)
        let dispatch = woke.filter { ThreadWakes.isLibdispatch($0.key) }
        XCTAssertEqual(woke.filter { !ThreadWakes.isLibdispatch($0.key) && $0.value != 0 }, [:],
                       "no thread of the host's own wakes while it is idle: \(woke)")
        XCTAssertLessThanOrEqual(dispatch.values.reduce(0, +), 5, "libdispatch looks at its pool once a second: \(dispatch)")

        // A like from the command line writes the database from another process: the waiting client hears it.
        XCTAssertEqual(try xzmusic(["like", "#1"]).status, 0)
        XCTAssertEqual(waiting.finish(timeout: 10), 0)
        XCTAssertEqual(waiting.stdout, "sticker\n")
    }
}

/// Context switches (voluntary and not) of each thread of a process, named `NAME TID`: a thread that
/// never ran between two looks has the same count in both.
struct ThreadWakes: CustomStringConvertible {
    var byThread: [String: Int] = [:]

    init(pid: pid_t) {
        let folder = "/proc/\(pid)/task"
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let status = try? String(contentsOfFile: "\(folder)/\(tid)/status", encoding: .utf8) else { continue }
            var name = ""
            var switches = 0
            for line in status.split(separator: "\n") {
                let fields = line.split(separator: "\t", maxSplits: 1)
                guard fields.count == 2 else { continue }
                if fields[0] == "Name:" { name = String(fields[1]) }
                if fields[0] == "voluntary_ctxt_switches:" || fields[0] == "nonvoluntary_ctxt_switches:" {
                    switches += Int(fields[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            byThread["\(name) \(tid)"] = switches
        }
    }

    /// Threads in both looks only: one that left meanwhile, or came, is no idle thread's wake.
    func since(_ earlier: ThreadWakes) -> [String: Int] {
        byThread.reduce(into: [:]) { woke, thread in
            if let before = earlier.byThread[thread.key] { woke[thread.key] = thread.value - before }
        }
    }

    /// libdispatch names its threads after their queues (`com.apple.root.default-qos.overcommit`, cut short).
    static func isLibdispatch(_ thread: String) -> Bool { thread.contains("qos") }

    var description: String { byThread.description }
}
