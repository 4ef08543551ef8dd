import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZHostCore
import XZStats
import XZTestSupport
@testable import XZSubsonicAPI

final class BrowsingTests: XCTestCase {
    func testFolderBrowsingReachesEverySongOnceUnderRomanisedInitials() throws {
        let fixture = try BrowsingLibrary()
        let folders = try fixture.answer("getMusicFolders", [], of: MusicFolders.self)
        XCTAssertEqual(folders.musicFolder, [MusicFolder(id: 1, name: "music")])

        let indexes = try fixture.answer("getIndexes", [], of: Indexes.self)
        XCTAssertEqual(indexes.ignoredArticles, "The El La Los Las Le Les Os As O A")
        let letters = Dictionary(uniqueKeysWithValues: indexes.index.map { ($0.name, $0.artist.map(\.name)) })
        XCTAssertEqual(letters["W"], ["王菲"])
        XCTAssertEqual(letters["Z"], ["周杰伦"])
        XCTAssertEqual(letters["Y"], ["ヨルシカ"])
        // "The Beatles" without its article, and 방 (bang), by their spellings.
        XCTAssertEqual(letters["B"], ["The Beatles", "방탄소년단"])
        XCTAssertEqual(letters["R"], ["rip"])
        XCTAssertEqual(indexes.index.map(\.name), ["B", "R", "W", "Y", "Z"])
        XCTAssertEqual(indexes.child?.map(\.title), ["Alone"])

        // A client's walk from the top (DSub): every song once, the CUE image's tracks in place of the image.
        var reached: [String] = indexes.child?.map(\.id) ?? []
        var queue = indexes.index.flatMap(\.artist).map(\.id)
        var visited = 0
        while let id = queue.popLast() {
            visited += 1
            let directory = try fixture.answer("getMusicDirectory", [("id", id)], of: Directory.self)
            XCTAssertEqual(directory.id, id)
            for child in directory.child {
                if child.isDir {
                    XCTAssertEqual(child.parent, id)
                    queue.append(child.id)
                } else {
                    reached.append(child.id)
                }
            }
        }
        XCTAssertEqual(visited, 11)  // five singers' folders and their albums', and rip
        XCTAssertEqual(reached.count, BrowsingLibrary.songCount)
        XCTAssertEqual(Set(reached).count, BrowsingLibrary.songCount)
        let rip = try fixture.answer("getMusicDirectory", [("id", SubsonicID.folder("rip").text)], of: Directory.self)
        XCTAssertEqual(rip.child.map(\.title), ["First", "Second", "Third"])
        XCTAssertEqual(rip.parent, SubsonicID.folder("").text)
        XCTAssertEqual(rip.name, "rip")
        // Every id a listing gives resolves.
        for id in reached {
            let song = try fixture.answer("getSong", [("id", id)], of: SubsonicChild.self)
            XCTAssertEqual(song.id, id)
        }
        let top = try fixture.answer("getMusicDirectory", [("id", SubsonicID.folder("").text)], of: Directory.self)
        XCTAssertEqual(top.name, "music")
        XCTAssertNil(top.parent)
        XCTAssertEqual(top.child.filter(\.isDir).count, 6)
    }

    func testHostileFolderIdsAreNotFound() throws {
        let fixture = try BrowsingLibrary()
        let hostile = ["../..", "..", "/etc", "/", "王菲/../..", "王菲/./红豆", "王菲//红豆", "nowhere", "王菲/红豆/01.mp3",
                       String(repeating: "a/", count: 1000), fixture.host.naming.musicDirectory]
        for path in hostile {
            XCTAssertEqual(fixture.errorCode("getMusicDirectory", [("id", SubsonicID.folder(path).text)]), 70, path)
        }
        for text in ["fo-..", "fo-%2F", "so-1/../2", "ar-99999999999999999999", "ar-123456", "al-0", "pl-bmFtZQ"] {
            XCTAssertEqual(fixture.errorCode("getMusicDirectory", [("id", text)]), 70, text)
        }
        // Longer than any id: refused as every parameter past its length is.
        XCTAssertEqual(fixture.errorCode("getMusicDirectory", [("id", "fo-" + String(repeating: "A", count: 5000))]), 0)
        XCTAssertEqual(fixture.errorCode("getMusicDirectory", []), 10)
        XCTAssertEqual(fixture.errorCode("getIndexes", [("musicFolderId", "2")]), 70)
        XCTAssertEqual(fixture.errorCode("getSong", [("id", "al-1")]), 70)
        XCTAssertEqual(fixture.errorCode("getAlbum", [("id", "so-1")]), 70)
        XCTAssertEqual(fixture.errorCode("getArtist", [("id", "ar-999999")]), 70)
    }

