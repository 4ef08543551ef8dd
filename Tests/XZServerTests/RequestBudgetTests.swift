import Foundation
import XCTest
import XZProtocol
@testable import XZServer
import XZHostAssembly
import XZSystem
import XZTestSupport

/// A request, or a command list, past its time budget is cancelled with an ACK, its SQL stopped where it
/// was; the connection's next request is answered as usual.
final class RequestBudgetTests: XCTestCase {
    private var feedHost: FeedLibraryHost!

    override func tearDown() {
        feedHost?.shutdown()
        feedHost = nil
    }

    /// A library over which one runaway pattern costs seconds (each value gives up at the match limit),
    /// behind a host whose budget is a small part of that.
    private func slowLibraryHost() throws -> MPDClient {
        var limits = ServerLimits()
        limits.requestBudget = .milliseconds(50)
        let long = (0..<10_000).map { String(repeating: "a", count: 30 + $0 % 5) + "X" + String(repeating: "a", count: 5) }
        feedHost = try FeedLibraryHost(titles: long + ["ba"], limits: limits)
        return try feedHost.client()
    }

    private let runaway = "\"(Title =~ '^(a|a)*$')\""
    private let passed = "the request took longer than its time budget"

    func testARequestPastItsBudgetIsCancelledAndTheNextIsAnswered() throws {
        let client = try slowLibraryHost()
        for line in ["find \(runaway)", "search \(runaway)", "count \(runaway)", "list Title \(runaway)",
                     "list file \(runaway)", "findadd \(runaway)", "searchaddpl slow \(runaway)",
                     "find \(runaway) sort Title", "count \(runaway) group Album", "list Album \(runaway) group Artist"] {
            let command = String(line.prefix { $0 != " " })
            XCTAssertEqual(RealMPD.answer(client, line), ["ACK 52 {\(command)} \(passed)"], line)
            XCTAssertEqual(RealMPD.answer(client, "find \"(Title == 'ba')\"").filter { $0.hasPrefix("Title") }, ["Title: ba"],
                           "after \(line)")
        }
        XCTAssertEqual(RealMPD.answer(client, "status").filter { $0.hasPrefix("playlistlength") }, ["playlistlength: 0"])
        XCTAssertEqual(RealMPD.answer(client, "listplaylists"), [])
    }

    func testACommandListSharesOneBudget() throws {
        let client = try slowLibraryHost()
        try client.sendLine("command_list_ok_begin")
        try client.sendLine("find \"(Title == 'ba')\"")
        try client.sendLine("find \(runaway)")
        try client.sendLine("ping")
        try client.sendLine("command_list_end")
        var lines: [String] = []
        while true {
            let line = try client.readLine()
            lines.append(line)
            if line == "OK" || line.hasPrefix("ACK") { break }
        }
        XCTAssertEqual(lines.filter { !$0.hasPrefix("file") && !$0.hasPrefix("Last-Modified") && !$0.hasPrefix("Artist")
                && !$0.hasPrefix("Album") },
                       ["Title: ba", "list_OK", "ACK [52@1] {find} \(passed)"])
        // Each of these alone is far within the budget; together they are not.
        try client.sendLine("command_list_begin")
        for _ in 0..<2_000 { try client.sendLine("count \"(Title == 'ba')\"") }
        try client.sendLine("command_list_end")
        XCTAssertThrowsError(try client.readResponse()) { error in
            XCTAssertEqual((error as? MPDError)?.code, .system)
            XCTAssertEqual((error as? MPDError)?.message, passed)
        }
        XCTAssertEqual(RealMPD.answer(client, "count \"(Title == 'ba')\""), ["songs: 1"])
    }

    func testTheBudgetIsAConfigKey() throws {
        let settings = try HostSettings(config: ConfigFile(parsing: "request_time_budget = 2.5"))
        XCTAssertEqual(settings.limits.requestBudget, .milliseconds(2_500))
        XCTAssertEqual(try HostSettings(config: ConfigFile(parsing: "")).limits.requestBudget, .seconds(10))
        for bad in ["0", "-1", "nan", "inf", "1e300", "ten"] {
            XCTAssertThrowsError(try HostSettings(config: ConfigFile(parsing: "request_time_budget = \(bad)")), bad)
        }
    }
}
