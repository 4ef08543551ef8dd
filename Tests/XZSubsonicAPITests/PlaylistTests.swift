import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZTestSupport
@testable import XZSubsonicAPI

/// Playlists are the library's stored playlists, the ones MPD clients see, with owners and a public flag.
final class PlaylistTests: XCTestCase {
    private var fixture: AnnotationLibrary!

    override func setUpWithError() throws {
        fixture = try AnnotationLibrary()
    }

    override func tearDown() {
        fixture = nil
    }

    private func playlist(_ name: String, as user: LibraryUser) throws -> SubsonicPlaylistWithSongs {
        try fixture.answer("getPlaylist", [("id", SubsonicID.playlist(name).text)], as: user, key: "playlist", of: SubsonicPlaylistWithSongs.self)
    }

    private func names(as user: LibraryUser, _ parameters: [(String, String)] = []) throws -> [String] {
        try fixture.answer("getPlaylists", parameters, as: user, key: "playlists", of: SubsonicPlaylists.self).playlist.map(\.name)
    }

    /// A playlist made through the API is the stored playlist MPD clients list and load, with the same songs.
    func testCreatedPlaylistIsWhatMPDClientsSee() throws {
        let one = try fixture.id("One"), three = try fixture.id("Three")
        let made = try fixture.answer("createPlaylist", [("name", "Road trip"), ("songId", three), ("songId", one)],
                                      as: fixture.guest, key: "playlist", of: SubsonicPlaylistWithSongs.self)
        XCTAssertEqual(made.playlist.id, SubsonicID.playlist("Road trip").text)
        XCTAssertEqual(made.playlist.songCount, 2)
        XCTAssertEqual(made.playlist.owner, "guest")
        XCTAssertEqual(made.playlist.public, false)
        XCTAssertEqual(made.entry?.map(\.id), [three, one])

        XCTAssertEqual(fixture.mpdValues("playlist", "listplaylists"), ["Road trip"])
        XCTAssertEqual(fixture.mpdValues("file", "listplaylist \"Road trip\""), ["Other/Record/01.mp3", "Band/Album/01.mp3"])
        XCTAssertEqual(fixture.mpdValues("Title", "listplaylistinfo \"Road trip\""), ["Three", "One"])
        XCTAssertEqual(fixture.mpd("load \"Road trip\""), "OK\n")
        XCTAssertEqual(fixture.host.snapshot().queue.map(\.title), ["Three", "One"])

        // A change by an MPD client is what the API shows next.
        XCTAssertEqual(fixture.mpd("playlistadd \"Road trip\" \"Band/Album/02.mp3\""), "OK\n")
        XCTAssertEqual(try playlist("Road trip", as: fixture.guest).entry?.map(\.title), ["Three", "One", "Two"])
    }

    /// A playlist saved by an MPD client is the owner's and public: every user sees it, only the owner
    /// and admins change it.
    func testMPDsPlaylistsAreTheOwnersAndPublic() throws {
        XCTAssertEqual(fixture.mpd("add \"Band/Album\""), "OK\n")
        XCTAssertEqual(fixture.mpd("save Saved"), "OK\n")
        let seen = try playlist("Saved", as: fixture.guest)
        XCTAssertEqual(seen.playlist.owner, "owner")
        XCTAssertEqual(seen.playlist.public, true)
        XCTAssertEqual(seen.playlist.readonly, true)
        XCTAssertEqual(seen.entry?.map(\.title), ["One", "Two"])
        XCTAssertEqual(try names(as: fixture.third), ["Saved"])
        XCTAssertEqual(fixture.errorCode("deletePlaylist", [("id", SubsonicID.playlist("Saved").text)], as: fixture.guest), 50)
        XCTAssertEqual(fixture.errorCode("updatePlaylist", [("playlistId", SubsonicID.playlist("Saved").text), ("name", "Mine")],
                                         as: fixture.guest), 50)
        XCTAssertEqual(fixture.mpdValues("playlist", "listplaylists"), ["Saved"], "refusals change nothing")
        XCTAssertEqual(try playlist("Saved", as: fixture.owner).playlist.readonly, false)

        // A user's playlist removed by an MPD client and saved again there is the owner's, public.
        try fixture.reply("createPlaylist", [("name", "Theirs"), ("songId", fixture.id("One"))], as: fixture.guest)
        XCTAssertEqual(fixture.mpd("rm Theirs"), "OK\n")
        XCTAssertEqual(try names(as: fixture.third), ["Saved"])
        XCTAssertEqual(fixture.mpd("save Theirs"), "OK\n")
        XCTAssertEqual(try playlist("Theirs", as: fixture.third).playlist.owner, "owner")
    }

