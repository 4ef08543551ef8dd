import Foundation
import XCTest
import XZCatalogue
import XZTestSupport
@testable import XZSubsonicAPI

/// A music folder where songs name no album: The Beatles' `Abbey Road` album beside two songs without an
/// album tag in two folders (`Yesterday`, 1965, with a cover file beside it; `Hey Jude`, no year), Solo's
/// one song at the top, without an album either, and 王菲's `红豆`, in its album.
// Sendable as its base class is: set up before any test call, then only read.
private final class LooseSongsLibrary: SubsonicTestLibrary, @unchecked Sendable {
    init() throws {
        try super.init(label: "loose") { music in
            func mp3(_ path: String, _ title: String, _ artist: String, _ album: String?, seconds: Double, year: Int?) throws {
                let url = music.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try AudioFixtures.makeMP3(at: url.path, seconds: seconds, tags: .init(title: title, artist: artist, album: album, year: year),
                                          lameOptions: ["-b", "64"])
            }
            try mp3("The Beatles/Abbey Road/01.mp3", "Come Together", "The Beatles", "Abbey Road", seconds: 1, year: 1969)
            try mp3("The Beatles/singles/Yesterday.mp3", "Yesterday", "The Beatles", nil, seconds: 2, year: 1965)
            try mp3("The Beatles/Hey Jude.mp3", "Hey Jude", "The Beatles", nil, seconds: 3, year: nil)
            try mp3("top.mp3", "Alone", "Solo", nil, seconds: 1, year: nil)
            try mp3("王菲/红豆/01.mp3", "红豆", "王菲", "红豆", seconds: 1, year: 1998)
            try TestProcess.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=1", "-frames:v", "1",
                                                  music.appendingPathComponent("The Beatles/singles/cover.jpg").path])
        }
    }
}

