import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
import XZAccounts
import XZCatalogue
import XZHostAssembly
import XZSubsonicAPI
import XZSystem
@testable import XZSubsonicServer
import XZTestSupport

/// The API over real HTTP on 127.0.0.1: every way of signing in with the spec's codes, GET, POST and
/// `.view` alike, HEAD, the three formats, unknown endpoints, users and scans, files with ranges.
final class SubsonicServerTests: XCTestCase {
    private var fixture: SubsonicServerFixture!

    override func setUp() async throws {
        fixture = try await SubsonicServerFixture()
    }

    override func tearDown() async throws {
        await fixture?.stop()
        fixture = nil
    }

    // MARK: Authentication

    func testEverySignInRightAndWrongHasTheSpecsCode() async throws {
        let f = fixture!
        let salt = "c19b2d"
        let token = SubsonicServerFixture.token("sesame", salt: salt)
        let hex = Data("sesame".utf8).map { String(format: "%02x", $0) }.joined()
        // Right, each followed by nothing wrong: the address is never held.
        let right = [
            "u=owner&p=sesame&v=1.16.1&c=test",
            "u=owner&p=enc:\(hex)&v=1.16.1&c=test",
            "u=owner&p=enc:\(hex.uppercased())&v=1.16.1&c=test",
            "u=owner&t=\(token)&s=\(salt)&v=1.13.0&c=test",
            "apiKey=\(f.bobKey)&v=1.16.1&c=test",
            "apiKey=\(f.bobKey)&c=test&v=1.2",
        ]
        for query in right {
            let code = try await f.code("ping", query)
            XCTAssertNil(code, query)
        }
        // Wrong, each one followed by a right one, so the throttle's wait never grows past its first step.
        let wrong: [(String, Int)] = [
            ("u=owner&p=wrong&v=1.16.1&c=test", 40),
            ("u=nobody&p=sesame&v=1.16.1&c=test", 40),
            ("u=owner&p=enc:zz&v=1.16.1&c=test", 40),
            ("u=owner&p=enc:736&v=1.16.1&c=test", 40),
            ("u=owner&p=enc:ff&v=1.16.1&c=test", 40),
            ("u=owner&t=\(token)&s=other&v=1.16.1&c=test", 40),
            ("u=owner&t=\(String(repeating: "0", count: 32))&s=\(salt)&v=1.16.1&c=test", 40),
            ("apiKey=not-a-key&v=1.16.1&c=test", 44),
        ]
        for (query, expected) in wrong {
            let code = try await f.code("ping", query)
            XCTAssertEqual(code, expected, query)
            let again = try await f.code("ping", SubsonicServerFixture.owner)
            XCTAssertNil(again)
        }
        // Refused before any credential is checked.
        let refused: [(String, Int)] = [
            ("v=1.16.1&c=test", 10),
            ("u=owner&v=1.16.1&c=test", 10),
            ("u=owner&t=\(token)&v=1.16.1&c=test", 10),
            ("u=owner&s=\(salt)&v=1.16.1&c=test", 10),
            ("u=owner&p=sesame&c=test", 10),
            ("u=owner&p=sesame&v=1.16.1", 10),
            ("apiKey=\(f.bobKey)&u=bob&v=1.16.1&c=test", 43),
            ("apiKey=\(f.bobKey)&p=bobpw&v=1.16.1&c=test", 43),
            ("u=owner&p=sesame&t=\(token)&s=\(salt)&v=1.16.1&c=test", 43),
            ("u=owner&p=sesame&v=2.0.0&c=test", 30),
            ("u=owner&p=sesame&v=0.9&c=test", 20),
        ]
        for (query, expected) in refused {
            let code = try await f.code("ping", query)
            XCTAssertEqual(code, expected, query)
        }
        // The one endpoint anyone may call.
        let extensions = try await f.code("getOpenSubsonicExtensions", "")
        XCTAssertNil(extensions)
        // tokenInfo names the key's user.
        let info = try await f.json("tokenInfo", "apiKey=\(f.bobKey)&v=1.16.1&c=test").envelope()
        XCTAssertEqual((info["tokenInfo"] as? [String: Any])?["username"] as? String, "bob")
    }

