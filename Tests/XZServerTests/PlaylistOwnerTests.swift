import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A stored playlist's owner row (`PlaylistOwnership`, which the Subsonic API shows) follows the
/// playlist through MPD's commands: renamed with it, removed with it; a name saved anew is the
/// library owner's, public.
final class PlaylistOwnerTests: MusicFolderHostTestCase {
    private let theirs = PlaylistOwnership(userId: 7, isPublic: false, comment: "for the road")

    private func ownerships() throws -> [String: PlaylistOwnership] {
        try host.database.playlistOwnerships()
    }

    /// A playlist of user 7's, as the Subsonic API's createPlaylist leaves it.
    private func usersPlaylist(_ name: String, _ client: MPDClient) throws {
        _ = try client.run("save", name)
        try host.database.setPlaylistOwnership(name, theirs)
    }

    func testAUsersPlaylistRenamedByMPDKeepsItsOwner() throws {
        let client = try client()
        _ = try client.run("add", "album/1.mp3")
        try usersPlaylist("Theirs", client)
        _ = try client.run("rename", "Theirs", "Renamed")
        XCTAssertEqual(try ownerships(), ["Renamed": theirs])
        XCTAssertEqual(try client.run("listplaylist", "Renamed").map(\.value), ["album/1.mp3"])

        // A rename that fails moves nothing.
        _ = try client.run("save", "Mine")
        XCTAssertThrowsError(try client.run("rename", "Renamed", "Mine")) {
            XCTAssertEqual(($0 as? MPDError)?.code, .exist)
        }
        XCTAssertThrowsError(try client.run("rename", "Nowhere", "Elsewhere"))
        XCTAssertEqual(try ownerships(), ["Renamed": theirs])
        XCTAssertEqual(try host.database.playlistOwnership("Mine"), .libraryOwners)
    }

    func testARemovedPlaylistSavedAgainIsTheOwnersAndPublic() throws {
        let client = try client()
        _ = try client.run("add", "album/2.mp3")
        try usersPlaylist("Theirs", client)
        _ = try client.run("rm", "Theirs")
        XCTAssertEqual(try ownerships(), [:])
        _ = try client.run("save", "Theirs")
        XCTAssertEqual(try host.database.playlistOwnership("Theirs"), .libraryOwners)

        // A row whose file another program removed is not taken by the next playlist of the name,
        // whether `save` or `playlistadd` makes it.
        try host.database.setPlaylistOwnership("Theirs", theirs)
        try host.database.setPlaylistOwnership("Added", theirs)
        for name in ["Theirs", "Added"] {
            unlink(library.url.appendingPathComponent("playlists/\(name).m3u").path)
        }
        _ = try client.run("save", "Theirs")
        _ = try client.run("playlistadd", "Added", "album/3.mp3")
        XCTAssertEqual(try ownerships(), [:])
    }

    /// The prompt and the CLI change the playlists without a host: the rows are kept in the library's
    /// own database all the same.
    func testPlaylistsChangedWithoutAHostKeepTheirRows() throws {
        let client = try client()
        _ = try client.run("add", "album/1.mp3")
        try usersPlaylist("Theirs", client)
        let store = StoredPlaylists(library: library)
        try store.rename("Theirs", to: "Renamed")
        XCTAssertEqual(try ownerships(), ["Renamed": theirs])
        try store.remove("Renamed")
        XCTAssertEqual(try ownerships(), [:])
    }
}
