import Foundation
import XCTest
import XZSubsonicAPI
import XZTestSupport

/// The real `xzmusic serve` with the Subsonic API on, over a generated music folder, driven by real client
/// libraries from PyPI (`Tests/SubsonicClients/real_clients.py`: py-opensonic and knuckles, every JSON
/// answer validated against the spec's schema, XML against JSON, transcodes decoded by ffmpeg).
final class RealClientTests: XCTestCase {
    private var binary: String { TestPaths.products.appendingPathComponent("xzmusic").path }
    private var clients: URL { TestPaths.repositoryRoot.appendingPathComponent("Tests/SubsonicClients") }

    /// The Python environment `scripts/subsonic-venv.sh` makes (`make test` runs it first).
    private func python() throws -> String {
        let python = TestPaths.repositoryRoot.appendingPathComponent(".build/subsonic-venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw XCTSkip("the Python environment is absent: scripts/subsonic-venv.sh makes it (make test runs it)")
        }
        return python
    }

    /// The spec's openapi folder beside the repository, nil when `../shared` is absent (the clients still
    /// run; no schema is checked).
    private var spec: URL? {
        let shared = TestPaths.repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
        let spec = shared.appendingPathComponent("reference/opensubsonic-api/openapi")
        return FileManager.default.fileExists(atPath: spec.appendingPathComponent("schemas/Child.json").path) ? spec : nil
    }

    func testRealClientsDriveEveryEndpointOfTheTable() throws {
        let python = try python()
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw XCTSkip("xzmusic is not built at \(binary)") }
        let temp = try TemporaryFolder("clients")
        let music = temp.url.appendingPathComponent("music")
        let manifest = temp.url.appendingPathComponent("manifest.json")
        let made = try TestProcess.runChecked(python, [clients.appendingPathComponent("make_library.py").path, music.path])
        try made.stdoutData.write(to: manifest)

        let config = temp.url.appendingPathComponent("config/xzmusic")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "music_directory = \(music.path)\n".write(to: config.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["XZMUSIC_HOME"] = temp.path("library")
        environment["XZMUSIC_DEMO"] = ""
        environment["XZMUSIC_OUTPUT"] = "null"
        environment["XDG_RUNTIME_DIR"] = temp.path("run")
        environment["XDG_CONFIG_HOME"] = temp.path("config")
        environment["NO_COLOR"] = "1"
        func xzmusic(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
            try TestProcess.runChecked(binary, arguments, input: input.map { Data($0.utf8) }, environment: environment)
        }
        try xzmusic(["user", "add", "alice", "--admin", "--password-stdin"], input: "secret alice 甲\n")
        try xzmusic(["user", "add", "bob", "--password-stdin"], input: "bob's secret\n")
        let apiKey = try XCTUnwrap(xzmusic(["user", "apikey", "alice"]).stdout.split(separator: "\n").first.map(String.init))

        let host = try RunningProcess(binary, ["serve", "--no-tcp", "--subsonic-port", "0"], environment: environment)
        defer {
            host.signal(SIGTERM)
            _ = host.finish()
        }
        XCTAssertTrue(host.waitForOutput("/rest"), "host did not start: \(host.stdout) \(host.stderr)")
        let line = try XCTUnwrap(host.stdout.split(separator: "\n").first { $0.contains("/rest") })
        let port = try XCTUnwrap(line.split(separator: ":").last?.split(separator: "/").first.map(String.init))

        var arguments = [clients.appendingPathComponent("real_clients.py").path, "--port", port,
                         "--user", "alice", "--password", "secret alice 甲", "--other-user", "bob", "--other-password", "bob's secret",
                         "--api-key", apiKey, "--manifest", manifest.path,
                         "--endpoints", SubsonicEndpoints.all.keys.sorted().joined(separator: ",")]
        if let spec { arguments += ["--spec", spec.path] }
        let result = try TestProcess.run(python, arguments, environment: environment)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        // Each endpoint's verdict in the test's log.
        print(lines.joined(separator: "\n"))
        for failure in lines where failure.hasPrefix("FAIL ") { XCTFail(failure) }
        XCTAssertEqual(result.status, 0, "real_clients.py: \(result.stdout.suffix(2_000)) \(result.stderr.suffix(3_000))")
        let passed = lines.filter { $0.hasPrefix("PASS ") }.count
        XCTAssertGreaterThanOrEqual(passed, SubsonicEndpoints.all.count - lines.filter { $0.hasPrefix("SKIP ") }.count,
                                    "every endpoint of the table is driven")
        if spec == nil { print("note: ../shared is absent: no answer was validated against the spec's schemas") }
    }
}