    func testWrongCredentialsHoldTheAddressUntilRightOnes() async throws {
        let f = fixture!
        let throttle = f.server.router.throttle
        XCTAssertEqual(throttle.delay(for: "127.0.0.1"), .zero)
        let first = try await f.code("ping", "u=owner&p=guess1&v=1.16.1&c=test")
        XCTAssertEqual(first, 40)
        let afterOne = throttle.delay(for: "127.0.0.1")
        XCTAssertGreaterThan(afterOne, .zero)
        let second = try await f.code("ping", "u=owner&p=guess2&v=1.16.1&c=test")
        XCTAssertEqual(second, 40)
        XCTAssertGreaterThan(throttle.delay(for: "127.0.0.1"), afterOne, "each wrong guess waits longer")
        // Another address is not held.
        XCTAssertEqual(throttle.delay(for: "192.0.2.1"), .zero)
        let right = try await f.code("ping", SubsonicServerFixture.owner)
        XCTAssertNil(right)
        XCTAssertEqual(throttle.delay(for: "127.0.0.1"), .zero)
    }

    /// A host counts wrong credentials once per address over MPD and the API: wrong MPD passwords hold the
    /// API's next request from that address, right API credentials clear MPD's count, and wrong API ones
    /// hold MPD's next `password`.
    @MainActor
    func testOneCountOfWrongCredentialsPerAddressOverMPDAndTheAPI() async throws {
        let temp = try TemporaryFolder("subsonic-shared-throttle")
        let music = temp.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        let library = LibraryFolder(url: temp.url.appendingPathComponent("library"))
        let database = try library.open(seedingDemoFrom: nil)
        try AccountStore(library: library, database: database).add(name: "anna", password: "pw")
        let keys = "music_directory = \(music.path)\nmpris = no\nzeroconf_enabled = no\nport = 0\npassword = secret\nsubsonic_port = 0\n"
        let configuration = try HostConfiguration(config: ConfigFile(parsing: keys), output: .null)
        let host = try await LibraryHost.start(configuration, library: library, database: database, listening: .socketAndTCP)
        let mpdPort = try XCTUnwrap(host.tcpPort)
        let apiPort = try XCTUnwrap(host.subsonicPort)
        let counted = host.service.credentials
        XCTAssertEqual(counted.delay(for: "127.0.0.1"), .zero)

        let mpd = try RawConnection(port: mpdPort)
        defer { mpd.close() }
        XCTAssertTrue(String(decoding: mpd.receiveUntilClosedOr(bytes: 1 << 10, containing: "\n"), as: UTF8.self).hasPrefix("OK MPD"))
        for guess in ["guess1", "guess2"] {
            mpd.send(Array("password \(guess)\n".utf8))
            let answer = String(decoding: mpd.receiveUntilClosedOr(bytes: 1 << 10, containing: "\n"), as: UTF8.self)
            XCTAssertTrue(answer.hasPrefix("ACK"), answer)
        }
        XCTAssertEqual(counted.delay(for: "127.0.0.1"), CredentialThrottle.delay(afterFailures: 2),
                       "the API's next request from the address waits as MPD's next password would")

        // The API's right credentials are counted in the same table: the address is no longer held.
        let api = "http://127.0.0.1:\(apiPort)/rest/ping.view?v=1.16.1&c=test&f=json&u=anna&p="
        let (right, _) = try await URLSession.shared.data(from: URL(string: api + "pw")!)
        XCTAssertTrue(String(decoding: right, as: UTF8.self).contains("\"status\":\"ok\""))
        XCTAssertEqual(counted.delay(for: "127.0.0.1"), .zero)

        // And its wrong ones hold MPD's next password.
        let (wrong, _) = try await URLSession.shared.data(from: URL(string: api + "guess")!)
        XCTAssertTrue(String(decoding: wrong, as: UTF8.self).contains("\"code\":40"))
        XCTAssertEqual(counted.delay(for: "127.0.0.1"), CredentialThrottle.delay(afterFailures: 1))
        await host.stop()
    }

