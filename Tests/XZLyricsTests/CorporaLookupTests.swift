import Foundation
import XCTest
import XZTestSupport
import XZCorpusTestSupport

/// Where corpus tests look for the public corpora: $XZMUSIC_CORPORA, else Tests/Corpora, else
/// ../shared/corpora; nowhere means a skip that says how to get them.
final class CorporaLookupTests: XCTestCase {
    private var temporary: TemporaryFolder!
    private var repository: URL!
    private var fetched: URL!
    private var shared: URL!
    private var chosen: URL!

    override func setUpWithError() throws {
        temporary = try TemporaryFolder("corpora-lookup")
        repository = temporary.url.appendingPathComponent("xzmusic")
        fetched = repository.appendingPathComponent("Tests/Corpora/lrc")
        shared = temporary.url.appendingPathComponent("shared/corpora/lrc")
        chosen = temporary.url.appendingPathComponent("chosen/lrc")
        for folder in [fetched!, shared!, chosen!] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("[00:01.00]x\n".utf8).write(to: folder.appendingPathComponent("a.lrc"))
        }
    }

    override func tearDown() { temporary = nil }

    private func locate(_ environment: [String: String], files: [String] = ["a.lrc"]) -> String? {
        Corpora.locate("lrc", files: files, environment: environment, repositoryRoot: repository)?.standardizedFileURL.path
    }

    func testTheVariableBeatsTestsCorporaWhichBeatsShared() throws {
        let variable = ["XZMUSIC_CORPORA": chosen.deletingLastPathComponent().path]
        XCTAssertEqual(locate(variable), chosen.path)
        XCTAssertEqual(locate([:]), fetched.path)
        try FileManager.default.removeItem(at: fetched)
        XCTAssertEqual(locate([:]), shared.path)
    }

    func testAFolderLackingAFileIsPassedOver() throws {
        try FileManager.default.removeItem(at: fetched.appendingPathComponent("a.lrc"))
        XCTAssertEqual(locate([:]), shared.path)
        XCTAssertNil(locate([:], files: ["b.lrc"]))
    }

    /// A variable that is set is the only place looked at; `none` means no corpora at all.
    func testTheVariableIsTheOnlyPlaceWhenSet() throws {
        XCTAssertNil(locate(["XZMUSIC_CORPORA": temporary.url.appendingPathComponent("empty").path]))
        XCTAssertNil(locate(["XZMUSIC_CORPORA": "none"]))
        XCTAssertEqual(Corpora.roots(environment: ["XZMUSIC_CORPORA": "none"], repositoryRoot: repository), [])
    }

    func testNoCorpusSkipsWithOneLineSayingHowToGetIt() throws {
        XCTAssertThrowsError(try Corpora.require("lrc", files: ["a.lrc"], environment: ["XZMUSIC_CORPORA": "none"],
                                                 repositoryRoot: repository)) { error in
            guard let skip = error as? XCTSkip else { return XCTFail("\(error) is no skip") }
            let message = skip.message ?? ""
            XCTAssertTrue(message.hasPrefix(Corpora.skipPrefix + ": lrc"), message)
            XCTAssertTrue(message.contains("make corpora"), message)
            XCTAssertFalse(message.contains("\n"), message)
        }
        XCTAssertEqual(try Corpora.require("lrc", environment: [:], repositoryRoot: repository).standardizedFileURL.path,
                       fetched.path)
    }
}
