import Foundation
import XCTest
import XZCatalogue
import XZTestSupport
@testable import XZSubsonicAPI

/// What songs, albums and artists tell clients beyond their names: how a song streams, what they sort by.
final class ChildFieldsTests: XCTestCase {
    /// The content type a plain `stream` of the song (no format, no cap) answers with.
    private func streamedType(_ fixture: BrowsingLibrary, _ id: String) throws -> String {
        switch try fixture.reply("stream", [("id", id)]) {
        case .file(let file): return file.contentType
        case .stream(let stream): return stream.contentType
        default: throw TestFailure("stream answered no media")
        }
    }

    func testACueTrackAnnouncesTheFLACItStreamsAsAndAFileNothing() throws {
        let fixture = try BrowsingLibrary()
        let rip = try XCTUnwrap(try fixture.database.albumNames().first { $0.title == "The Album" })
        let tracks = try fixture.answer("getAlbum", [("id", SubsonicID.album(rip.id).text)], of: AlbumID3WithSongs.self).song
        XCTAssertEqual(tracks.map(\.title), ["First", "Second", "Third"])
        for track in tracks {
            XCTAssertEqual(track.transcodedSuffix, "flac", track.title)
            XCTAssertEqual(track.transcodedContentType, "audio/flac", track.title)
        }
        XCTAssertEqual(try streamedType(fixture, tracks[0].id), "audio/flac")
        // Files stream as they are, FLAC (以父之名) and MP3 alike: nothing to announce.
        for title in ["以父之名", "晴天", "Alone"] {
            let song = try fixture.answer("getSong", [("id", try fixture.id(title))], of: SubsonicChild.self)
            XCTAssertNil(song.transcodedSuffix, title)
            XCTAssertNil(song.transcodedContentType, title)
            XCTAssertEqual(try streamedType(fixture, song.id), song.contentType, title)
        }
        let encoded = try SubsonicEncoding.encode(SubsonicDocument("song", try fixture.answer("getSong", [("id", try fixture.id("晴天"))],
                                                                                             of: SubsonicChild.self)), as: .json)
        XCTAssertFalse(String(decoding: encoded.bytes, as: UTF8.self).contains("transcoded"))
    }

    func testSortNamesAreTheKeysTheLibrarySortsNamesBy() throws {
        let fixture = try BrowsingLibrary()
        let artists = try fixture.answer("getArtists", [], of: ArtistsID3.self)
        let sortNames = Dictionary(uniqueKeysWithValues: artists.index.flatMap(\.artist).map { ($0.name, $0.sortName) })
        XCTAssertEqual(sortNames["王菲"], "wangfei")
        XCTAssertEqual(sortNames["The Beatles"], "beatles")
        XCTAssertEqual(sortNames["周杰伦"], "zhoujielun")
        // Within a letter, artists come in their sort names' order.
        for index in artists.index {
            let keys = index.artist.map { $0.sortName ?? "" }
            XCTAssertEqual(keys, keys.sorted(), index.name)
        }
        let wangFei = try XCTUnwrap(artists.index.flatMap(\.artist).first { $0.name == "王菲" })
        let artist = try fixture.answer("getArtist", [("id", wangFei.id)], of: ArtistWithAlbumsID3.self)
        XCTAssertEqual(artist.artist.sortName, "wangfei")
        XCTAssertEqual(artist.album.map(\.sortName), ["hongdou"])
        let album = try fixture.answer("getAlbum", [("id", artist.album[0].id)], of: AlbumID3WithSongs.self)
        XCTAssertEqual(album.song.map(\.sortName), ["dangshideyueliang", "hongdou"])
        // alphabeticalByName pages albums in their sort names' order ("The Album" as "album").
        let byName = try fixture.answer("getAlbumList2", [("type", "alphabeticalByName"), ("size", "500")], of: SubsonicAlbumList2.self).album
        XCTAssertEqual(byName.first { $0.name == "The Album" }?.sortName, "album")
        let keys = byName.map { $0.sortName ?? "" }
        XCTAssertEqual(keys, keys.sorted())
        let folders = try fixture.answer("getAlbumList", [("type", "alphabeticalByName"), ("size", "500")], of: SubsonicAlbumList.self).album
        XCTAssertEqual(folders.map(\.sortName), byName.map(\.sortName))
    }

    func testIndexesHaveNoShortcutsAndValidate() throws {
        let validator = try ModelSchemaValidator.make()
        let fixture = try BrowsingLibrary()
        guard case .document(let document) = try fixture.reply("getIndexes") else { return XCTFail("getIndexes answered no document") }
        XCTAssertNil(try fixture.answer("getIndexes", [], of: Indexes.self).shortcut)
        let json = try SubsonicEncoding.encode(document, as: .json)
        XCTAssertFalse(String(decoding: json.bytes, as: UTF8.self).contains("shortcut"))
        XCTAssertFalse(String(decoding: try SubsonicEncoding.encode(document, as: .xml).bytes, as: UTF8.self).contains("shortcut"))
        XCTAssertEqual(try validator.failures([("getIndexes", .endpoint("getIndexes"), Data(json.bytes))]), [])
    }
}
