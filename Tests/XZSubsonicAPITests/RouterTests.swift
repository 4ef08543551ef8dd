import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZHostCore
import XZSystem
import XZTestSupport
@testable import XZSubsonicAPI

/// The router over a real library with two users: `.view` stripped, credentials checked before an
/// answer runs, roles enforced, and every failure an error document whose text names no path.
final class RouterTests: XCTestCase {
    private var folder: TemporaryFolder!
    private var host: PlayerHost!
    private var library: SubsonicLibrary!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("router")
        let libraryFolder = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let database = try libraryFolder.open(seedingDemoFrom: nil)
        host = PlayerHost(folder: libraryFolder, database: database, output: .null,
                          musicDirectory: folder.url.appendingPathComponent("music"), seed: 1) { _ in }
        let accounts = AccountStore(library: libraryFolder, database: database)
        try accounts.add(name: "admin", password: "pw")
        try accounts.add(name: "user", password: "pw", mayJukebox: false)
        library = SubsonicLibrary(host: host, accounts: accounts, settings: SubsonicSettings(cacheFolder: folder.url))
    }

    override func tearDown() {
        host.shutdown()
        host = nil
        library = nil
        folder = nil
    }

    private func request(_ endpoint: String, _ query: [(String, String)], address: String = "10.0.0.1") -> SubsonicRequest {
        SubsonicRequest(endpoint: endpoint, parameters: query.map { (name: $0.0, value: $0.1) }, clientAddress: address)
    }

    private static let admin = [("u", "admin"), ("p", "pw"), ("v", "1.16.1"), ("c", "test")]
    private static let user = [("u", "user"), ("p", "pw"), ("v", "1.16.1"), ("c", "test")]

    private func failure(_ outcome: SubsonicOutcome, file: StaticString = #filePath, line: UInt = #line) -> (code: Int, status: Int, message: String)? {
        switch outcome {
        case .failure(let error, let status): return (error.code, status, error.message)
        case .reply: return nil
        case .rangeNotSatisfiable:
            XCTFail("a range failure", file: file, line: line)
            return nil
        }
    }

    func testViewIsStrippedAndUnknownEndpointsAre404() {
        let router = SubsonicRouter(library: library)
        XCTAssertNil(failure(router.respond(request("ping.view", Self.admin))))
        XCTAssertNil(failure(router.respond(request("ping", Self.admin))))
        let unknown = failure(router.respond(request("nope.view", Self.admin)))
        XCTAssertEqual(unknown?.code, 0)
        XCTAssertEqual(unknown?.status, 404)
        XCTAssertEqual(SubsonicRouter.endpointName("getAlbum.view"), "getAlbum")
        XCTAssertEqual(SubsonicRouter.endpointName("view"), "view")
    }

    func testCredentialsComeBeforeTheAnswerAndRolesAreEnforced() {
        let ran = Mutex(0)
        let endpoints = Dictionary(uniqueKeysWithValues: [
            SubsonicEndpoint("userThing") { _ in ran.withLock { $0 += 1 }; return .empty },
            SubsonicEndpoint("adminThing", .admin) { _ in ran.withLock { $0 += 1 }; return .empty },
            SubsonicEndpoint("jukeboxThing", .jukebox) { _ in ran.withLock { $0 += 1 }; return .empty },
            SubsonicEndpoint("open", .anyone) { call in
                XCTAssertNil(call.user)
                return .empty
            },
        ].map { ($0.name, $0) })
        let router = SubsonicRouter(library: library, endpoints: endpoints)
        XCTAssertEqual(failure(router.respond(request("userThing", [("u", "admin"), ("p", "no"), ("v", "1"), ("c", "t")])))?.code, 40)
        XCTAssertEqual(failure(router.respond(request("userThing", [])))?.code, 10)
        XCTAssertEqual(ran.withLock { $0 }, 0, "no answer runs before its caller is known")
        XCTAssertEqual(failure(router.respond(request("adminThing", Self.user)))?.code, 50)
        XCTAssertEqual(failure(router.respond(request("jukeboxThing", Self.user)))?.code, 50)
        XCTAssertEqual(ran.withLock { $0 }, 0)
        XCTAssertNil(failure(router.respond(request("userThing", Self.user))))
        XCTAssertNil(failure(router.respond(request("adminThing", Self.admin))))
        XCTAssertNil(failure(router.respond(request("jukeboxThing", Self.admin))))
        XCTAssertEqual(ran.withLock { $0 }, 3)
        XCTAssertNil(failure(router.respond(request("open", []))))
    }

    func testWrongCredentialsAreCountedPerAddress() {
        let router = SubsonicRouter(library: library)
        _ = router.respond(request("ping", [("u", "admin"), ("p", "wrong"), ("v", "1"), ("c", "t")], address: "10.0.0.9"))
        XCTAssertGreaterThan(router.throttle.delay(for: "10.0.0.9"), .zero)
        XCTAssertEqual(router.throttle.delay(for: "10.0.0.8"), .zero)
        _ = router.respond(request("ping", Self.admin, address: "10.0.0.9"))
        XCTAssertEqual(router.throttle.delay(for: "10.0.0.9"), .zero)
    }

    func testFailuresKeepTheirCodesAndTellNoPath() {
        struct Leaky: Error, CustomStringConvertible {
            var description: String { "cannot read /home/someone/Music/a b.mp3: no such file\nsecond line /etc" }
        }
        let endpoints = Dictionary(uniqueKeysWithValues: [
            SubsonicEndpoint("leak") { _ in throw Leaky() },
            SubsonicEndpoint("missing") { _ in throw UserDataError.notFound },
            SubsonicEndpoint("coded") { _ in throw SubsonicError.notFound("no such album") },
            SubsonicEndpoint("range") { _ in throw MediaError.rangeNotSatisfiable(fileSize: 99) },
            SubsonicEndpoint("busy") { _ in throw SubsonicError.tooManyTranscodes },
        ].map { ($0.name, $0) })
        let router = SubsonicRouter(library: library, endpoints: endpoints)
        let leak = failure(router.respond(request("leak", Self.user)))
        XCTAssertEqual(leak?.code, 0)
        XCTAssertEqual(leak?.message, "cannot read … b.mp3: no such file")
        XCTAssertEqual(failure(router.respond(request("missing", Self.user)))?.code, 70)
        XCTAssertEqual(failure(router.respond(request("coded", Self.user)))?.message, "no such album")
        XCTAssertEqual(failure(router.respond(request("busy", Self.user)))?.status, 429)
        guard case .rangeNotSatisfiable(let size) = router.respond(request("range", Self.user)) else {
            return XCTFail("a range failure is its own outcome")
        }
        XCTAssertEqual(size, 99)
        XCTAssertEqual(SubsonicRouter.readableLine(Leaky()), "cannot read … b.mp3: no such file")
        XCTAssertEqual(SubsonicRouter.readableLine(SubsonicError.generic("and/or 1/2 file:///etc/x")), "and/or 1/2 file:…")
    }

    func testPasswordsClearOrHex() {
        XCTAssertEqual(SubsonicAuthentication.password("sesame"), "sesame")
        XCTAssertEqual(SubsonicAuthentication.password("enc:736573616d65"), "sesame")
        XCTAssertEqual(SubsonicAuthentication.password("enc:736573616D65"), "sesame")
        XCTAssertEqual(SubsonicAuthentication.password("enc:e78e8be88fb2"), "王菲")
        XCTAssertEqual(SubsonicAuthentication.password("enc:"), "")
        XCTAssertNil(SubsonicAuthentication.password("enc:7"))
        XCTAssertNil(SubsonicAuthentication.password("enc:zz"))
        XCTAssertNil(SubsonicAuthentication.password("enc:ff"), "no UTF-8")
    }
}