    func testAccessByRole() async throws {
        let f = fixture!
        let asBob = try await f.code("getUsers", SubsonicServerFixture.bob)
        XCTAssertEqual(asBob, 50)
        let startByBob = try await f.code("startScan", SubsonicServerFixture.bob)
        XCTAssertEqual(startByBob, 50)
        let users = try await f.json("getUsers", SubsonicServerFixture.owner).envelope()
        let names = ((users["users"] as? [String: Any])?["user"] as? [[String: Any]])?.compactMap { $0["username"] as? String }
        XCTAssertEqual(Set(names ?? []), ["owner", "bob"])
        let scan = try await f.json("startScan", SubsonicServerFixture.owner).envelope()
        XCTAssertNotNil(scan["scanStatus"])
        f.host.updates.wait()
        let status = try await f.json("getScanStatus", SubsonicServerFixture.bob).envelope()
        XCTAssertEqual((status["scanStatus"] as? [String: Any])?["count"] as? Int, 1)
        XCTAssertEqual((status["scanStatus"] as? [String: Any])?["scanning"] as? Bool, false)
    }

    // MARK: Users

    func testAdminsManageUsersAndAUserTheirOwnPassword() async throws {
        let f = fixture!
        let owner = SubsonicServerFixture.owner
        let created = try await f.code("createUser", "\(owner)&username=carol&password=enc:63617a&email=c@example.org&jukeboxRole=true")
        XCTAssertNil(created)
        let carol = "u=carol&p=caz&v=1.16.1&c=test"
        let me = try await f.json("getUser", "\(carol)&username=carol").envelope()
        let user = try XCTUnwrap(me["user"] as? [String: Any])
        XCTAssertEqual(user["jukeboxRole"] as? Bool, true)
        XCTAssertEqual(user["adminRole"] as? Bool, false)
        XCTAssertEqual(user["streamRole"] as? Bool, true)
        XCTAssertEqual(user["email"] as? String, "c@example.org")
        XCTAssertEqual(user["folder"] as? [Int], [1])
        let someoneElse = try await f.code("getUser", "\(carol)&username=owner")
        XCTAssertEqual(someoneElse, 50)
        let otherPassword = try await f.code("changePassword", "\(carol)&username=bob&password=x")
        XCTAssertEqual(otherPassword, 50)
        let ownPassword = try await f.code("changePassword", "\(carol)&username=carol&password=new")
        XCTAssertNil(ownPassword)
        let withNew = try await f.code("ping", "u=carol&p=new&v=1.16.1&c=test")
        XCTAssertNil(withNew)
        let exists = try await f.code("createUser", "\(owner)&username=carol&password=x&email=c@example.org")
        XCTAssertEqual(exists, 0)
        let missingEmail = try await f.code("createUser", "\(owner)&username=dave&password=x")
        XCTAssertEqual(missingEmail, 10)
        let badHex = try await f.code("createUser", "\(owner)&username=dave&password=enc:zz&email=d@example.org")
        XCTAssertEqual(badHex, 0)
        let updated = try await f.code("updateUser", "\(owner)&username=carol&adminRole=true")
        XCTAssertNil(updated)
        let noSuch = try await f.code("updateUser", "\(owner)&username=nobody&adminRole=true")
        XCTAssertEqual(noSuch, 70)
        let ownerStays = try await f.code("deleteUser", "\(owner)&username=owner")
        XCTAssertEqual(ownerStays, 0)
        let deleted = try await f.code("deleteUser", "\(owner)&username=carol")
        XCTAssertNil(deleted)
        let gone = try await f.code("getUser", "\(owner)&username=carol")
        XCTAssertEqual(gone, 70)
    }

