import Foundation
import XCTest
import XZTestSupport

/// `xzmusic check` on a sound and on damaged libraries, and what the other commands, the prompt, `serve`
/// and an MPD client (mpc) say of a damaged one: one line, the file and a repair hint, never SQL.
final class CheckCommandTests: LibraryProcessTestCase {
    private var databasePath: String { temp.path("library") + "/library.sqlite" }

    override func setUpWithError() throws {
        temp = try TemporaryFolder("check")
        XCTAssertEqual(try xzmusic(["info", "#1"]).status, 0, "the library and its demo")
    }

    private func assertOneLine(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(text.split(separator: "\n").count, 1, text, file: file, line: line)
        for sql in ["SELECT", "FROM", "executing"] { XCTAssertFalse(text.contains(sql), text, file: file, line: line) }
    }

    func testASoundLibraryAndAMissingOne() throws {
        let sound = try xzmusic(["check"])
        XCTAssertEqual(sound.status, 0, sound.stderr)
        XCTAssertEqual(sound.stdout, "library database \(databasePath) is sound (integrity check ok)\n")

        try FileManager.default.removeItem(atPath: databasePath)
        let missing = try xzmusic(["check"])
        XCTAssertEqual(missing.status, 0)
        XCTAssertTrue(missing.stdout.contains("nothing to check"), missing.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: databasePath), "checking makes no library")
    }

    func testAnEmptyFileIsRefusedByEveryCommand() throws {
        try DamagedDatabase.damage(databasePath, .truncated(0))
        for arguments in [["check"], ["search", "晴天"], ["playlist", "add", "mix", "#1"]] {
            let result = try xzmusic(arguments)
            XCTAssertEqual(result.status, 1, arguments.joined(separator: " "))
            assertOneLine(result.stderr)
            XCTAssertTrue(result.stderr.contains("is empty (0 bytes)"), result.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: databasePath)).count, 0, "never made an empty library")
    }

    func testGarbageInTheMiddleIsToldByCheckCommandsThePromptServeAndMPDClients() throws {
        try DamagedDatabase.damage(databasePath, .garbagePages(containing: "晴天"))

        let check = try xzmusic(["check"])
        XCTAssertEqual(check.status, 1)
        assertOneLine(check.stderr)
        XCTAssertTrue(check.stderr.contains("\(databasePath) is damaged"), check.stderr)
        XCTAssertTrue(check.stderr.contains("'xzmusic import' again") && check.stderr.contains(".recover"), check.stderr)

        let search = try xzmusic(["search", "晴天"])
        XCTAssertEqual(search.status, 1)
        assertOneLine(search.stderr)
        XCTAssertTrue(search.stderr.contains("damaged") && search.stderr.contains("xzmusic check"), search.stderr)

        let prompt = try xzmusic([], input: "search 晴天\nquit\n")
        let errors = prompt.stderr.split(separator: "\n").filter { $0.contains("damaged") }
        XCTAssertEqual(errors.count, 1, prompt.stderr)
        assertOneLine(prompt.stderr.split(separator: "\n").filter { !$0.isEmpty }.map(String.init).last ?? "")
        XCTAssertFalse(prompt.stderr.contains("SELECT"), prompt.stderr)

        // serve warns at start, in one line, and answers what it can; mpc reads a one-line error.
        let host = try RunningProcess(binary, ["serve", "--port", "0"], environment: environment)
        defer {
            host.signal(SIGTERM)
            _ = host.finish()
        }
        XCTAssertTrue(host.waitForOutput("hosting"), host.stderr)
        XCTAssertTrue(try eventually(timeout: 20) { host.stderr.contains("warning") }, host.stderr)
        let warning = host.stderr.split(separator: "\n").filter { $0.contains("warning") }
        XCTAssertEqual(warning.count, 1, host.stderr)
        XCTAssertTrue(warning.first?.contains("is damaged") == true, host.stderr)
        assertOneLine(String(warning[0]))
        let line = try XCTUnwrap(host.stdout.split(separator: "\n").first { $0.contains("hosting") })
        let port = try XCTUnwrap(line.split(separator: ":").last.map(String.init))
        let mpc = try TestProcess.run("mpc", ["-p", port, "search", "title", "晴天"])
        XCTAssertNotEqual(mpc.status, 0)
        assertOneLine(mpc.stderr)
        XCTAssertTrue(mpc.stderr.contains("damaged"), mpc.stderr)
        XCTAssertEqual(try TestProcess.run("mpc", ["-p", port, "status"]).status, 0, "the host goes on serving")
    }
}
