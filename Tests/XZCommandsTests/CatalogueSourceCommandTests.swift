import Foundation
import XCTest
import XZTestSupport

/// `catalogue search` and `catalogue add` through the xzmusic executable against a ccMixter-shaped server.
final class CatalogueSourceCommandTests: XCTestCase {
    private var temp: TemporaryFolder!
    private var binary: String { TestPaths.products.appendingPathComponent("xzmusic").path }

    override func setUpWithError() throws {
        temp = try TemporaryFolder("catalogue-source")
    }

    private var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XZMUSIC_HOME"] = temp.path("library")
        env["XZMUSIC_DEMO"] = ""
        env["XDG_CONFIG_HOME"] = temp.path("config")
        return env
    }

    private func configure(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: temp.path("config/xzmusic"), withIntermediateDirectories: true)
        try text.write(toFile: temp.path("config/xzmusic/config"), atomically: true, encoding: .utf8)
    }

    @discardableResult
    private func xzmusic(_ arguments: String...) throws -> ProcessResult {
        try TestProcess.run(binary, arguments, environment: environment)
    }

    func testSearchListsWithoutAddingAndAddAllAddsWithLicenceAndPage() throws {
        let answer = #"""
        [{"upload_id": 0777, "upload_name": "Night Drive", "user_name": "kp", "user_real_name": "K. P.",
          "upload_date": "2011-07-08 09:10:11", "upload_num_scores": 012,
          "license_url": "http://creativecommons.org/licenses/by-nc/3.0/", "file_page_url": "http://ccmixter.org/files/kp/777",
          "files": [{"file_name": "kp_-_Night_Drive.mp3", "download_url": "http://127.0.0.1:9/kp.mp3", "file_rawsize": 01234,
                     "file_format_info": {"mime_type": "audio/mpeg", "ps": "4:01"}}]}]
        """#
        let server = try TestHTTPServer { request, _ in
            request.path == "/api/query" ? .text(200, answer, type: "application/json") : .text(404, "not found")
        }
        defer { server.stop() }
        try configure("ccmixter_url = \(server.base)\n")

        let search = try xzmusic("catalogue", "search", "ccmixter", "night", "drive")
        XCTAssertEqual(search.status, 0, search.stderr)
        XCTAssertTrue(search.stdout.contains("777  Night Drive — K. P."), search.stdout)
        XCTAssertEqual(server.requests(path: "/api/query").first?.query["search"], "night drive")
        XCTAssertTrue(try xzmusic("search", "night").stdout.contains("No matches."), "search adds nothing")

        XCTAssertEqual(try xzmusic("catalogue", "add", "ccmixter", "999").status, 1, "an ID the search did not list")
        let add = try xzmusic("catalogue", "add", "ccmixter", "--all")
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(add.stdout, "ccmixter: 1 added, 0 updated, 0 skipped, 0 failed\n")

        let listing = try xzmusic("search", "night")
        XCTAssertTrue(listing.stdout.contains("Night Drive"), listing.stdout)
        XCTAssertTrue(listing.stdout.hasSuffix("online\n"), "a song with no file here is marked online: \(listing.stdout)")
        let info = try xzmusic("info", "Night Drive")
        XCTAssertTrue(info.stdout.contains("licence     http://creativecommons.org/licenses/by-nc/3.0/"), info.stdout)
        XCTAssertTrue(info.stdout.contains("source page http://ccmixter.org/files/kp/777"), info.stdout)
        XCTAssertTrue(info.stdout.contains("size        1234"), info.stdout)
    }

    func testASourceAnsweringHTMLIsOneLineAndChangesNothing() throws {
        let server = try TestHTTPServer { _, _ in .text(200, "<html><body>\nMaintenance\n</body></html>", type: "text/html") }
        defer { server.stop() }
        try configure("archive_url = \(server.base)\n")
        let result = try xzmusic("catalogue", "search", "archive", "anything")
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("archive: 127.0.0.1 answered something other than JSON (text/html)"), result.stderr)
        XCTAssertEqual(try xzmusic("catalogue", "add", "archive", "--all").status, 1, "nothing was remembered to add")
    }
}
