import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZStats
import XZTestSupport

/// The `user` commands and `--user` of the stats views, through the xzmusic executable on a library of
/// its own.
final class UserCommandTests: LibraryProcessTestCase {
    private var library: LibraryFolder { LibraryFolder(url: URL(fileURLWithPath: temp.path("library"))) }
    override var demoFolder: String { "" }

    override func setUpWithError() throws {
        temp = try TemporaryFolder("users")
    }

    private func accounts() throws -> AccountStore {
        AccountStore(library: library, database: try LibraryDatabase(path: library.databasePath))
    }

    func testAddListPasswdAPIKeyAndRemove() throws {
        let added = try xzmusic(["user", "add", "王菲", "--password-stdin"], input: "first secret\n")
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.contains("the library's owner"), added.stdout)
        XCTAssertEqual(try xzmusic(["user", "add", "ana", "--jukebox", "--password-stdin"], input: "ana's\r\n").status, 0)
        XCTAssertEqual(try xzmusic(["user", "add", "bo", "--admin", "--password-stdin"], input: "bo").status, 0)
        XCTAssertEqual(try accounts().authenticate(name: "王菲", password: "first secret").id, .owner)
        XCTAssertEqual(try accounts().authenticate(name: "ana", password: "ana's").id, UserID(1), "the line break is not the password's")

        let listed = try XCTUnwrap(json(try xzmusic(["user", "list", "--json"])) as? [[String: Any]])
        XCTAssertEqual(listed.map { $0["name"] as? String }, ["王菲", "ana", "bo"])
        XCTAssertEqual(listed.map { $0["owner"] as? Bool }, [true, false, false])
        XCTAssertEqual(listed.map { $0["admin"] as? Bool }, [true, false, true])
        XCTAssertEqual(listed.map { $0["jukebox"] as? Bool }, [false, true, false])
        let table = try xzmusic(["user", "list"]).stdout
        XCTAssertTrue(table.contains("王菲") && table.contains("Owner"), table)

        // Refused: a name taken, a bad name, no password, no terminal to ask on; nothing changes.
        let taken = try xzmusic(["user", "add", "ana", "--password-stdin"], input: "x\n")
        XCTAssertEqual(taken.status, 1)
        XCTAssertTrue(taken.stderr.contains("already a user named ana"), taken.stderr)
        XCTAssertEqual(try xzmusic(["user", "add", "tab\there", "--password-stdin"], input: "x\n").status, 1)
        XCTAssertEqual(try xzmusic(["user", "add", "cy", "--password-stdin"], input: "").status, 1)
        let noTerminal = try xzmusic(["user", "add", "cy"], input: "secret\nsecret\n")
        XCTAssertEqual(noTerminal.status, 1)
        XCTAssertTrue(noTerminal.stderr.contains("--password-stdin"), noTerminal.stderr)
        XCTAssertEqual(noTerminal.stderr.split(separator: "\n").count, 1, "one line: \(noTerminal.stderr)")
        XCTAssertEqual(try accounts().list().count, 3)

        XCTAssertEqual(try xzmusic(["user", "passwd", "ana", "--password-stdin"], input: "changed\n").status, 0)
        XCTAssertEqual(try accounts().authenticate(name: "ana", password: "changed").name, "ana")
        XCTAssertEqual(try xzmusic(["user", "passwd", "nobody", "--password-stdin"], input: "x\n").status, 1)

        let keyRun = try xzmusic(["user", "apikey", "ana"])
        XCTAssertEqual(keyRun.status, 0, keyRun.stderr)
        let key = keyRun.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(key.count, 43, keyRun.stdout)
        XCTAssertEqual(try accounts().authenticate(apiKey: key).name, "ana")
        XCTAssertEqual((try json(try xzmusic(["user", "list", "--json"])) as? [[String: Any]])?[1]["api_key"] as? Bool, true)

        let owner = try xzmusic(["user", "remove", "王菲"])
        XCTAssertEqual(owner.status, 1)
        XCTAssertTrue(owner.stderr.contains("owner cannot be removed"), owner.stderr)
        XCTAssertEqual(try xzmusic(["user", "remove", "ana"]).status, 0)
        XCTAssertEqual(try accounts().list().map(\.name), ["王菲", "bo"])
        XCTAssertThrowsError(try accounts().authenticate(apiKey: key))
    }

    func testStatsLikedAndHistoryOfAnotherUser() throws {
        XCTAssertEqual(try xzmusic(["import", try writeFeed()]).status, 0)
        XCTAssertEqual(try xzmusic(["user", "add", "owner", "--password-stdin"], input: "a\n").status, 0)
        XCTAssertEqual(try xzmusic(["user", "add", "guest", "--password-stdin"], input: "b\n").status, 0)
        XCTAssertEqual(try xzmusic(["like", "晴天"]).status, 0)
        // The guest's likes and plays come from the API; here they are written as it writes them.
        let guest = try XCTUnwrap(try accounts().user(named: "guest"))
        let guestStats = StatsStore(database: try LibraryDatabase(path: library.databasePath), user: guest.id)
        try guestStats.like(songKey: "src:2")
        try guestStats.recordPlay(songKey: "src:2", title: "七里香", singer: "周杰伦", durationMs: 240_000)

        let ownerLikes = try XCTUnwrap(json(try xzmusic(["liked", "--json"])) as? [[String: Any]])
        XCTAssertEqual(ownerLikes.map { $0["title"] as? String }, ["晴天"])
        let ownerByName = try XCTUnwrap(json(try xzmusic(["liked", "--json", "--user", "owner"])) as? [[String: Any]])
        XCTAssertEqual(ownerByName.map { $0["title"] as? String }, ["晴天"])
        let guestLikes = try XCTUnwrap(json(try xzmusic(["liked", "--json", "--user", "guest"])) as? [[String: Any]])
        XCTAssertEqual(guestLikes.map { $0["title"] as? String }, ["七里香"])

        XCTAssertEqual((try json(try xzmusic(["history", "--json"])) as? [Any])?.count, 0)
        let history = try XCTUnwrap(json(try xzmusic(["history", "--json", "--user", "guest"])) as? [[String: Any]])
        XCTAssertEqual(history.map { $0["title"] as? String }, ["七里香"])
        let stats = try XCTUnwrap(json(try xzmusic(["stats", "--json", "--user", "guest"])) as? [String: Any])
        XCTAssertEqual(stats["plays"] as? Int, 1)
        XCTAssertEqual(stats["liked"] as? Int, 1)
        XCTAssertEqual((try json(try xzmusic(["stats", "--json"])) as? [String: Any])?["plays"] as? Int, 0)

        for command in [["liked"], ["history"], ["stats"], ["stats", "export", "--format", "csv", "-"]] {
            let unknown = try xzmusic(command + ["--user", "nobody"])
            XCTAssertEqual(unknown.status, 1, command.joined(separator: " "))
            XCTAssertEqual(unknown.stderr.split(separator: "\n").map(String.init), ["xzmusic: no user named nobody ('user list' shows them)"])
        }
    }

    private func writeFeed() throws -> String {
        let path = temp.path("feed.jsonl")
        try [#"{"source_id":"1","title":"晴天","singer":"周杰伦"}"#,
             #"{"source_id":"2","title":"七里香","singer":"周杰伦"}"#].joined(separator: "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