    func testTagViewListsArtistsAlbumsAndSongsInOrder() throws {
        let fixture = try BrowsingLibrary()
        let artists = try fixture.answer("getArtists", [], of: ArtistsID3.self)
        let letters = Dictionary(uniqueKeysWithValues: artists.index.map { ($0.name, $0.artist.map(\.name)) })
        XCTAssertEqual(letters["W"], ["王菲"])
        XCTAssertEqual(letters["B"], ["The Beatles", "방탄소년단"])
        XCTAssertEqual(letters["Z"], ["周杰伦"])
        XCTAssertEqual(letters["Y"], ["ヨルシカ"])
        let wangFei = try XCTUnwrap(artists.index.flatMap(\.artist).first { $0.name == "王菲" })
        XCTAssertEqual(wangFei.albumCount, 1)

        let artist = try fixture.answer("getArtist", [("id", wangFei.id)], of: ArtistWithAlbumsID3.self)
        XCTAssertEqual(artist.album.map(\.name), ["红豆"])
        let album = try fixture.answer("getAlbum", [("id", artist.album[0].id)], of: AlbumID3WithSongs.self)
        XCTAssertEqual(album.song.map(\.title), ["当时的月亮", "红豆"])
        XCTAssertEqual(album.album.songCount, 2)
        XCTAssertEqual(album.album.year, 1998)
        XCTAssertEqual(album.album.genre, "Pop")
        XCTAssertEqual(album.album.artistId, wangFei.id)
        XCTAssertEqual(album.song.map(\.albumId), [artist.album[0].id, artist.album[0].id])

        let rip = try XCTUnwrap(try fixture.database.albumNames().first { $0.title == "The Album" })
        let cue = try fixture.answer("getAlbum", [("id", SubsonicID.album(rip.id).text)], of: AlbumID3WithSongs.self)
        XCTAssertEqual(cue.song.map(\.title), ["First", "Second", "Third"])

        let genres = try fixture.answer("getGenres", [], of: Genres.self).genre
        let byName = Dictionary(uniqueKeysWithValues: genres.map { ($0.value, $0) })
        // The FLAC's two genres each count it.
        XCTAssertEqual(byName["Pop"]?.songCount, 4)
        XCTAssertEqual(byName["Pop"]?.albumCount, 2)
        XCTAssertEqual(byName["Mandopop"]?.songCount, 1)
        XCTAssertEqual(byName["Rock"]?.songCount, 5)  // the CUE sheet's REM GENRE Rock too
        let mandopop = try fixture.answer("getSongsByGenre", [("genre", "Mandopop")], of: SubsonicSongList.self)
        XCTAssertEqual(mandopop.song.map(\.title), ["以父之名"])
        let pop = try fixture.answer("getSongsByGenre", [("genre", "Pop"), ("count", "2"), ("offset", "1")], of: SubsonicSongList.self)
        XCTAssertEqual(pop.song.count, 2)

        let random = try fixture.answer("getRandomSongs", [("size", "99999999999999999999")], of: SubsonicSongList.self)
        XCTAssertEqual(random.song.count, BrowsingLibrary.songCount)
        let old = try fixture.answer("getRandomSongs", [("toYear", "2000"), ("genre", "Rock")], of: SubsonicSongList.self)
        XCTAssertEqual(Set(old.song.map(\.title)), ["Come Together", "Something", "First", "Second", "Third"])
        XCTAssertEqual(try fixture.answer("getRandomSongs", [("fromYear", "2000"), ("toYear", "1990")], of: SubsonicSongList.self).song, [])
        XCTAssertEqual(try fixture.answer("getRandomSongs", [("fromYear", "2016")], of: SubsonicSongList.self).song.count, 2)
        XCTAssertEqual(fixture.errorCode("getRandomSongs", [("size", "ten")]), 0)
    }

