import Foundation

/// A program left running in the background (a host, a prompt), its output collected as it comes.
package final class RunningProcess: @unchecked Sendable {
    package let process = Process()
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    private let input = Pipe()

    package init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = input
        outPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            self.lock.lock(); self.out.append(data); self.lock.unlock()
        }
        errPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            self.lock.lock(); self.err.append(data); self.lock.unlock()
        }
        // A program that has already left must not take the test runner with it when typed at.
        Foundation.signal(SIGPIPE, SIG_IGN)
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    package var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
    package var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }

    /// Types a line at the program's standard input.
    package func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    package func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// True once stdout contains `text`; false after `timeout` seconds.
    @discardableResult
    package func waitForOutput(_ text: String, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if stdout.contains(text) { return true }
            if !process.isRunning { return stdout.contains(text) }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    package func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// The exit status, waiting at most `timeout` seconds (then the program is killed and nil returned).
    package func finish(timeout: TimeInterval = 20) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        Thread.sleep(forTimeInterval: 0.05)  // the last output
        return process.terminationStatus
    }
}