    /// Private playlists are seen by their owner (and admins asking for them) only; public ones by all,
    /// changed by their owner only.
    func testOwnershipRules() throws {
        let one = try fixture.id("One"), two = try fixture.id("Two")
        let id = SubsonicID.playlist("Mine").text
        try fixture.reply("createPlaylist", [("name", "Mine"), ("songId", one)], as: fixture.guest)
        XCTAssertEqual(try names(as: fixture.guest), ["Mine"])
        XCTAssertEqual(try names(as: fixture.third), [])
        XCTAssertEqual(fixture.errorCode("getPlaylist", [("id", id)], as: fixture.third), 70, "another's private playlist is not there")
        XCTAssertEqual(fixture.errorCode("updatePlaylist", [("playlistId", id), ("songIdToAdd", two)], as: fixture.third), 70)
        XCTAssertEqual(fixture.errorCode("getPlaylists", [("username", "guest")], as: fixture.third), 50)
        XCTAssertEqual(try names(as: fixture.owner, [("username", "guest")]), ["Mine"], "an admin lists a user's playlists")
        XCTAssertEqual(fixture.errorCode("getPlaylists", [("username", "nobody")], as: fixture.owner), 70)

        try fixture.reply("updatePlaylist", [("playlistId", id), ("public", "true"), ("comment", "for\u{1B} all")], as: fixture.guest)
        XCTAssertEqual(try names(as: fixture.third), ["Mine"])
        let seen = try playlist("Mine", as: fixture.third)
        XCTAssertEqual(seen.playlist.comment, "for all")
        XCTAssertEqual(seen.playlist.readonly, true)
        XCTAssertEqual(fixture.errorCode("updatePlaylist", [("playlistId", id), ("songIdToAdd", two)], as: fixture.third), 50)
        XCTAssertEqual(fixture.errorCode("createPlaylist", [("playlistId", id), ("songId", two)], as: fixture.third), 50)
        XCTAssertEqual(fixture.errorCode("createPlaylist", [("name", "Mine"), ("songId", two)], as: fixture.third), 50)
        XCTAssertEqual(try playlist("Mine", as: fixture.guest).entry?.map(\.id), [one])

        // An admin changes anyone's playlist; the owner stays who it was.
        try fixture.reply("updatePlaylist", [("playlistId", id), ("songIdToAdd", two)], as: fixture.owner)
        XCTAssertEqual(try playlist("Mine", as: fixture.guest).entry?.map(\.id), [one, two])
        XCTAssertEqual(try playlist("Mine", as: fixture.guest).playlist.owner, "guest")
    }

    /// updatePlaylist renames (keeping owner and flag), removes by the indexes the client was shown, and adds.
    func testUpdateRenamesRemovesAndAdds() throws {
        let one = try fixture.id("One"), two = try fixture.id("Two"), three = try fixture.id("Three"), four = try fixture.id("Four")
        try fixture.reply("createPlaylist", [("name", "Mix"), ("songId", one), ("songId", two), ("songId", three)], as: fixture.guest)
        try fixture.reply("updatePlaylist", [("playlistId", SubsonicID.playlist("Mix").text), ("public", "true")], as: fixture.guest)
        // A line naming no song of the library (a web address, a file gone) is no song of the list, and stays in its file.
        try StoredPlaylists(library: fixture.host.folder).edit("Mix") { entries in
            entries.insert(PlaylistEntry(location: "http://radio.example.invalid/live"), at: 1)
            entries.append(PlaylistEntry(location: "Gone/missing.mp3"))
        }
        let shown = try playlist("Mix", as: fixture.guest)
        XCTAssertEqual(shown.entry?.map(\.id), [one, two, three])
        XCTAssertEqual(shown.playlist.songCount, 3)

        try fixture.reply("updatePlaylist", [("playlistId", SubsonicID.playlist("Mix").text), ("name", "Mix 2"),
                                            ("songIndexToRemove", "1"), ("songIndexToRemove", "0"), ("songIdToAdd", four)],
                         as: fixture.guest)
        let renamed = try playlist("Mix 2", as: fixture.guest)
        XCTAssertEqual(renamed.entry?.map(\.id), [three, four])
        XCTAssertEqual(renamed.playlist.owner, "guest")
        XCTAssertEqual(renamed.playlist.public, true)
        XCTAssertEqual(fixture.mpdValues("playlist", "listplaylists"), ["Mix 2"])
        XCTAssertEqual(fixture.mpdValues("file", "listplaylist \"Mix 2\""),
                       ["http://radio.example.invalid/live", "Other/Record/01.mp3", "Gone/missing.mp3", "Other/Record/02.mp3"])

        let id = SubsonicID.playlist("Mix 2").text
        for bad in [[("songIndexToRemove", "2")], [("songIndexToRemove", "-1")], [("songIndexToRemove", "99999999999999999999")],
                    [("songIdToAdd", "so-4242")], [("name", "../x")], [("name", "")], [("name", "a/b")],
                    [("name", "Internet radio")], [("public", "yes please")]] {
            XCTAssertNotNil(fixture.errorCode("updatePlaylist", [("playlistId", id)] + bad, as: fixture.guest), "\(bad)")
        }
        XCTAssertEqual(try playlist("Mix 2", as: fixture.guest).entry?.map(\.id), [three, four], "refusals change nothing")
        fixture.host.maxQueueLength = 4
        XCTAssertEqual(fixture.errorCode("updatePlaylist", [("playlistId", id), ("songIdToAdd", one)], as: fixture.guest), 0,
                       "no playlist passes max_playlist_length")

        try fixture.reply("deletePlaylist", [("id", id)], as: fixture.guest)
        XCTAssertEqual(fixture.mpdValues("playlist", "listplaylists"), [])
        XCTAssertEqual(fixture.errorCode("getPlaylist", [("id", id)], as: fixture.guest), 70)
    }

