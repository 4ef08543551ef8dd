import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZHostCore
import XZMPDCommands
import XZPlaybackValues
import XZTestSupport
@testable import XZSubsonicAPI

/// Internet radio stations: changed by admins, listed to everyone, and MPD's stored playlist "Internet radio".
final class RadioTests: XCTestCase {
    private var fixture: AnnotationLibrary!

    override func setUpWithError() throws {
        fixture = try AnnotationLibrary()
    }

    override func tearDown() {
        fixture = nil
    }

    private func stations(as user: LibraryUser) throws -> [SubsonicInternetRadioStation] {
        try fixture.answer("getInternetRadioStations", as: user, key: "internetRadioStations",
                           of: SubsonicInternetRadioStations.self).internetRadioStation
    }

    func testStationsAreKeptAndMPDClientsSeeThem() throws {
        XCTAssertEqual(try stations(as: fixture.guest), [])
        XCTAssertEqual(fixture.mpdValues("playlist", "listplaylists"), [], "no stations, no playlist")
        try fixture.reply("createInternetRadioStation", [("name", "Jazz FM"), ("streamUrl", "http://jazz.example.invalid/live.mp3"),
                                                        ("homepageUrl", "https://jazz.example.invalid/")], as: fixture.owner)
        try fixture.reply("createInternetRadioStation", [("name", "  News  "), ("streamUrl", "https://news.example.invalid/aac")],
                         as: fixture.owner)
        let listed = try stations(as: fixture.guest)
        XCTAssertEqual(listed.map(\.name), ["Jazz FM", "News"])
        XCTAssertEqual(listed.map(\.streamUrl), ["http://jazz.example.invalid/live.mp3", "https://news.example.invalid/aac"])
        XCTAssertEqual(listed.map(\.homePageUrl), ["https://jazz.example.invalid/", nil])
        XCTAssertTrue(listed.allSatisfy { if case .radioStation? = SubsonicID($0.id) { true } else { false } })

        XCTAssertEqual(fixture.mpdValues("playlist", "listplaylists"), [RadioStations.playlistName])
        XCTAssertEqual(fixture.mpdValues("file", "listplaylist \"Internet radio\""),
                       ["http://jazz.example.invalid/live.mp3", "https://news.example.invalid/aac"])
        XCTAssertEqual(try fixture.answer("getPlaylists", as: fixture.owner, key: "playlists", of: SubsonicPlaylists.self).playlist.count, 0,
                       "the stations' list is no playlist of the API: the stations are")

        try fixture.reply("updateInternetRadioStation", [("id", listed[1].id), ("name", "World News"),
                                                        ("streamUrl", "https://news.example.invalid/mp3")], as: fixture.owner)
        XCTAssertEqual(try stations(as: fixture.third).map(\.name), ["Jazz FM", "World News"])
        XCTAssertEqual(fixture.mpdValues("file", "listplaylist \"Internet radio\""),
                       ["http://jazz.example.invalid/live.mp3", "https://news.example.invalid/mp3"])

        try fixture.reply("deleteInternetRadioStation", [("id", listed[0].id)], as: fixture.owner)
        XCTAssertEqual(fixture.mpdValues("file", "listplaylist \"Internet radio\""), ["https://news.example.invalid/mp3"])
        try fixture.reply("deleteInternetRadioStation", [("id", listed[1].id)], as: fixture.owner)
        XCTAssertEqual(fixture.mpdValues("playlist", "listplaylists"), [])
        XCTAssertEqual(fixture.errorCode("deleteInternetRadioStation", [("id", listed[1].id)], as: fixture.owner), 70)
    }

    func testOnlyAdminsChangeStations() {
        for name in ["createInternetRadioStation", "updateInternetRadioStation", "deleteInternetRadioStation"] {
            XCTAssertEqual(SubsonicEndpoints.all[name]?.access, .admin, name)
        }
        XCTAssertEqual(SubsonicEndpoints.all["getInternetRadioStations"]?.access, .user)
    }

    func testBadStationsAreRefused() throws {
        let long = "http://example.invalid/" + String(repeating: "a", count: 3000)
        for (name, url, home) in [("A", "ftp://example.invalid/x", ""), ("A", "javascript:alert(1)", ""), ("A", "/etc/passwd", ""),
                                  ("A", "http://example.invalid/a\nb", ""), ("A", "http://", ""), ("A", long, ""),
                                  ("", "http://example.invalid/", ""), ("A\u{7}", "http://example.invalid/", ""),
                                  (String(repeating: "n", count: 300), "http://example.invalid/", ""),
                                  ("A", "http://example.invalid/", "file:///etc/passwd")] {
            XCTAssertEqual(fixture.errorCode("createInternetRadioStation", [("name", name), ("streamUrl", url), ("homepageUrl", home)],
                                             as: fixture.owner), 0, url)
        }
        XCTAssertEqual(fixture.errorCode("createInternetRadioStation", [("name", "A")], as: fixture.owner), 10)
        XCTAssertEqual(fixture.errorCode("updateInternetRadioStation", [("id", "ra-99"), ("name", "A"), ("streamUrl", "http://a.invalid/")],
                                         as: fixture.owner), 70)
        XCTAssertEqual(fixture.errorCode("updateInternetRadioStation", [("id", "so-1"), ("name", "A"), ("streamUrl", "http://a.invalid/")],
                                         as: fixture.owner), 70)
        XCTAssertEqual(try stations(as: fixture.owner), [])
        XCTAssertEqual(fixture.mpdValues("playlist", "listplaylists"), [])
    }

    /// On a host that plays streams, an MPD client's `load "Internet radio"` queues every station.
    func testMPDClientsLoadTheStations() throws {
        try fixture.reply("createInternetRadioStation", [("name", "Jazz"), ("streamUrl", "http://jazz.example.invalid/live")], as: fixture.owner)
        try fixture.reply("createInternetRadioStation", [("name", "News"), ("streamUrl", "https://news.example.invalid/aac")], as: fixture.owner)
        let streaming = PlayerHost(folder: fixture.host.folder, database: fixture.database, output: .null, seed: 7,
                                   streams: { _ in throw PlaybackError.streamFailed("not in this test") }) { _ in }
        defer { streaming.shutdown() }
        var session = ClientSession(peer: .network, passwordRequired: false)
        let answer = session.receive(line: "load \"Internet radio\"", service: MPDService(host: streaming)).bytes
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), "OK\n")
        XCTAssertEqual(streaming.snapshot().queue.map(\.path), ["http://jazz.example.invalid/live", "https://news.example.invalid/aac"])
    }
}
