import Foundation
import XCTest
import XZCatalogue
import XZTestSupport
@testable import XZSubsonicAPI

/// What songs tell clients beyond their names: how a song streams.
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
}