    /// createPlaylist with a playlist's id replaces its songs; names that are no file name are refused.
    func testCreateReplacesAndRefusesBadNames() throws {
        let one = try fixture.id("One"), two = try fixture.id("Two")
        try fixture.reply("createPlaylist", [("name", "List"), ("songId", one)], as: fixture.guest)
        let replaced = try fixture.answer("createPlaylist", [("playlistId", SubsonicID.playlist("List").text), ("songId", two), ("songId", two)],
                                          as: fixture.guest, key: "playlist", of: SubsonicPlaylistWithSongs.self)
        XCTAssertEqual(replaced.entry?.map(\.id), [two, two])
        for bad in ["", ".hidden", "a/b", "..", "x\u{0}y", String(repeating: "n", count: 300), "Internet radio"] {
            XCTAssertEqual(fixture.errorCode("createPlaylist", [("name", bad)], as: fixture.guest), 0, bad)
        }
        XCTAssertEqual(fixture.errorCode("createPlaylist", [("songId", one)], as: fixture.guest), 10)
        XCTAssertEqual(fixture.errorCode("createPlaylist", [("playlistId", "pl-Tm9wZQ")], as: fixture.guest), 70)
        XCTAssertEqual(fixture.mpdValues("playlist", "listplaylists"), ["List"])
    }

    /// Ids naming no stored playlist — paths out of the folder, NUL, the stations' list, 5,000 characters — are not found.
    func testHostilePlaylistIdsAreNotFound() throws {
        try "secret\n".write(to: fixture.folder.url.appendingPathComponent("outside.m3u"), atomically: true, encoding: .utf8)
        for name in ["../outside", "../../etc/passwd", "/etc/passwd", ".hidden", "a\u{0}b", RadioStations.playlistName, "nothing"] {
            let id = SubsonicID.playlist(name).text
            XCTAssertEqual(fixture.errorCode("getPlaylist", [("id", id)], as: fixture.owner), 70, name)
            XCTAssertEqual(fixture.errorCode("deletePlaylist", [("id", id)], as: fixture.owner), 70, name)
            XCTAssertEqual(fixture.errorCode("updatePlaylist", [("playlistId", id), ("name", "x")], as: fixture.owner), 70, name)
        }
        XCTAssertEqual(fixture.errorCode("getPlaylist", [("id", "pl-" + String(repeating: "A", count: 5_000))], as: fixture.owner), 0)
        XCTAssertEqual(fixture.errorCode("getPlaylist", [("id", "pl-%2F..")], as: fixture.owner), 70)
        XCTAssertEqual(fixture.errorCode("getPlaylist", [("id", "so-1")], as: fixture.owner), 70)
        XCTAssertTrue(FileManager.default.fileExists(atPath: fixture.folder.url.appendingPathComponent("outside.m3u").path))
    }
}
