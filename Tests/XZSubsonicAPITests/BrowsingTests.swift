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
        XCTAssertEqual(rip.child.map(\.title), ["First", "Second"])
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
        for text in ["fo-" + String(repeating: "A", count: 5000), "fo-..", "fo-%2F", "so-1/../2", "ar-99999999999999999999",
                     "ar-123456", "al-0", "pl-bmFtZQ"] {
            XCTAssertEqual(fixture.errorCode("getMusicDirectory", [("id", text)]), 70, text)
        }
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
        XCTAssertEqual(cue.song.map(\.title), ["First", "Second"])

        let genres = try fixture.answer("getGenres", [], of: Genres.self).genre
        let byName = Dictionary(uniqueKeysWithValues: genres.map { ($0.value, $0) })
        // The FLAC's two genres each count it.
        XCTAssertEqual(byName["Pop"]?.songCount, 4)
        XCTAssertEqual(byName["Pop"]?.albumCount, 2)
        XCTAssertEqual(byName["Mandopop"]?.songCount, 1)
        XCTAssertEqual(byName["Rock"]?.songCount, 4)  // the CUE sheet's REM GENRE Rock too
        let mandopop = try fixture.answer("getSongsByGenre", [("genre", "Mandopop")], of: SubsonicSongList.self)
        XCTAssertEqual(mandopop.song.map(\.title), ["以父之名"])
        let pop = try fixture.answer("getSongsByGenre", [("genre", "Pop"), ("count", "2"), ("offset", "1")], of: SubsonicSongList.self)
        XCTAssertEqual(pop.song.count, 2)

        let random = try fixture.answer("getRandomSongs", [("size", "99999999999999999999")], of: SubsonicSongList.self)
        XCTAssertEqual(random.song.count, BrowsingLibrary.songCount)
        let old = try fixture.answer("getRandomSongs", [("toYear", "2000"), ("genre", "Rock")], of: SubsonicSongList.self)
        XCTAssertEqual(Set(old.song.map(\.title)), ["Come Together", "Something", "First", "Second"])
        XCTAssertEqual(fixture.errorCode("getRandomSongs", [("size", "ten")]), 0)
    }

    func testAlbumListsOfEveryType() throws {
        let fixture = try BrowsingLibrary()
        func names(_ parameters: [(String, String)], as user: LibraryUser? = nil) throws -> [String] {
            try fixture.answer("getAlbumList2", parameters, as: user, of: SubsonicAlbumList2.self).album.map(\.name)
        }
        let all = ["Abbey Road", "The Album", "Wings", "叶惠美", "夜", "红豆"]
        // By spelling: abbey, album (article dropped), hongdou, wings, ye (夜), yehuimei.
        XCTAssertEqual(try names([("type", "alphabeticalByName"), ("size", "500")]),
                       ["Abbey Road", "The Album", "红豆", "Wings", "夜", "叶惠美"])
        XCTAssertEqual(try names([("type", "alphabeticalByName"), ("size", "2"), ("offset", "2")]), ["红豆", "Wings"])
        // By artist: beatles, b방…, imgartist (the image's ARTIST tag), wangfei, y…, zhoujielun.
        XCTAssertEqual(try names([("type", "alphabeticalByArtist"), ("size", "500")]),
                       ["Abbey Road", "Wings", "The Album", "红豆", "夜", "叶惠美"])
        XCTAssertEqual(try names([("type", "byYear"), ("fromYear", "1990"), ("toYear", "2020")]),
                       ["红豆", "The Album", "叶惠美", "Wings", "夜"])
        XCTAssertEqual(try names([("type", "byYear"), ("fromYear", "2020"), ("toYear", "1990")]),
                       ["夜", "Wings", "叶惠美", "The Album", "红豆"])
        XCTAssertEqual(try names([("type", "byGenre"), ("genre", "Mandopop")]), ["叶惠美"])
        XCTAssertEqual(Set(try names([("type", "random"), ("size", "500")])), Set(all))
        XCTAssertEqual(Set(try names([("type", "newest"), ("size", "500")])), Set(all))
        XCTAssertEqual(try names([("type", "newest")]).count, 6)
        XCTAssertEqual(try names([("type", "random"), ("size", "3")]).count, 3)
        XCTAssertEqual(fixture.errorCode("getAlbumList2", [("type", "byYear")]), 10)
        XCTAssertEqual(fixture.errorCode("getAlbumList2", [("type", "byGenre")]), 10)
        XCTAssertEqual(fixture.errorCode("getAlbumList2", [("type", "best")]), 0)
        XCTAssertEqual(fixture.errorCode("getAlbumList2", []), 10)

        // The guest's plays, ratings and stars are the guest's alone.
        let guest = StatsStore(database: fixture.database, user: fixture.guest.id)
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        for (title, plays) in [("晴天", 3), ("Something", 1), ("红豆", 2)] {
            let song = try fixture.song(titled: title)
            for play in 0..<plays {
                try guest.recordPlay(songKey: song.songKey, title: song.title, singer: song.singer, durationMs: 1000,
                                     at: day.addingTimeInterval(Double(play * 60 + (title == "Something" ? 3600 : 0))))
            }
        }
        let albums = Dictionary(uniqueKeysWithValues: try fixture.database.albumNames().map { ($0.title, $0.id) })
        let marks = UserAnnotations(database: fixture.database, user: fixture.guest.id)
        try marks.setRating(.album, id: albums["夜"]!, rating: 4)
        try marks.setRating(.song, id: try fixture.song(titled: "Come Together").id, rating: 5)
        try marks.setRating(.song, id: try fixture.song(titled: "Something").id, rating: 2)
        try marks.setStarred(true, albums: [albums["Wings"]!], at: day)
        try marks.setStarred(true, albums: [albums["红豆"]!], at: day.addingTimeInterval(10))

        XCTAssertEqual(try names([("type", "frequent")], as: fixture.guest), ["叶惠美", "红豆", "Abbey Road"])
        XCTAssertEqual(try names([("type", "recent")], as: fixture.guest), ["Abbey Road", "叶惠美", "红豆"])
        XCTAssertEqual(try names([("type", "highest")], as: fixture.guest), ["夜", "Abbey Road"])
        XCTAssertEqual(try names([("type", "starred")], as: fixture.guest), ["红豆", "Wings"])
        for type in ["frequent", "recent", "highest", "starred"] {
            XCTAssertEqual(try names([("type", type)]), [], type)
        }
        let frequent = try fixture.answer("getAlbumList2", [("type", "frequent")], as: fixture.guest, of: SubsonicAlbumList2.self).album
        XCTAssertEqual(frequent.map(\.playCount), [3, 2, 1])
        XCTAssertNotNil(frequent[1].starred)
        let folderList = try fixture.answer("getAlbumList", [("type", "starred")], as: fixture.guest, of: SubsonicAlbumList.self).album
        XCTAssertEqual(folderList.map(\.title), ["红豆", "Wings"])
        XCTAssertTrue(folderList.allSatisfy(\.isDir))
        // The folder view's albums and artists open as folders too (clients browse them by getMusicDirectory).
        let redBean = try fixture.answer("getMusicDirectory", [("id", folderList[0].id)], of: Directory.self)
        XCTAssertEqual(redBean.child.map(\.title), ["当时的月亮", "红豆"])
        XCTAssertEqual(redBean.parent, folderList[0].parent)
        let singer = try fixture.answer("getMusicDirectory", [("id", try XCTUnwrap(redBean.parent))], of: Directory.self)
        XCTAssertEqual(singer.name, "王菲")
        XCTAssertEqual(singer.child.map(\.id), [folderList[0].id])
    }

    func testStarsAndPlaysAreEachUsersOwn() throws {
        let fixture = try BrowsingLibrary()
        let song = try fixture.song(titled: "晴天")
        let guest = StatsStore(database: fixture.database, user: fixture.guest.id)
        try guest.like(songKey: song.songKey)
        try guest.recordPlay(songKey: song.songKey, title: song.title, singer: song.singer, durationMs: 1000)
        try UserAnnotations(database: fixture.database, user: fixture.guest.id).setStarred(true, artists: [song.singerId])

        let mine = try fixture.answer("getSong", [("id", SubsonicID.song(song.id).text)], as: fixture.guest, of: SubsonicChild.self)
        XCTAssertNotNil(mine.starred)
        XCTAssertEqual(mine.playCount, 1)
        XCTAssertNotNil(mine.played)
        let owners = try fixture.answer("getSong", [("id", SubsonicID.song(song.id).text)], of: SubsonicChild.self)
        XCTAssertNil(owners.starred)
        XCTAssertNil(owners.playCount)
        try UserBookmarks(database: fixture.database, user: fixture.guest.id).save(songId: song.id, positionMs: 1500, comment: "")
        XCTAssertEqual(try fixture.answer("getSong", [("id", SubsonicID.song(song.id).text)], as: fixture.guest,
                                          of: SubsonicChild.self).bookmarkPosition, 1500)
        XCTAssertNil(try fixture.answer("getSong", [("id", SubsonicID.song(song.id).text)], of: SubsonicChild.self).bookmarkPosition)

        let starred = try fixture.answer("getStarred2", [], as: fixture.guest, of: SubsonicStarred2.self)
        XCTAssertEqual(starred.song.map(\.title), ["晴天"])
        XCTAssertEqual(starred.artist.map(\.name), ["周杰伦"])
        XCTAssertNotNil(starred.artist.first?.starred)
        let ownerStarred = try fixture.answer("getStarred2", [], of: SubsonicStarred2.self)
        XCTAssertTrue(ownerStarred.song.isEmpty && ownerStarred.artist.isEmpty && ownerStarred.album.isEmpty)
        let folderStarred = try fixture.answer("getStarred", [], as: fixture.guest, of: SubsonicStarred.self)
        XCTAssertEqual(folderStarred.artist.map(\.name), ["周杰伦"])

        let album = try fixture.answer("getAlbum", [("id", try XCTUnwrap(mine.albumId))], as: fixture.guest, of: AlbumID3WithSongs.self)
        XCTAssertEqual(album.album.playCount, 1)
        XCTAssertEqual(album.song.first { $0.title == "晴天" }?.playCount, 1)
        let ownerAlbum = try fixture.answer("getAlbum", [("id", try XCTUnwrap(mine.albumId))], of: AlbumID3WithSongs.self)
        XCTAssertNil(ownerAlbum.album.playCount)
    }

    func testTopSimilarAndNowPlayingComeFromTheLibrarysOwnPlays() throws {
        let fixture = try BrowsingLibrary()
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        let guest = StatsStore(database: fixture.database, user: fixture.guest.id)
        func play(_ title: String, times: Int = 1, at date: Date) throws {
            let song = try fixture.song(titled: title)
            for _ in 0..<times {
                try guest.recordPlay(songKey: song.songKey, title: song.title, singer: song.singer, durationMs: 1000, at: date)
            }
        }
        try play("Something", times: 3, at: day)
        try play("Come Together", at: day)
        try play("红豆", times: 2, at: day.addingTimeInterval(60))
        try play("晴天", at: day.addingTimeInterval(86_400 * 3))

        let top = try fixture.answer("getTopSongs", [("artist", "The Beatles")], of: SubsonicSongList.self)
        XCTAssertEqual(top.song.map(\.title), ["Something", "Come Together"])
        XCTAssertEqual(try fixture.answer("getTopSongs", [("artist", "Nobody At All")], of: SubsonicSongList.self).song.count, 0)

        let something = try fixture.song(titled: "Something")
        let similar = try fixture.answer("getSimilarSongs2", [("id", SubsonicID.song(something.id).text), ("count", "3")],
                                         of: SubsonicSongList.self)
        // Played the same day first (红豆 twice, Come Together once), then the same artist or genre.
        XCTAssertEqual(Array(similar.song.map(\.title).prefix(2)), ["红豆", "Come Together"])
        XCTAssertEqual(similar.song.count, 3)
        XCTAssertFalse(similar.song.contains { $0.title == "Something" })
        let unplayed = try fixture.answer("getSimilarSongs", [("id", SubsonicID.song(try fixture.song(titled: "ただ君に晴れ").id).text)],
                                          of: SubsonicSongList.self)
        XCTAssertTrue(unplayed.song.allSatisfy { $0.title != "ただ君に晴れ" })

        let info = try fixture.answer("getArtistInfo2", [("id", SubsonicID.artist(something.singerId).text)], of: SubsonicArtistInfo2.self)
        XCTAssertEqual(info.similarArtist?.map(\.name), ["王菲", "周杰伦"])
        XCTAssertEqual(fixture.errorCode("getAlbumInfo2", [("id", "al-999999")]), 70)
        let abbeyRoad = try XCTUnwrap(try fixture.database.albumNames().first { $0.title == "Abbey Road" })
        XCTAssertNil(try fixture.answer("getAlbumInfo", [("id", SubsonicID.album(abbeyRoad.id).text)], of: SubsonicAlbumInfo.self).notes)

        // What a client reported playing, by its user.
        NowPlayingReports.of(fixture.library).add(NowPlayingReport(user: fixture.guest.id, username: "guest", client: "DSub",
                                                                   songId: something.id, at: Date()))
        let now = try fixture.answer("getNowPlaying", [], of: SubsonicNowPlaying.self)
        XCTAssertEqual(now.entry.map(\.username), ["guest"])
        XCTAssertEqual(now.entry.first?.child.title, "Something")
        XCTAssertEqual(now.entry.first?.playerName, "DSub")
        XCTAssertEqual(now.entry.first?.minutesAgo, 0)
    }

    func testEveryAnswerValidatesAgainstTheSpecsSchemaWithTheHostsPlayerNowPlaying() throws {
        let validator = try ModelSchemaValidator.make()
        let fixture = try BrowsingLibrary()
        let song = try fixture.song(titled: "晴天")
        let guest = StatsStore(database: fixture.database, user: fixture.guest.id)
        try guest.like(songKey: song.songKey)
        try guest.recordPlay(songKey: song.songKey, title: song.title, singer: song.singer, durationMs: 1000)
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
            let request = SubsonicRequest(endpoint: endpoint, parameters: parameters.map { (name: $0.0, value: $0.1) },
                                          clientAddress: "127.0.0.1")
            let reply = try XCTUnwrap(SubsonicEndpoints.all[endpoint]).answer(SubsonicCall(request: request, user: fixture.guest,
                                                                                         library: fixture.library))
            guard case .document(let document) = reply else { return XCTFail("\(endpoint) answered no document") }
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