    // MARK: HTTP

    func testGetPostAndViewAnswerAlike() async throws {
        let f = fixture!
        for path in ["/rest/ping", "/rest/ping.view"] {
            let get = try await f.request("\(path)?f=json&\(SubsonicServerFixture.owner)")
            XCTAssertNil(try get.errorCode(), path)
            let post = try await f.request(path, method: "POST", body: Data("f=json&\(SubsonicServerFixture.owner)".utf8),
                                           contentType: "application/x-www-form-urlencoded")
            XCTAssertNil(try post.errorCode(), path)
        }
        // Query and body together, in order: the body's `p` completes the query's `u`.
        let merged = try await f.request("/rest/getUser.view?f=json&u=owner&v=1.16.1", method: "POST",
                                         body: Data("c=test&p=sesame&username=o%77ner".utf8),
                                         contentType: "application/x-www-form-urlencoded; charset=utf-8")
        let user = try merged.envelope()["user"] as? [String: Any]
        XCTAssertEqual(user?["username"] as? String, "owner")
        // A body that is no form.
        let json = try await f.request("/rest/ping?f=json&\(SubsonicServerFixture.owner)", method: "POST",
                                       body: Data("{}".utf8), contentType: "application/json")
        XCTAssertEqual(json.status, 415)
        let put = try await f.request("/rest/ping?\(SubsonicServerFixture.owner)", method: "PUT", body: Data())
        XCTAssertEqual(put.status, 405)
    }

