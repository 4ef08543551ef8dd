import Foundation
import XCTest
import XZCatalogue
@testable import XZStats

/// Real separate processes for the crash and concurrency tests: the test binary runs itself with
/// only `ChildProcessEntry` selected and a role in the environment. Children report progress on
/// stdout as "XZSTATS <word> <number>" lines, written unbuffered so a kill -9 loses none.
final class ChildProcess: @unchecked Sendable {
    static let roleVariable = "XZSTATS_CHILD_ROLE"
    let process = Process()
    private let lock = NSLock()
    private var text = ""
    private var errorText = ""

    init(role: String, environment: [String: String]) throws {
        #if os(Linux)
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #else
        throw XCTSkip("re-running the test binary is only wired up on Linux")
        #endif
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["XZStatsTests.ChildProcessEntry/testChildProcessEntry"]
        var env = ProcessInfo.processInfo.environment
        env[Self.roleVariable] = role
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        // At end of file the handler is dropped, or it would be called again and again.
        out.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil; return }
            self?.lock.withLock { self?.text += String(decoding: data, as: UTF8.self) }
        }
        err.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil; return }
            self?.lock.withLock { self?.errorText += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    /// The child's report lines ("XZSTATS at 12000" → ("at", 12000)), in order.
    var reports: [(word: String, value: Int)] {
        lock.withLock { text }.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "XZSTATS", let value = Int(parts[2]) else { return nil }
            return (String(parts[1]), value)
        }
    }

    var output: String { lock.withLock { text + errorText } }

    /// Waits until a report with `word` has come, or `timeout` seconds pass.
    @discardableResult
    func waitFor(_ word: String, timeout: TimeInterval = 60) -> Int? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let hit = reports.last(where: { $0.word == word }) { return hit.value }
            if !process.isRunning, reports.last(where: { $0.word == word }) == nil { return nil }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return nil
    }

    func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits for the child to exit by itself; kills it after `timeout` seconds. Returns the status.
    func finish(timeout: TimeInterval = 120) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { kill9(); return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// The children's side. In a normal test run no role is set and this test does nothing.
final class ChildProcessEntry: XCTestCase {
    private func report(_ word: String, _ value: Int) {
        FileHandle.standardOutput.write(Data("XZSTATS \(word) \(value)\n".utf8))
    }

    func testChildProcessEntry() throws {
        let env = ProcessInfo.processInfo.environment
        guard let role = env[ChildProcess.roleVariable] else { return }
        func value(_ name: String) throws -> String { try XCTUnwrap(env[name], "\(name) not set") }
        func number(_ name: String) throws -> Int { try XCTUnwrap(Int(try value(name)), "\(name) not a number") }
        let database = try LibraryDatabase(path: try value("XZSTATS_DB"))
        switch role {
        case "crash":
            // One session fed tick by tick; each "at" is reported after its write (if any) returned.
            let recorder = PlaySessionRecorder(database: database)
            try recorder.begin(songKey: try value("XZSTATS_SONG"), title: "Crash", singer: "Test",
                               durationMs: try number("XZSTATS_DURATION"))
            let stopAt = try number("XZSTATS_STOP_AT"), pause = try number("XZSTATS_TICK_US")
            var position = 0
            while position < stopAt {
                position += 1000
                try recorder.handle(.position(ms: position))
                report("at", position)
                if pause > 0 { usleep(UInt32(pause)) }
            }
            report("holding", position)
            while true { sleep(60) } // until the parent kills it
        case "play":
            // Whole sessions back to back until the parent drops a stop file, at least `minimum` of them.
            let recorder = PlaySessionRecorder(database: database)
            let key = try value("XZSTATS_SONG"), stop = try value("XZSTATS_STOP_FILE")
            let minimum = try number("XZSTATS_MIN_SESSIONS")
            var sessions = 0
            while sessions < minimum || !FileManager.default.fileExists(atPath: stop) {
                try recorder.begin(songKey: key, title: key, singer: "Player", durationMs: 31_000)
                for ms in stride(from: 500, through: 31_000, by: 500) { try recorder.handle(.position(ms: ms)) }
                try recorder.end(reason: .completed, positionMs: 31_000)
                sessions += 1
                if sessions == 1 { report("started", 1) }
            }
            XCTAssertTrue(try recorder.flush(timeout: 60), "sessions left unsaved")
            report("done", sessions)
        case "import":
            // Large write transactions: the whole feed, alternately in two versions, `rounds` times.
            let rounds = try number("XZSTATS_ROUNDS")
            for round in 1...rounds {
                let feed = try value(round % 2 == 0 ? "XZSTATS_FEED_B" : "XZSTATS_FEED_A")
                let summary = try database.importFeed(at: URL(fileURLWithPath: feed))
                XCTAssertEqual(summary.failed, 0)
                report("imported", round)
            }
            report("done", rounds)
        default:
            XCTFail("unknown child role \(role)")
        }
    }
}