    func testEveryAnswerValidatesAgainstTheSpecsSchemaWithTheHostsPlayerNowPlaying() throws {
        let validator = try ModelSchemaValidator.make()
        let fixture = try BrowsingLibrary()
        let song = try fixture.song(titled: "晴天")
        try fixture.likeAndPlay(song, as: fixture.guest)
        let albumID = try XCTUnwrap(try fixture.database.albumNames().first { $0.title == "叶惠美" }?.id)
        let marks = UserAnnotations(database: fixture.database, user: fixture.guest.id)
        try marks.setStarred(true, albums: [albumID], artists: [song.singerId])
        try marks.setRating(.album, id: albumID, rating: 5)
        NowPlayingReports.of(fixture.library).add(NowPlayingReport(user: fixture.guest.id, username: "guest", client: "Tempo",
                                                                   songId: song.id, at: Date()))
        // The host's own player, paused on a song.
        let items = try SongResolver(host: fixture.host, allowsAbsolute: false).items("王菲/红豆/01.mp3")
        fixture.host.play(items)
        fixture.host.pause()
        XCTAssertTrue(eventually { fixture.host.snapshot().state.isLoaded })
        let now = try fixture.answer("getNowPlaying", [], of: SubsonicNowPlaying.self)
        XCTAssertEqual(now.entry.map(\.username), ["owner", "guest"])
        XCTAssertEqual(now.entry.map(\.child.title), ["当时的月亮", "晴天"])
        XCTAssertEqual(now.entry.first?.playerName, "xzmusic")

        let artist = SubsonicID.artist(song.singerId).text
        let album = SubsonicID.album(albumID).text
        let songID = SubsonicID.song(song.id).text
        var calls: [(String, [(String, String)])] = [
            ("getMusicFolders", []), ("getIndexes", []), ("getMusicDirectory", [("id", SubsonicID.folder("王菲").text)]),
            ("getMusicDirectory", [("id", SubsonicID.folder("王菲/红豆").text)]), ("getMusicDirectory", [("id", artist)]),
            ("getMusicDirectory", [("id", album)]), ("getArtists", []), ("getArtist", [("id", artist)]), ("getAlbum", [("id", album)]),
            ("getSong", [("id", songID)]), ("getGenres", []), ("getArtistInfo", [("id", artist)]),
            ("getArtistInfo2", [("id", artist)]), ("getAlbumInfo", [("id", album)]), ("getAlbumInfo2", [("id", album)]),
            ("getRandomSongs", []), ("getSongsByGenre", [("genre", "Pop")]), ("getStarred", []), ("getStarred2", []),
            ("getNowPlaying", []), ("getTopSongs", [("artist", "周杰伦")]), ("getSimilarSongs", [("id", songID)]),
            ("getSimilarSongs2", [("id", artist)]),
        ]
        for type in ["random", "newest", "frequent", "recent", "highest", "starred", "alphabeticalByName", "alphabeticalByArtist"] {
            calls.append(("getAlbumList", [("type", type)]))
            calls.append(("getAlbumList2", [("type", type)]))
        }
        calls.append(("getAlbumList2", [("type", "byYear"), ("fromYear", "2020"), ("toYear", "1990")]))
        calls.append(("getAlbumList", [("type", "byGenre"), ("genre", "Rock")]))
        var checks: [(name: String, target: ModelSchemaValidator.Target, json: Data)] = []
        for (endpoint, parameters) in calls {
            guard case .document(let document) = try fixture.reply(endpoint, parameters, as: fixture.guest) else { return XCTFail("\(endpoint) answered no document") }
            let body = try SubsonicEncoding.encode(document, as: .json)
            let query = parameters.map { $0.0 + "=" + $0.1 }.joined(separator: "&")
            checks.append(("\(endpoint)?\(query)", .endpoint(endpoint), Data(body.bytes)))
            // The same document as XML, for the clients that read it (DSub).
            XCTAssertFalse(try SubsonicEncoding.encode(document, as: .xml).bytes.isEmpty)
        }
        XCTAssertEqual(try validator.failures(checks), [])
    }

    func testIndexesAnswerNothingNewSinceTheClientsCopy() throws {
        let fixture = try BrowsingLibrary()
        let indexes = try fixture.answer("getIndexes", [], of: Indexes.self)
        XCTAssertGreaterThan(indexes.lastModified, 0)
        let same = try fixture.answer("getIndexes", [("ifModifiedSince", String(indexes.lastModified))], of: Indexes.self)
        XCTAssertEqual(same.lastModified, indexes.lastModified)
        XCTAssertTrue(same.index.isEmpty)
        let older = try fixture.answer("getIndexes", [("ifModifiedSince", String(indexes.lastModified - 1))], of: Indexes.self)
        XCTAssertEqual(older.index.count, indexes.index.count)
        XCTAssertEqual(fixture.errorCode("getIndexes", [("ifModifiedSince", "-1")]), 0)
        XCTAssertEqual(fixture.errorCode("getIndexes", [("ifModifiedSince", "99999999999999999999999")]), 0)
        XCTAssertNotNil(try fixture.answer("getIndexes", [("musicFolderId", "1")], of: Indexes.self))
        // A song gone from the folder is a change, though nothing newer came in.
        try FileManager.default.removeItem(at: fixture.folder.url.appendingPathComponent("music/top.mp3"))
        _ = fixture.host.startUpdate(of: fixture.folder.url.appendingPathComponent("music"), rescan: false)
        fixture.host.updates.wait()
        let changed = try fixture.answer("getIndexes", [("ifModifiedSince", String(indexes.lastModified))], of: Indexes.self)
        XCTAssertGreaterThan(changed.lastModified, indexes.lastModified)
        XCTAssertEqual(changed.index.count, indexes.index.count)
        XCTAssertNil(changed.child)
    }
}
