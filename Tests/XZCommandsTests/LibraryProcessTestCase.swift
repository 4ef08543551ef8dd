import Foundation
import XCTest
import XZTestSupport

/// Tests that run the real `xzmusic` binary on a library of their own: its folder, socket folder and
/// config in `temp`, the null output, no colours.
class LibraryProcessTestCase: XCTestCase {
    var temp: TemporaryFolder!
    var binary: String { TestPaths.products.appendingPathComponent("xzmusic").path }

    /// The demo songs a new library starts with; "" for a library that starts empty.
    var demoFolder: String { TestPaths.repositoryRoot.appendingPathComponent("Resources/demo").path }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XZMUSIC_HOME"] = temp.path("library")
        env["XZMUSIC_DEMO"] = demoFolder
        env["XZMUSIC_OUTPUT"] = "null"
        env["XDG_RUNTIME_DIR"] = temp.path("run")
        env["XDG_CONFIG_HOME"] = temp.path("config")
        env["NO_COLOR"] = "1"
        return env
    }

    @discardableResult
    func xzmusic(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try TestProcess.run(binary, arguments, input: input.map { Data($0.utf8) }, environment: environment)
    }

    /// A command's `--json` output.
    func json(_ result: ProcessResult) throws -> Any {
        try JSONSerialization.jsonObject(with: result.stdoutData)
    }

    /// `xzmusic serve` on a free TCP port, once the songs of a music folder it has not scanned are in (it
    /// scans at start, as MPD): the process and its port.
    func serveOnFreePort() throws -> (RunningProcess, String) {
        let host = try RunningProcess(binary, ["serve", "--port", "0"], environment: environment)
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        let line = try XCTUnwrap(host.stdout.split(separator: "\n").first { $0.contains("hosting") })
        let port = try XCTUnwrap(line.split(separator: ":").last.map(String.init))
        XCTAssertTrue(try eventually(timeout: 10) { !(try mpc(port, "status")).contains("Updating DB") })
        return (host, port)
    }

    /// The real mpc against the host on `port`.
    @discardableResult
    func mpc(_ port: String, _ arguments: String...) throws -> String {
        try TestProcess.runChecked("mpc", ["-p", port] + arguments).stdout
    }
}