final class UnknownAlbumTests: XCTestCase {
    func testEverySongIsReachedByArtistAndAlbumTheLooseOnesInTheirArtistsUnknownAlbum() throws {
        let fixture = try LooseSongsLibrary()
        let songs = try fixture.songs()
        let beatles = try XCTUnwrap(songs["Yesterday"]).singerId
        let unknown = SubsonicID.unknownAlbum(beatles).text

        // The walk Symfonium, Tempo and Feishin make: every song once.
        var reached: [String] = []
        var albums: [String: AlbumID3] = [:]
        for artist in try fixture.answer("getArtists", [], of: ArtistsID3.self).index.flatMap(\.artist) {
            let listed = try fixture.answer("getArtist", [("id", artist.id)], of: ArtistWithAlbumsID3.self)
            XCTAssertEqual(artist.albumCount, listed.album.count, artist.name)
            for album in listed.album {
                let full = try fixture.answer("getAlbum", [("id", album.id)], of: AlbumID3WithSongs.self)
                XCTAssertEqual(full.album, album)
                XCTAssertEqual(full.song.count, album.songCount, album.name)
                XCTAssertEqual(full.song.map(\.albumId), Array(repeating: album.id, count: full.song.count))
                XCTAssertEqual(full.song.map(\.album), Array(repeating: album.name, count: full.song.count))
                reached += full.song.map(\.title)
                albums[album.id] = album
            }
        }
        XCTAssertEqual(reached.sorted(), songs.keys.sorted())

        let theirs = try fixture.answer("getArtist", [("id", SubsonicID.artist(beatles).text)], of: ArtistWithAlbumsID3.self)
        XCTAssertEqual(theirs.album.map(\.name), ["Abbey Road", "[Unknown Album]"])
        XCTAssertEqual(theirs.artist.albumCount, 2)
        let loose = try XCTUnwrap(albums[unknown])
        XCTAssertEqual(loose.songCount, 2)
        let seconds = try ["Yesterday", "Hey Jude"].map { try XCTUnwrap(songs[$0]?.durationMs) }.reduce(0, +) / 1000
        XCTAssertEqual(loose.duration, seconds)
        XCTAssertGreaterThanOrEqual(loose.duration, 4)
        XCTAssertEqual(loose.year, 1965)
        XCTAssertEqual(loose.artistId, SubsonicID.artist(beatles).text)
        XCTAssertEqual(loose.coverArt, unknown)
        XCTAssertNil(loose.starred)
        let solo = try XCTUnwrap(songs["Alone"]).singerId
        XCTAssertNotNil(albums[SubsonicID.unknownAlbum(solo).text])
        // Its songs keep their own cover ids: they are unrelated files.
        let yesterday = try fixture.answer("getSong", [("id", try fixture.id("Yesterday"))], of: SubsonicChild.self)
        XCTAssertEqual(yesterday.albumId, unknown)
        XCTAssertEqual(yesterday.coverArt, yesterday.id)

        // The folder view reaches the same album.
        let folders = try fixture.answer("getMusicDirectory", [("id", SubsonicID.artist(beatles).text)], of: Directory.self)
        XCTAssertEqual(folders.child.map(\.id), [theirs.album[0].id, unknown])
        let directory = try fixture.answer("getMusicDirectory", [("id", unknown)], of: Directory.self)
        XCTAssertEqual(Set(directory.child.map(\.title)), ["Yesterday", "Hey Jude"])
        XCTAssertEqual(directory.parent, SubsonicID.artist(beatles).text)

        // Album lists hold it where its songs put it.
        func list(_ parameters: [(String, String)]) throws -> [String] {
            try fixture.answer("getAlbumList2", parameters, of: SubsonicAlbumList2.self).album.map(\.id)
        }
        XCTAssertEqual(Set(try list([("type", "newest"), ("size", "500")])), Set(albums.keys))
        XCTAssertEqual(Set(try list([("type", "random"), ("size", "500")])), Set(albums.keys))
        XCTAssertEqual(try list([("type", "byYear"), ("fromYear", "1960"), ("toYear", "1970")]), [unknown, theirs.album[0].id])
        let hongDou = try XCTUnwrap(try fixture.answer("getSong", [("id", try fixture.id("红豆"))], of: SubsonicChild.self).albumId)
        // beatles: abbey road, unknown album; solo; wangfei.
        XCTAssertEqual(try list([("type", "alphabeticalByArtist"), ("size", "500")]),
                       [theirs.album[0].id, unknown, SubsonicID.unknownAlbum(solo).text, hongDou])
        XCTAssertEqual(try list([("type", "alphabeticalByArtist"), ("size", "1"), ("offset", "1")]), [unknown])
        try fixture.play(try XCTUnwrap(songs["Hey Jude"]), as: fixture.owner)
        XCTAssertEqual(try list([("type", "frequent")]), [unknown])
        XCTAssertEqual(try list([("type", "recent")]), [unknown])
        // Rated by its songs' ratings, as an album without a rating of its own is.
        XCTAssertEqual(try list([("type", "highest")]), [])
        try fixture.reply("setRating", [("id", try fixture.id("Yesterday")), ("rating", "4")])
        try fixture.reply("setRating", [("id", theirs.album[0].id), ("rating", "5")])
        try fixture.reply("setRating", [("id", try fixture.id("Alone")), ("rating", "2")])
        XCTAssertEqual(try list([("type", "highest")]), [theirs.album[0].id, unknown, SubsonicID.unknownAlbum(solo).text])
        XCTAssertEqual(try list([("type", "highest"), ("size", "1"), ("offset", "1")]), [unknown])

        // Its cover is its songs': the cover file beside Yesterday.
        guard case .bytes(let cover) = try fixture.reply("getCoverArt", [("id", unknown)]) else { return XCTFail("no cover") }
        XCTAssertEqual(cover.bytes, try [UInt8](Data(contentsOf: fixture.music.appendingPathComponent("The Beatles/singles/cover.jpg"))))
    }

    func testSearchListsUnknownAlbumsBesideTheAlbumRows() throws {
        let fixture = try LooseSongsLibrary()
        let songs = try fixture.songs()
        let beatles = SubsonicID.unknownAlbum(try XCTUnwrap(songs["Yesterday"]).singerId).text
        let solo = SubsonicID.unknownAlbum(try XCTUnwrap(songs["Alone"]).singerId).text
        func search(_ parameters: [(String, String)]) throws -> SearchResult3 {
            try fixture.answer("search3", parameters, of: SearchResult3.self)
        }
        // Symfonium's sync: the empty query's pages, one album at a time and all at once, each album once.
        let all = try search([("query", "\"\""), ("albumCount", "500"), ("songCount", "500")])
        XCTAssertEqual(Set(all.song.compactMap(\.albumId)), Set(all.album.map(\.id)))
        XCTAssertEqual(all.album.count, 4)
        // After the album rows, by their singers' rows.
        let singers = try ["Yesterday", "Alone"].map { try XCTUnwrap(songs[$0]).singerId }.sorted()
        XCTAssertEqual(all.album.suffix(2).map(\.id), singers.map { SubsonicID.unknownAlbum($0).text })
        XCTAssertEqual(Set(all.album.suffix(2).map(\.id)), [beatles, solo])
        var paged: [String] = []
        for offset in 0..<6 {
            paged += try search([("query", "\"\""), ("albumCount", "1"), ("albumOffset", String(offset)), ("songCount", "0")]).album.map(\.id)
        }
        XCTAssertEqual(paged, all.album.map(\.id))
        XCTAssertEqual(try search([("query", ""), ("albumCount", "2"), ("albumOffset", "3")]).album.map(\.id), [all.album[3].id])
        // A song found brings its album, and an artist found their songs without one.
        XCTAssertEqual(try search([("query", "Yesterday")]).album.map(\.id), [beatles])
        XCTAssertTrue(try search([("query", "Beatles")]).album.map(\.id).contains(beatles))
    }