    func testHeadSendsTheHeadersAlone() async throws {
        let f = fixture!
        let get = try await f.request("/rest/ping?\(SubsonicServerFixture.owner)")
        let head = try await f.request("/rest/ping?\(SubsonicServerFixture.owner)", method: "HEAD")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.body.count, 0)
        XCTAssertEqual(head.header("Content-Length"), String(get.body.count))
        XCTAssertEqual(head.header("Content-Type"), "text/xml; charset=utf-8")
    }

    func testXMLByDefaultJSONAndJSONP() async throws {
        let f = fixture!
        let xml = try await f.request("/rest/getLicense?\(SubsonicServerFixture.owner)")
        XCTAssertEqual(xml.header("Content-Type"), "text/xml; charset=utf-8")
        let document = try XMLDocument(data: xml.body)
        let root = try XCTUnwrap(document.rootElement())
        XCTAssertEqual(root.name, "subsonic-response")
        XCTAssertEqual(root.attributeValue("status"), "ok")
        XCTAssertEqual(root.elements(forName: "license").first?.attributeValue("valid"), "true")
        let json = try await f.json("getLicense", SubsonicServerFixture.owner)
        XCTAssertEqual(json.header("Content-Type"), "application/json; charset=utf-8")
        XCTAssertEqual((try json.envelope()["license"] as? [String: Any])?["valid"] as? Bool, true)
        let jsonp = try await f.request("/rest/ping?f=jsonp&callback=app.cb_1&\(SubsonicServerFixture.owner)")
        XCTAssertEqual(jsonp.header("Content-Type"), "application/javascript; charset=utf-8")
        XCTAssertTrue(jsonp.text.hasPrefix("app.cb_1({\"subsonic-response\""), jsonp.text)
        XCTAssertTrue(jsonp.text.hasSuffix(");"), jsonp.text)
        // Without its callback, the error comes as plain JSON.
        let noCallback = try await f.request("/rest/ping?f=jsonp&\(SubsonicServerFixture.owner)")
        XCTAssertEqual(try noCallback.errorCode(), 10)
        let badCallback = try await f.request("/rest/ping?f=jsonp&callback=alert(1)&\(SubsonicServerFixture.owner)")
        XCTAssertFalse(badCallback.text.contains("alert(1)("), badCallback.text)
        // An error in XML when nothing else was asked for.
        let failed = try await f.request("/rest/ping?u=owner&p=sesame&v=1.16.1")
        let failedRoot = try XCTUnwrap(try XMLDocument(data: failed.body).rootElement())
        XCTAssertEqual(failedRoot.attributeValue("status"), "failed")
        XCTAssertEqual(failedRoot.elements(forName: "error").first?.attributeValue("code"), "10")
    }

    func testUnknownEndpointsAnd404s() async throws {
        let f = fixture!
        let unknown = try await f.json("noSuchThing", SubsonicServerFixture.owner)
        XCTAssertEqual(unknown.status, 404)
        XCTAssertEqual(try unknown.errorCode(), 0)
        XCTAssertTrue(unknown.text.contains("noSuchThing"))
        let doubled = try await f.request("//rest/ping.view?f=json&\(SubsonicServerFixture.owner)")
        XCTAssertNil(try doubled.errorCode(), "a server address with a trailing slash still reaches the API")
        let outside = try await f.request("/index.html")
        XCTAssertEqual(outside.status, 404)
        let nested = try await f.json("ping/..%2F..%2Fetc", SubsonicServerFixture.owner)
        XCTAssertEqual(nested.status, 404)
        XCTAssertFalse(nested.text.contains("etc"), "a name of other characters is not echoed")
    }

    func testUnsupportedFeaturesAnswerAsTheSpecSays() async throws {
        let f = fixture!
        let podcasts = try await f.json("getPodcasts", SubsonicServerFixture.bob)
        XCTAssertNil(try podcasts.errorCode())
        XCTAssertNotNil(try podcasts.envelope()["podcasts"])
        for name in ["createShare", "createPodcastChannel", "addChatMessage", "getVideoInfo", "hls", "getAvatar"] {
            let code = try await f.code(name, SubsonicServerFixture.bob)
            XCTAssertEqual(code, 50, name)
        }
    }

    // MARK: Files

    func testARawFileWithRangesAndHead() async throws {
        let f = fixture!
        guard SubsonicEndpoints.all["download"] != nil else { throw XCTSkip("download is not in the table yet") }
        let id = try f.songID()
        let file = try Data(contentsOf: f.music.appendingPathComponent(SubsonicServerFixture.songPath))
        let whole = try await f.request("/rest/download?id=\(id)&\(SubsonicServerFixture.owner)")
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(whole.body, file)
        XCTAssertEqual(whole.header("Accept-Ranges"), "bytes")
        let part = try await f.request("/rest/download?id=\(id)&\(SubsonicServerFixture.owner)", headers: ["Range": "bytes=100-1099"])
        XCTAssertEqual(part.status, 206)
        XCTAssertEqual(part.body, file[100..<1100])
        XCTAssertEqual(part.header("Content-Range"), "bytes 100-1099/\(file.count)")
        let tail = try await f.request("/rest/download?id=\(id)&\(SubsonicServerFixture.owner)", headers: ["Range": "bytes=-10"])
        XCTAssertEqual(tail.body, file.suffix(10))
        let beyond = try await f.request("/rest/download?id=\(id)&\(SubsonicServerFixture.owner)",
                                         headers: ["Range": "bytes=\(file.count + 10)-"])
        XCTAssertEqual(beyond.status, 416)
        XCTAssertEqual(beyond.header("Content-Range"), "bytes */\(file.count)")
        let head = try await f.request("/rest/download?id=\(id)&\(SubsonicServerFixture.owner)", method: "HEAD")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.body.count, 0)
        XCTAssertEqual(head.header("Content-Length"), String(file.count))
    }
}

extension XMLElement {
    /// An attribute's value: FoundationXML's `attribute(forName:)` finds none under a default namespace.
    func attributeValue(_ name: String) -> String? {
        attributes?.first { $0.name == name }?.stringValue
    }
}
