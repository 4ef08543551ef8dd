import Foundation
import XCTest
import XZTestSupport

/// Tests that run the real `xzmusic` binary on a library of their own: its folder, socket folder and
/// config in `temp`, the null output, no colours.
class LibraryProcessTestCase: XCTestCase {
    var temp: TemporaryFolder!
    var binary: String { TestPaths.products.appendingPathComponent("xzmusic").path }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XZMUSIC_HOME"] = temp.path("library")
        env["XZMUSIC_DEMO"] = TestPaths.repositoryRoot.appendingPathComponent("Resources/demo").path
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
}