    func testUnknownAlbumIdsAreParsedStrictly() throws {
        let fixture = try LooseSongsLibrary()
        let songs = try fixture.songs()
        let beatles = try XCTUnwrap(songs["Yesterday"]).singerId
        XCTAssertEqual(SubsonicID("ua-\(beatles)"), .unknownAlbum(beatles))
        XCTAssertEqual(SubsonicID(SubsonicID.unknownAlbum(beatles).text), .unknownAlbum(beatles))
        for text in ["ua-", "ua-x", "ua--1", "ua-+1", "ua- 1", "ua-1/2", "ua-99999999999999999999", "ua-0x1", "UA-1"] {
            XCTAssertNil(SubsonicID(text), text)
            XCTAssertEqual(fixture.errorCode("getAlbum", [("id", text)]), 70, text)
            XCTAssertEqual(fixture.errorCode("getCoverArt", [("id", text)]), 70, text)
        }
        // A singer with every song in an album, and no singer at all.
        let wangFei = try XCTUnwrap(songs["红豆"]).singerId
        for text in [SubsonicID.unknownAlbum(wangFei).text, SubsonicID.unknownAlbum(99_999).text, SubsonicID.unknownAlbum(Int64.max).text] {
            XCTAssertEqual(fixture.errorCode("getAlbum", [("id", text)]), 70, text)
            XCTAssertEqual(fixture.errorCode("getMusicDirectory", [("id", text)]), 70, text)
            XCTAssertEqual(fixture.errorCode("getCoverArt", [("id", text)]), 70, text)
            XCTAssertEqual(fixture.errorCode("getAlbumInfo2", [("id", text)]), 70, text)
        }
        // It is no album row: it takes no star or rating of its own.
        XCTAssertEqual(fixture.errorCode("star", [("albumId", SubsonicID.unknownAlbum(beatles).text)]), 70)
        XCTAssertEqual(fixture.errorCode("star", [("id", SubsonicID.unknownAlbum(beatles).text)]), 70)
        XCTAssertEqual(fixture.errorCode("setRating", [("id", SubsonicID.unknownAlbum(beatles).text), ("rating", "3")]), 70)
        XCTAssertEqual(fixture.errorCode("getSong", [("id", SubsonicID.unknownAlbum(beatles).text)]), 70)
        XCTAssertNil(fixture.errorCode("getAlbumInfo2", [("id", SubsonicID.unknownAlbum(beatles).text)]))
    }

    func testAnswersWithUnknownAlbumsValidateAgainstTheSpecsSchema() throws {
        let validator = try ModelSchemaValidator.make()
        let fixture = try LooseSongsLibrary()
        let song = try XCTUnwrap(try fixture.songs()["Yesterday"])
        let artist = SubsonicID.artist(song.singerId).text
        let album = SubsonicID.unknownAlbum(song.singerId).text
        let calls: [(String, [(String, String)])] = [
            ("getArtists", []), ("getArtist", [("id", artist)]), ("getAlbum", [("id", album)]), ("getSong", [("id", SubsonicID.song(song.id).text)]),
            ("getMusicDirectory", [("id", artist)]), ("getMusicDirectory", [("id", album)]), ("getAlbumInfo2", [("id", album)]),
            ("getAlbumList2", [("type", "newest")]), ("getAlbumList", [("type", "alphabeticalByName")]), ("getIndexes", []),
            ("getSimilarSongs", [("id", album)]),
        ]
        var checks: [(name: String, target: ModelSchemaValidator.Target, json: Data)] = []
        for (endpoint, parameters) in calls {
            guard case .document(let document) = try fixture.reply(endpoint, parameters) else { return XCTFail("\(endpoint) answered no document") }
            let query = parameters.map { $0.0 + "=" + $0.1 }.joined(separator: "&")
            checks.append(("\(endpoint)?\(query)", .endpoint(endpoint), Data(try SubsonicEncoding.encode(document, as: .json).bytes)))
        }
        XCTAssertEqual(try validator.failures(checks), [])
    }
}
