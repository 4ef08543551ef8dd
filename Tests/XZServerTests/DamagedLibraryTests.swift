import Foundation
import XCTest
import XZCatalogue
import XZHostCore
import XZProtocol
import XZServer
import XZTestSupport

/// A damaged library database — empty, cut short, without its header, garbage in its middle — is told
/// in one line that names the file and how to repair it, never with SQL, and never taken for an empty
/// library; over the protocol its failures are one-line ACKs.
final class DamagedLibraryTests: XCTestCase {
    private var folder: TemporaryFolder!
    private var library: LibraryFolder!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("damaged-library")
        library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        // The demo's songs, then closed: the write-ahead log is folded into the file.
        _ = try library.open(seedingDemoFrom: TestPaths.repositoryRoot.appendingPathComponent("Resources/demo"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: library.databasePath + "-wal"))
    }

    override func tearDown() {
        folder = nil
    }

    private func assertOneLine(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(text.contains("\n"), text, file: file, line: line)
        for sql in ["SELECT", "INSERT", "UPDATE", "CREATE", "executing"] {
            XCTAssertFalse(text.contains(sql), text, file: file, line: line)
        }
    }

    private func assertRefusedWhenOpened(_ damage: DamagedDatabase.Damage, saying words: String,
                                         file: StaticString = #filePath, line: UInt = #line) throws {
        try DamagedDatabase.damage(library.databasePath, damage)
        XCTAssertThrowsError(try library.open(seedingDemoFrom: nil), file: file, line: line) { error in
            XCTAssertEqual(error as? CatalogueError, .damaged, "\(error)", file: file, line: line)
            let text = "\(error)"
            assertOneLine(text, file: file, line: line)
            XCTAssertTrue(text.contains(library.databasePath), text, file: file, line: line)
            XCTAssertTrue(text.contains(words), text, file: file, line: line)
            XCTAssertTrue(text.contains("move it aside") || text.contains("aside and run 'xzmusic import'"), text,
                          file: file, line: line)
        }
    }

    func testAnEmptyFileIsRefusedNotTakenForANewLibrary() throws {
        try assertRefusedWhenOpened(.truncated(0), saying: "empty (0 bytes)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: library.databasePath)).count, 0, "left as it was")
    }

    func testAShortTruncatedOrHeaderlessFileIsRefused() throws {
        let good = try Data(contentsOf: URL(fileURLWithPath: library.databasePath))
        try assertRefusedWhenOpened(.truncated(50), saying: "shorter than a database header")
        try good.write(to: URL(fileURLWithPath: library.databasePath))
        try assertRefusedWhenOpened(.truncated(good.count / 3), saying: "where its header counts")
        try good.write(to: URL(fileURLWithPath: library.databasePath))
        try assertRefusedWhenOpened(.garbageHeader, saying: "no SQLite header")
    }

    func testAMissingFileStillMakesANewLibrary() throws {
        try FileManager.default.removeItem(atPath: library.databasePath)
        let database = try library.open(seedingDemoFrom: nil)
        XCTAssertNil(try database.problems(full: true))
    }

    func testGarbageInTheMiddleIsFoundByTheChecksAndEveryFailureIsOneLine() throws {
        try DamagedDatabase.damage(library.databasePath, .garbagePages(containing: "晴天"))
        let database = try library.open(seedingDemoFrom: nil)
        // The checks find it.
        let quick = try XCTUnwrap(try database.problems(full: false))
        let full = try XCTUnwrap(try database.problems(full: true))
        assertOneLine(quick)
        assertOneLine(full)

        // A search that reads the garbage fails as `.damaged`, in one line.
        XCTAssertThrowsError(try CatalogueError.readable { try database.search("晴天", limit: 20) }) { error in
            XCTAssertEqual(error as? CatalogueError, .damaged)
            assertOneLine("\(error)")
            XCTAssertTrue("\(error)".contains("xzmusic check"), "\(error)")
        }

        // Over the protocol: a one-line ACK, and the host goes on answering.
        let host = PlayerHost(folder: library, database: database, output: .null, musicDirectory: folder.url) { _ in }
        let server = ProtocolServer(host: host, password: nil)
        defer {
            server.shutdown()
            host.shutdown()
        }
        let client = try MPDClient.connect(host: "127.0.0.1", port: try server.listen(host: "127.0.0.1", port: 0))
        for request in [MPDRequest(name: "search", arguments: ["title", "晴天"]),
                        MPDRequest(name: "find", arguments: ["(title == '晴天')"]),
                        MPDRequest(name: "listallinfo", arguments: [])] {
            XCTAssertThrowsError(try client.run(request), request.name) { error in
                guard let ack = error as? MPDError else { return XCTFail("\(error)") }
                XCTAssertEqual(ack.code, .system)
                XCTAssertTrue(ack.message.contains("damaged"), ack.message)
                assertOneLine(ack.message)
            }
        }
        XCTAssertNoThrow(try client.run(MPDRequest(name: "status", arguments: [])))
    }
}
